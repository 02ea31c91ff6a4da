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

  /// The settings every connection of the engine's runs as it opens, after GRDB's own:
  /// foreign keys on (GRDB's default, which the engine's cascades rely on), this durability's
  /// `synchronous`, a page cache of up to 32 MiB, and a write-ahead log file cut back to
  /// 64 MiB when it starts over. The benchmark's floor runs them too, so that it pays for what
  /// the engine's connection does (foreign-key checks, the statement journal each upsert into
  /// a table with foreign keys opens).
  @_spi(Benchmarks) public var connectionPragmas: [String] {
    [
      "PRAGMA foreign_keys = ON", "PRAGMA synchronous = \(pragma)",
      // SQLite's default 2 MB page cache no longer holds the B-tree pages undo and redo walk
      // once the log reaches about a million entries, and they slow down by ~1.7x. The cache
      // grows only as pages are used, so a larger ceiling costs a small database nothing.
      "PRAGMA cache_size = -\(Self.pageCacheKiB)",
      // While a long read lasts (the tool's `verify`, say) the log cannot start over, and an
      // app sending meanwhile grows the file, past a gigabyte in minutes; SQLite reuses the
      // file from its start after, but keeps its size unless told. Checkpoints keep it near
      // 4 MiB otherwise, so the limit costs nothing then.
      Self.walSizeLimitPragma,
    ]
  }

  /// Cuts the write-ahead log file back to 64 MiB when it starts over; the `rewind` tool's
  /// connections run it too.
  static let walSizeLimitPragma = "PRAGMA journal_size_limit = \(walSizeLimit)"

  /// The size, in bytes, ``walSizeLimitPragma`` cuts the write-ahead log file back to. (A store
  /// cuts a larger one back in steps: see `WALCheckpointer.Marks.walShrinkStep`.)
  static let walSizeLimit: Int64 = 64 * 1_024 * 1_024

  /// The most memory SQLite's page cache may use, in KiB.
  static var pageCacheKiB: Int { 32_768 }
}
