import Foundation
import GRDB
import GRDBSQLite
@_spi(Benchmarks) import Rewind

/// The SQLite floor: SQLite's own cost for exactly the engine's writes, with no engine.
///
/// It replays, through SQLite's C API, the statements the engine ran for each action (its row
/// upserts and deletes, its undo-stack write, its log insert with the same JSON text), each
/// prepared once, in one transaction per action opened and closed by prepared `BEGIN
/// IMMEDIATE` and `COMMIT` statements, as the engine's are (and SQLite's own WAL checkpoints,
/// as the engine's), on a connection with the engine's settings. It starts from a copy of the engine's file, so after a run both files must
/// hold the same rows, byte for byte: ``compare(_:_:)`` checks that.
final class Floor {
  private var db: OpaquePointer?
  private var statements: [String: OpaquePointer] = [:]
  private let begin: OpaquePointer
  private let commit: OpaquePointer

  /// Opens the file with the settings the engine's connections run (no SQLite mutexes, as GRDB
  /// opens its connections, foreign keys on, its `synchronous`, its page cache), or with
  /// foreign keys off, as SQLite's default is.
  init(path: String, foreignKeys: Bool = true) throws {
    guard sqlite3_open_v2(path, &db, Self.openFlags | SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
      throw FloorError("open \(path)")
    }
    try Self.execute(db, "PRAGMA journal_mode = WAL")
    for pragma in Durability.normal.connectionPragmas { try Self.execute(db, pragma) }
    if !foreignKeys { try Self.execute(db, "PRAGMA foreign_keys = OFF") }
    begin = try Self.prepare(db, "BEGIN IMMEDIATE")
    commit = try Self.prepare(db, "COMMIT")
  }

  deinit {
    for statement in statements.values { sqlite3_finalize(statement) }
    sqlite3_finalize(begin)
    sqlite3_finalize(commit)
    sqlite3_close(db)
  }

  /// One statement of an action, prepared, with its arguments as SQLite takes them.
  struct Step {
    enum Argument {
      case null
      case int64(Int64)
      case double(Double)
      /// The bytes and a zero after them, so that even empty text or blob has an address
      /// (SQLite binds a null pointer as NULL).
      case text(Bytes)
      case blob(Bytes)
    }
    let statement: OpaquePointer
    let arguments: [Argument]
  }

  /// Bytes at an address that stays theirs until they are released, so that SQLite can bind
  /// them without a copy (`SQLITE_STATIC`), as a C program binds the bytes in its variables
  /// and as the engine binds the texts it copies to the stack. (The engine has SQLite copy
  /// what passes its 1 KB on the stack, a statement's long texts, such as a log entry's changes
  /// for a large action; the floor never copies. Every run binds every parameter, so no
  /// statement is stepped with bytes already released.)
  final class Bytes {
    let pointer: UnsafeMutableBufferPointer<UInt8>
    init(_ bytes: some Collection<UInt8>) {
      pointer = .allocate(capacity: bytes.count + 1)
      _ = pointer.initialize(from: bytes + [0])
    }
    deinit { pointer.deallocate() }
  }

  /// An action's statements, each found among the prepared ones (or prepared once) and its
  /// arguments laid out as bytes, before any is timed or counted: what a C program replaying
  /// them would hold in its variables. (Finding each statement by its text and converting each
  /// string when it is bound cost the floor about 7.7k instructions a send, which flattered the
  /// engine's ratio.)
  func steps(_ entry: [EngineStatement]) throws -> [Step] {
    try entry.map { statement in
      Step(
        statement: try prepared(statement.sql),
        arguments: statement.arguments.map { value in
          switch value.storage {
          case .null: .null
          case .int64(let int): .int64(int)
          case .double(let double): .double(double)
          case .string(let text): .text(Bytes(text.utf8))
          case .blob(let data): .blob(Bytes(data))
          }
        })
    }
  }

  /// Runs one action's statements in one transaction.
  func perform(_ steps: [Step]) throws {
    try step(begin)
    for step in steps {
      let prepared = step.statement
      var position: Int32 = 1
      for argument in step.arguments {
        switch argument {
        case .null: sqlite3_bind_null(prepared, position)
        case .int64(let int): sqlite3_bind_int64(prepared, position, int)
        case .double(let double): sqlite3_bind_double(prepared, position, double)
        case .text(let bytes):
          _ = sqlite3_bind_text(
            prepared, position, UnsafeRawPointer(bytes.pointer.baseAddress!).assumingMemoryBound(to: CChar.self),
            Int32(bytes.pointer.count - 1), nil)
        case .blob(let bytes):
          _ = sqlite3_bind_blob(prepared, position, bytes.pointer.baseAddress, Int32(bytes.pointer.count - 1), nil)
        }
        position += 1
      }
      try self.step(prepared)
    }
    try step(commit)
  }

