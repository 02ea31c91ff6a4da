import GRDB

/// The tables and columns row changes may name: the declared entity tables, `list_entries`
/// and `view_state`. Names read from a log, a snapshot or an import are checked here before
/// they reach SQL, so a tampered file cannot make the engine write elsewhere.
struct TableCatalog {
  private var columns: [String: Set<String>] = [:]
  private var keys: [String: [String]] = [:]
  /// Each order list's entity table.
  private(set) var lists: [String: String] = [:]

  init(_ db: Database) throws { try reload(db) }

  mutating func reload(_ db: Database) throws {
    columns = [:]
    keys = ["list_entries": ["id", "list"], "view_state": ["path"]]
    for row in try Row.fetchAll(db, sql: "SELECT name, key_column FROM rewind_entity_tables") {
      keys[row["name"]] = [row["key_column"]]
    }
    for name in keys.keys {
      guard try db.tableExists(name) else {
        throw RewindError(.schemaMismatch, "table \(name) is missing from the database")
      }
      columns[name] = Set(try db.columns(in: name).map(\.name))
      if let missing = keys[name]!.first(where: { !columns[name]!.contains($0) }) {
        throw RewindError(.schemaMismatch, "table \(name) has no key column \(missing)")
      }
    }
    lists = Dictionary(
      uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT name, entity_table FROM rewind_lists").map {
        ($0["name"] as String, $0["entity_table"] as String)
      })
  }

  /// The engine-managed tables, sorted.
  var tableNames: [String] { columns.keys.sorted() }

  /// The declared entity tables, sorted.
  var entityTables: [String] { tableNames.filter { $0 != "list_entries" && $0 != "view_state" } }

  /// The columns of `table`'s primary key, sorted.
  func keyColumns(of table: String) -> [String] { keys[table] ?? [] }

  /// The columns of `table`.
  func columns(of table: String) -> Set<String> { columns[table] ?? [] }

  /// Throws unless `change` names a known table, only its columns, and its whole key.
  func validate(_ change: RowChange) throws {
    guard let known = columns[change.table] else {
      throw RewindError(.corruptData, "table \(change.table) is not a Rewind table of this database")
    }
    guard change.key.keys.sorted() == keys[change.table]! else {
      throw RewindError(
        .corruptData,
        "a row of \(change.table) is keyed by \(change.key.keys.sorted()), not by its primary key \(keys[change.table]!)")
    }
    for row in [change.before ?? [:], change.after ?? [:]] {
      if let unknown = row.keys.first(where: { !known.contains($0) }) {
        throw RewindError(.corruptData, "column \(unknown) is not a column of table \(change.table)")
      }
    }
  }
}
