import Foundation

/// An error thrown by the Rewind engine.
///
/// Every error names what failed and why. Match a kind of error with its code:
///
/// ```swift
/// do {
///   let store = try Store(path: "app.sqlite", initialState: AppState(), reducer: AppReducer())
/// } catch let error as RewindError where error.code == .newerSchema {
///   print("Please update the app: \(error)")
/// }
/// ```
public struct RewindError: Error, CustomStringConvertible, Sendable {
  /// The kind of failure.
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The file exists but is not an SQLite database.
    public static let notSQLite = Code(rawValue: "not-sqlite")
    /// The file is an SQLite database, but not one written by Rewind.
    public static let notRewindDatabase = Code(rawValue: "not-rewind-database")
    /// The database was written by a newer version of Rewind.
    public static let newerSchema = Code(rawValue: "newer-schema")
    /// The database was migrated by a newer version of the app (its app schema has migrations
    /// this app does not declare), or a migration the app declares differs from the one the file
    /// records under the same version.
    public static let newerAppSchema = Code(rawValue: "newer-app-schema")
    /// An app migration failed, or its row transform disagrees with what it did to the tables;
    /// nothing was changed.
    public static let migrationFailed = Code(rawValue: "migration-failed")
    /// An undo, redo, jump or restore to history before a migration declared as a history
    /// barrier: that history can be read, not returned to.
    public static let historyBarrier = Code(rawValue: "history-barrier")
    /// The database does not have the shape the engine or the app expects.
    public static let schemaMismatch = Code(rawValue: "schema-mismatch")
    /// Reading the database failed.
    public static let readFailed = Code(rawValue: "read-failed")
    /// Committing an action failed; nothing was written and the state did not move.
    public static let commitFailed = Code(rawValue: "commit-failed")
    /// A value stored in the database could not be decoded.
    public static let corruptData = Code(rawValue: "corrupt-data")
    /// The log gained an entry that did not come through the engine in the middle of a write
    /// (stores catch up with other writers by themselves, so this means the file was edited
    /// behind the engine's back); nothing was written. Also: `verify` (and `compact`, which
    /// verifies first) found the file compacted or migrated between its reads three times in
    /// a row; nothing was changed, and it can be run again.
    public static let externalChange = Code(rawValue: "external-change")
    /// A seq that is not in the log.
    public static let unknownSeq = Code(rawValue: "unknown-seq")
    /// A snapshot label that does not exist, or is already taken.
    public static let snapshotLabel = Code(rawValue: "snapshot-label")
    /// An exported state that is malformed or does not fit the database.
    public static let invalidImport = Code(rawValue: "invalid-import")
    /// The file does not exist.
    public static let fileNotFound = Code(rawValue: "file-not-found")
    /// A path that is not a database file: `:memory:`, an empty path, a `file:` URI, or an
    /// export written over the database itself.
    public static let invalidPath = Code(rawValue: "invalid-path")
    /// An undo or redo that would break an invariant of the state (a list entry whose entity is
    /// gone): refused, and nothing changed. The message names the conflicting rows.
    public static let conflict = Code(rawValue: "conflict")
    /// A write that would break a relation between entities (a foreign key): a row that refers
    /// to a row that does not exist, or the deletion of a row that others refer to under
    /// `ON DELETE RESTRICT` or `NO ACTION`. Refused, and nothing changed; the message names the
    /// rows when the engine found them.
    public static let relationViolation = Code(rawValue: "relation-violation")
    /// A value the database cannot hold exactly, such as text with a NUL character in an
    /// entity's column or key (JSON escapes it in payloads and view state), or a number
    /// the log's JSON cannot hold (a NaN, an infinity) in an action's payload or in view state.
    /// Refused, and nothing changed.
    public static let invalidValue = Code(rawValue: "invalid-value")
    /// A write through a ``RewindDatabase`` opened read-only, or a file opened for writing
    /// that the process may only read.
    public static let readOnly = Code(rawValue: "read-only")
    /// A scoped store whose root store was released.
    public static let storeReleased = Code(rawValue: "store-released")
  }

  /// The kind of failure.
  public var code: Code
  /// What failed and why, in one sentence.
  public var message: String
  /// The lower-level error that caused this one, if any (for example a GRDB `DatabaseError`).
  public var underlying: (any Error & Sendable)?

  /// Creates an error.
  public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
    self.code = code
    self.message = message
    self.underlying = underlying
  }

  public var description: String {
    guard let underlying else { return message }
    return "\(message): \(underlying)"
  }
}

extension RewindError.Code {
  /// Lets callers write `catch RewindError.Code.newerSchema`.
  public static func ~= (code: Self, error: any Error) -> Bool {
    (error as? RewindError)?.code == code
  }
}