  private func step(_ statement: OpaquePointer) throws {
    let code = sqlite3_step(statement)
    sqlite3_reset(statement)
    guard code == SQLITE_DONE else { throw FloorError(String(cString: sqlite3_errmsg(db))) }
  }

  private func prepared(_ sql: String) throws -> OpaquePointer {
    if let statement = statements[sql] { return statement }
    let statement = try Self.prepare(db, sql)
    statements[sql] = statement
    return statement
  }

  private static func prepare(_ db: OpaquePointer?, _ sql: String) throws -> OpaquePointer {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
      let statement
    else { throw FloorError("prepare \(sql): \(String(cString: sqlite3_errmsg(db)))") }
    return statement
  }

  private static func execute(_ db: OpaquePointer?, _ sql: String) throws {
    guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
      throw FloorError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
    }
  }

  /// The tables both files must hold alike after a run: every table but the snapshots and their
  /// parts (the engine takes them, the floor does not) and SQLite's own.
  static func comparedTables(_ db: Database) throws -> [String] {
    try String.fetchAll(
      db,
      sql: """
        SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
        AND name NOT IN ('snapshots', 'snapshot_parts')
        ORDER BY name
        """)
  }

  /// Throws unless the two files hold the same rows, byte for byte, in every compared table.
  /// Returns how many rows it compared.
  static func compare(_ enginePath: String, _ floorPath: String) throws -> Int {
    let engine = try DatabaseQueue(path: enginePath)
    let floor = try DatabaseQueue(path: floorPath)
    var compared = 0
    try engine.read { engineDB in
      try floor.read { floorDB in
        let tables = try comparedTables(engineDB)
        guard tables == (try comparedTables(floorDB)) else { throw FloorError("the files have different tables") }
        for table in tables {
          // `quote()` renders each value as SQL text: equal text is equal type and bytes.
          let columns = try engineDB.columns(in: table).map { "quote(\($0.name.quotedDatabaseIdentifier))" }
          let sql =
            "SELECT \(columns.joined(separator: " || ',' || ")) FROM \(table.quotedDatabaseIdentifier) ORDER BY rowid"
          let left = try String.fetchCursor(engineDB, sql: sql)
          let right = try String.fetchCursor(floorDB, sql: sql)
          while true {
            let (a, b) = (try left.next(), try right.next())
            if a == nil, b == nil { break }
            guard a == b else {
              throw FloorError("\(table) differs: the engine wrote \(a ?? "nothing"), the floor \(b ?? "nothing")")
            }
            compared += 1
          }
        }
      }
    }
    return compared
  }

  /// A value as the raw read keeps it.
  enum Value {
    case null
    case int(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
  }

  /// The threading mode of the engine's connections: GRDB opens each in SQLite's multi-thread
  /// mode (its queue serializes their use), where a connection of its own would lock SQLite's
  /// mutexes around every call (serialized mode, Debian's default), 2.0k instructions a send
  /// more than the engine paid, flattering its ratio.
  static let openFlags = SQLITE_OPEN_NOMUTEX

  /// Reads every row of the state tables (every column, by its storage type) into arrays: the
  /// floor for opening a database.
  static func readRows(path: String) throws -> [[Value]] {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, openFlags | SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
      throw FloorError("open")
    }
    defer { sqlite3_close(db) }
    var rows: [[Value]] = []
    for sql in [
      "SELECT * FROM tasks", "SELECT * FROM projects", "SELECT * FROM list_entries ORDER BY list, owner, position",
      "SELECT * FROM view_state",
    ] {
      var statement: OpaquePointer?
      guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw FloorError(sql) }
      defer { sqlite3_finalize(statement) }
      let count = sqlite3_column_count(statement)
      while sqlite3_step(statement) == SQLITE_ROW {
        var row: [Value] = []
        row.reserveCapacity(Int(count))
        for column in 0..<count {
          switch sqlite3_column_type(statement, column) {
          case SQLITE_INTEGER: row.append(.int(sqlite3_column_int64(statement, column)))
          case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
          case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, column))))
          case SQLITE_BLOB:
            let bytes = sqlite3_column_blob(statement, column)
            let length = Int(sqlite3_column_bytes(statement, column))
            row.append(.blob(bytes.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []))
          default: row.append(.null)
          }
        }
        rows.append(row)
      }
    }
    return rows
  }
}

struct FloorError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
