import GRDB

/// Every row of the state tables and the log, as text: equal dumps mean equal databases.
func dump(_ path: String) throws -> [String] {
  let queue = try DatabaseQueue(path: path)
  return try queue.read { db in try dump(db) }
}

func dump(_ db: Database) throws -> [String] {
  var lines: [String] = []
  let entityTables = try String.fetchAll(db, sql: "SELECT name FROM rewind_entity_tables ORDER BY name")
  for (table, order) in entityTables.map({ ($0, "1") }) + [
    ("list_entries", "list, position"), ("view_state", "path"), ("action_log", "seq"), ("undo_steps", "id"),
  ] {
    for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier) ORDER BY \(order)") {
      lines.append("\(table) \(row)")
    }
  }
  return lines
}
