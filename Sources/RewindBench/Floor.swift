import Foundation
import GRDBSQLite
import TasksExample

/// The SQLite floor: the same row writes and log insert as the engine, through raw prepared
/// statements of the C API, one transaction per action, with no engine at all. The values it
/// needs (titles, done flags, positions) it keeps in plain arrays, as a hand-written app would.
final class Floor {
  private var db: OpaquePointer?
  private var statements: [String: OpaquePointer] = [:]
  private var titles: [Int64: String] = [:]
  private var done: [Int64: Bool] = [:]
  private var positions: [Int64: String] = [:]
  private var selection = "null"
  private var search = "\"\""
  private var seq: Int64 = 0
  private var nextID: Int64 = 1
  private var nextPosition = 0

  /// Opens a database the engine created, holding `state`.
  init(path: String, state: TasksState) throws {
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { throw FloorError("open") }
    try execute("PRAGMA journal_mode = WAL")
    try execute("PRAGMA synchronous = NORMAL")
    for task in state.tasks.values {
      titles[task.id] = task.title
      done[task.id] = task.isDone
    }
    nextID = (state.tasks.ids.max() ?? 0) + 1
    seq = try scalar("SELECT max(seq) FROM action_log")
    for (index, id) in state.allTasks.enumerated() { positions[id] = "p\(index)" }
  }

  deinit {
    for statement in statements.values { sqlite3_finalize(statement) }
    sqlite3_close(db)
  }

