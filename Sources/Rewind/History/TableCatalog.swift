import GRDB

/// The tables and columns row changes may name: the declared entity tables, `list_entries`
/// and `view_state`. Names read from a log or an import are checked here before they reach
/// SQL, so a tampered file cannot make the engine write elsewhere.
struct TableCatalog {
  private var columns: [String: Set<String>] = [:]

  init(_ db: Database) throws { try reload(db) }

  mutating func reload(_ db: Database) throws {
    columns = [:]
    let names = try String.fetchAll(db, sql: "SELECT name FROM rewind_entity_tables") + ["list_entries", "view_state"]
    for name in names where try db.tableExists(name) {
      columns[name] = Set(try db.columns(in: name).map(\.name))
    }
  }

  /// The engine-managed tables, entity tables first, sorted.
  var tableNames: [String] { columns.keys.sorted() }

  /// Throws unless `change` names a known table and only its columns.
  func validate(_ change: RowChange) throws {
    guard let known = columns[change.table] else {
      throw RewindError(.corruptData, "the log names table \(change.table), which is not a Rewind table of this database")
    }
    for row in [change.key, change.before ?? [:], change.after ?? [:]] {
      if let unknown = row.keys.first(where: { !known.contains($0) }) {
        throw RewindError(.corruptData, "the log names column \(unknown), which table \(change.table) does not have")
      }
    }
  }
}
