/// How hard a commit works to survive failures, SQLite's `synchronous` setting in WAL mode.
public enum Durability: Sendable {
  /// `synchronous=NORMAL`: a committed action survives the app crashing or being killed. The
  /// last actions before a power loss or OS crash may be lost; the database stays consistent.
  /// The default, and the fast choice.
  case normal
  /// `synchronous=FULL`: a committed action also survives power loss, at the cost of an fsync
  /// per action.
  case full

  var pragma: String {
    switch self {
    case .normal: "NORMAL"
    case .full: "FULL"
    }
  }
}
