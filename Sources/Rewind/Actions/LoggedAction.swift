/// An action the store can send and log.
///
/// Actions are `Codable` so that each one is written to `action_log` with its payload as JSON.
/// An enum gets everything it needs from its synthesized `Codable` conformance:
///
/// ```swift
/// enum AppAction: LoggedAction {
///   case add(title: String)
///   case select(id: Int64?)
/// }
/// ```
public protocol LoggedAction: Codable, Sendable {
  /// The action's name in `action_log.action`. By default, the enum case's name.
  var name: String { get }
}

extension LoggedAction {
  public var name: String {
    // An enum case with associated values reflects as one child labelled with the case name;
    // a case without them describes itself as its name.
    if let label = Mirror(reflecting: self).children.first?.label, Mirror(reflecting: self).displayStyle == .enum {
      return label
    }
    return String(describing: self)
  }
}
