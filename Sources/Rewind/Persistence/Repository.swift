import Foundation
import GRDB

/// Maps a state to its tables: sets up and validates the database, loads the last committed
/// state, and runs the transactions that write rows together with their log entries.
///
/// One repository owns one connection. It is used from the store's actor only.
final class Repository<State: PersistentState> {
  let database: DatabaseQueue
  let schema: StateSchema<State>
  /// The most memory SQLite's page cache may use, in KiB.
  static var pageCacheKiB: Int { 32_768 }

  /// The log's position; changes only inside ``write(_:)``.
  private(set) var history: HistoryLog

  /// Opens (creating if needed) the database at `path`, or an in-memory one when `path` is nil.
  ///
  /// - Throws: ``RewindError`` when the file is not SQLite, not a Rewind database, or from a
  ///   newer version; the file is left untouched.
  init(path: String?, durability: Durability = .normal, initialState: State) throws {
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA synchronous = \(durability.pragma)")
      // SQLite's default 2 MB page cache no longer holds the B-tree pages undo and redo walk
      // once the log reaches about a million entries, and they slow down by ~1.7x. The cache
      // grows only as pages are used, so a larger ceiling costs a small database nothing.
      try db.execute(sql: "PRAGMA cache_size = -\(Self.pageCacheKiB)")
    }
    let contents: DatabaseFile.Contents
    if let path {
      (database, contents) = try DatabaseFile.open(path: path, configuration: configuration)
    } else {
      database = try DatabaseQueue(configuration: configuration)
      contents = .empty
    }
    let schema = State.schema
    self.schema = schema
    do {
      if path != nil {
        try database.writeWithoutTransaction { db in
          try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
      }
      try EngineMigrations.migrator.migrate(database)
      history = try database.write { db in
        try schema.prepare(db)
        return try HistoryLog(db)
      }
      if case .empty = contents {
        let rows = try schema.rows(of: initialState)
        try write { db, history in
          try db.execute(sql: "INSERT INTO rewind_meta (key, value) VALUES ('format', 'rewind')")
          if !rows.isEmpty {
            _ = try history.append(
              LogEntry(kind: .initialize, action: "initialize", payload: "{}", changes: rows, undo: .none), db)
          }
        }
      }
    } catch let error as RewindError {
      throw error
    } catch {
      throw RewindError(.schemaMismatch, "setting up the database failed", underlying: error)
    }
  }

  /// The last committed state: `initial` with every persisted part read from the tables.
  ///
  /// Reads tables only; the log is not replayed.
  func load(_ initial: State) throws -> State {
    var state = initial
    do {
      try database.read { db in try schema.load(db, into: &state) }
    } catch let error as RewindError {
      throw error
    } catch {
      throw RewindError(.readFailed, "loading the state failed", underlying: error)
    }
    return state
  }

  /// Runs `body` in one write transaction with the history log. If anything throws, the
  /// transaction is rolled back and the log's position is read back from the database.
  func write<T>(_ body: (Database, inout HistoryLog) throws -> T) throws -> T {
    do {
      return try database.writeWithoutTransaction { db in
        try db.inImmediateTransaction { try body(db, &history) }
      }
    } catch {
      try? database.read { db in try history.reload(db) }
      throw error
    }
  }

  /// Takes an automatic snapshot when the policy wants one. A failure here loses nothing (the
  /// snapshot only speeds up restores), so it is left for the next commit to retry.
  func takeAutomaticSnapshotIfDue(_ state: State) {
    guard history.wantsAutomaticSnapshot(rows: schema.rowCount(of: state)) else { return }
    try? write { db, history in try history.takeSnapshot(kind: "automatic", label: nil, db) }
  }

  /// Rereads the history position after another process changed the database.
  func reloadHistory() throws {
    try database.read { db in try history.reload(db) }
  }

  /// The undo and redo stacks.
  func stacks(limit: Int) throws -> HistoryStacks {
    try database.read { db in try HistoryLog.stacks(db, limit: limit) }
  }
}
