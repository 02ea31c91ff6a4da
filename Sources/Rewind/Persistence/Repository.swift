import Foundation
import GRDB

/// Maps a state to its tables: sets up and validates the database, loads the last committed
/// state, and commits each action's row changes together with its log entry.
///
/// One repository owns one connection. It is used from the store's actor only.
final class Repository<State: PersistentState> {
  let database: DatabaseQueue
  let schema: StateSchema<State>
  private var writer = RowWriter()

  /// Opens (creating if needed) the database at `path`, or an in-memory one when `path` is nil.
  ///
  /// - Throws: ``RewindError`` when the file is not SQLite, not a Rewind database, or from a
  ///   newer version; the file is left untouched.
  init(path: String?, durability: Durability = .normal, initialState: State) throws {
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA synchronous = \(durability.pragma)")
    }
    let contents: DatabaseFile.Contents
    if let path {
      (database, contents) = try DatabaseFile.open(path: path, configuration: configuration)
    } else {
      database = try DatabaseQueue(configuration: configuration)
      contents = .empty
    }
    schema = State.schema
    do {
      if path != nil {
        try database.writeWithoutTransaction { db in
          try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
      }
      try EngineMigrations.migrator.migrate(database)
      try database.write { db in
        try schema.prepare(db)
        if case .empty = contents {
          try db.execute(sql: "INSERT INTO rewind_meta (key, value) VALUES ('format', 'rewind')")
          let rows = try schema.rows(of: initialState)
          if !rows.isEmpty { _ = try insert(name: "initialize", payload: "{}", changes: rows, db) }
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

  /// The sequence number of the last committed log entry (0 for an empty log).
  func lastSeq() throws -> Int64 {
    try database.read { db in try Int64.fetchOne(db, sql: "SELECT max(seq) FROM action_log") ?? 0 }
  }

  /// Writes `changes` and one `action_log` row in a single transaction.
  ///
  /// - Returns: the new entry's `seq`.
  func commit(name: String, payload: String, changes: [RowChange]) throws -> Int64 {
    try database.write { db in
      try insert(name: name, payload: payload, changes: changes, db)
    }
  }

  private func insert(name: String, payload: String, changes: [RowChange], _ db: Database) throws -> Int64 {
    try writer.apply(changes, .forward, in: db)
    let statement = try db.cachedStatement(
      sql: "INSERT INTO action_log (action, payload, changes) VALUES (?, ?, ?)")
    try statement.execute(arguments: [name, payload, RowChange.json(changes)])
    return db.lastInsertedRowID
  }
}