  /// Writes what `action` changes, plus its log row, in one transaction.
  func perform(_ action: TasksAction) throws {
    try execute("BEGIN")
    seq += 1
    var changes = ""
    switch action {
    case .add(let title, _):
      let id = nextID
      nextID += 1
      nextPosition += 1
      let position = "z\(nextPosition)"
      try run("INSERT INTO tasks (id, title, done) VALUES (?, ?, 0)", [.int(id), .text(title)])
      try run("INSERT INTO list_entries (list, id, position) VALUES ('allTasks', ?, ?)", [.int(id), .text(position)])
      titles[id] = title
      done[id] = false
      positions[id] = position
      changes =
        #"[{"table":"tasks","key":{"id":\#(id)},"before":null,"after":{"done":0,"id":\#(id),"notes":"","projectId":null,"title":"\#(title)"}},{"table":"list_entries","key":{"id":\#(id),"list":"allTasks"},"before":null,"after":{"id":\#(id),"list":"allTasks","position":"\#(position)"}}]"#
    case .row(let id, .rename(let title)):
      try run("UPDATE tasks SET title = ? WHERE id = ?", [.text(title), .int(id)])
      changes =
        #"[{"table":"tasks","key":{"id":\#(id)},"before":{"done":\#(done[id]! ? 1 : 0),"id":\#(id),"notes":"","projectId":null,"title":"\#(titles[id]!)"},"after":{"done":\#(done[id]! ? 1 : 0),"id":\#(id),"notes":"","projectId":null,"title":"\#(title)"}}]"#
      titles[id] = title
    case .row(let id, .toggle):
      let value = !done[id]!
      try run("UPDATE tasks SET done = ? WHERE id = ?", [.int(value ? 1 : 0), .int(id)])
      changes =
        #"[{"table":"tasks","key":{"id":\#(id)},"before":{"done":\#(value ? 0 : 1),"id":\#(id),"notes":"","projectId":null,"title":"\#(titles[id]!)"},"after":{"done":\#(value ? 1 : 0),"id":\#(id),"notes":"","projectId":null,"title":"\#(titles[id]!)"}}]"#
      done[id] = value
    case .move(let id, let offset):
      nextPosition += 1
      let position = "m\(offset)-\(nextPosition)"
      try run("UPDATE list_entries SET position = ? WHERE list = 'allTasks' AND id = ?", [.text(position), .int(id)])
      changes =
        #"[{"table":"list_entries","key":{"id":\#(id),"list":"allTasks"},"before":{"id":\#(id),"list":"allTasks","position":"\#(positions[id]!)"},"after":{"id":\#(id),"list":"allTasks","position":"\#(position)"}}]"#
      positions[id] = position
    case .select(let id):
      let value = id.map(String.init) ?? "null"
      try run("INSERT OR REPLACE INTO view_state (path, value) VALUES ('selection', ?)", [.text(value)])
      changes =
        #"[{"table":"view_state","key":{"path":"selection"},"before":{"path":"selection","value":"\#(selection)"},"after":{"path":"selection","value":"\#(value)"}}]"#
      selection = value
    case .list(.search(let text)):
      let value = "\"\(text)\""
      try run("INSERT OR REPLACE INTO view_state (path, value) VALUES ('searchText', ?)", [.text(value)])
      changes =
        #"[{"table":"view_state","key":{"path":"searchText"},"before":{"path":"searchText","value":"\#(search.replacingOccurrences(of: "\"", with: "\\\""))"},"after":{"path":"searchText","value":"\#(value.replacingOccurrences(of: "\"", with: "\\\""))"}}]"#
      search = value
    default:
      throw FloorError("the floor does not implement \(action)")
    }
    try run(
      "INSERT INTO action_log (seq, kind, action, payload, changes) VALUES (?, 'action', ?, ?, ?)",
      [.int(seq), .text(Self.name(action)), .text(#"{"\#(Self.name(action))":{}}"#), .text(changes)])
    try execute("COMMIT")
  }

  static func name(_ action: TasksAction) -> String {
    switch action {
    case .add: "add"
    case .row(_, .rename): "rename"
    case .row(_, .toggle): "toggle"
    case .move: "move"
    case .select: "select"
    case .list(.search): "search"
    default: "other"
    }
  }

  // MARK: - C API

  enum Value {
    case int(Int64)
    case text(String)
  }

  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  private func run(_ sql: String, _ values: [Value]) throws {
    let statement = try prepared(sql)
    for (index, value) in values.enumerated() {
      switch value {
      case .int(let int): sqlite3_bind_int64(statement, Int32(index + 1), int)
      case .text(let text): sqlite3_bind_text(statement, Int32(index + 1), text, -1, Self.transient)
      }
    }
    let code = sqlite3_step(statement)
    sqlite3_reset(statement)
    guard code == SQLITE_DONE else { throw FloorError("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
  }

  private func prepared(_ sql: String) throws -> OpaquePointer {
    if let statement = statements[sql] { return statement }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
      let statement
    else { throw FloorError("prepare \(sql): \(String(cString: sqlite3_errmsg(db)))") }
    statements[sql] = statement
    return statement
  }

  private func execute(_ sql: String) throws {
    guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
      throw FloorError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
    }
  }

  private func scalar(_ sql: String) throws -> Int64 {
    let statement = try prepared(sql)
    defer { sqlite3_reset(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW else { throw FloorError(sql) }
    return sqlite3_column_int64(statement, 0)
  }

  /// Reads every row of the state tables into arrays: the floor for opening a database.
  static func readTables(path: String) throws -> Int {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw FloorError("open") }
    defer { sqlite3_close(db) }
    var tasks: [(Int64, String, Bool)] = []
    var entries: [(String, Int64, String)] = []
    var view: [(String, String)] = []
    func each(_ sql: String, _ row: (OpaquePointer) -> Void) throws {
      var statement: OpaquePointer?
      guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw FloorError(sql) }
      defer { sqlite3_finalize(statement) }
      while sqlite3_step(statement) == SQLITE_ROW { row(statement) }
    }
    func text(_ statement: OpaquePointer, _ column: Int32) -> String {
      String(cString: sqlite3_column_text(statement, column))
    }
    try each("SELECT id, title, done FROM tasks") {
      tasks.append((sqlite3_column_int64($0, 0), text($0, 1), sqlite3_column_int64($0, 2) != 0))
    }
    try each("SELECT list, id, position FROM list_entries ORDER BY list, position") {
      entries.append((text($0, 0), sqlite3_column_int64($0, 1), text($0, 2)))
    }
    try each("SELECT path, value FROM view_state") { view.append((text($0, 0), text($0, 1))) }
    return tasks.count + entries.count + view.count
  }
}

struct FloorError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
