import GRDB

/// The tables and columns row changes may name: the declared entity tables, `list_entries`
/// and `view_state`. Names read from a log, a snapshot or an import are checked here before
/// they reach SQL, so a tampered file cannot make the engine write elsewhere.
struct TableCatalog {
  private var columns: [String: Set<String>] = [:]
  /// Each column's declared type, for checking imported values.
  private var declaredTypes: [String: [String: String]] = [:]
  private var keys: [String: [String]] = [:]
  /// Each order list's entity table (of a keyed family: the children's table).
  private(set) var lists: [String: String] = [:]
  /// Each keyed list family's owner table.
  private(set) var listOwners: [String: String] = [:]
  /// The foreign keys between entity tables.
  private(set) var relations = Relations()
  /// The collation of each entity table's key column that is not `BINARY`: SQLite holds keys
  /// that differ in case (`NOCASE`) or trailing spaces (`RTRIM`) as one row.
  private(set) var keyCollations: [String: KeyCollation] = [:]
  /// The app's migrations: how images logged under earlier versions are read.
  private(set) var appSchema = AppSchemaHistory()
  /// SQLite's schema version when the catalog was last read.
  private(set) var schemaVersion: Int?

  /// Reads the catalog afresh: the connection's cached schema is dropped first, since another
  /// connection may have changed the schema since it was filled (a migration by another
  /// process, between opening a file and taking its write lock).
  init(_ db: Database) throws {
    db.clearSchemaCache()
    try reload(db)
  }

  mutating func reload(_ db: Database) throws {
    // GRDB caches each connection's view of the schema, and another connection's migration
    // (a newer version of the app upgrading the file under an open tool) does not reset it.
    let schemaVersion = try Int.fetchOne(db, sql: "PRAGMA schema_version")
    if let known = self.schemaVersion, known != schemaVersion { db.clearSchemaCache() }
    self.schemaVersion = schemaVersion
    // A missing or altered engine table is refused here, with its name, before any use.
    for engineTable in EngineTable.allCases {
      let (table, expected) = (engineTable.name, engineTable.columns)
      guard try db.tableExists(table) else {
        throw RewindError(.schemaMismatch, "the engine table \(table) is missing from the database")
      }
      let present = Set(try db.columns(in: table).map(\.name))
      if let missing = expected.first(where: { !present.contains($0) }) {
        throw RewindError(.schemaMismatch, "the engine table \(table) has no column \(missing): its schema was altered")
      }
    }
    columns = [:]
    keys = [EngineTable.listEntries.name: ["id", "list"], EngineTable.viewState.name: ["path"]]
    for row in try Row.fetchAll(db, sql: "SELECT name, key_column FROM rewind_entity_tables") {
      keys[try row.checked("name", in: EngineTable.entityTables.name, as: String.self)] = [
        try row.checked("key_column", in: EngineTable.entityTables.name, as: String.self)
      ]
    }
    for name in keys.keys {
      guard try db.tableExists(name) else {
        throw RewindError(.schemaMismatch, "table \(name) is missing from the database")
      }
      let infos = try db.columns(in: name)
      columns[name] = Set(infos.map(\.name))
      declaredTypes[name] = Dictionary(uniqueKeysWithValues: infos.map { ($0.name, $0.type.uppercased()) })
      if let missing = keys[name, default: []].first(where: { !(columns[name] ?? []).contains($0) }) {
        throw RewindError(.schemaMismatch, "table \(name) has no key column \(missing)")
      }
    }
    appSchema = try AppSchemaHistory(db)
    lists = [:]
    listOwners = [:]
    func isEntityTable(_ table: String) -> Bool {
      keys[table] != nil && table != EngineTable.listEntries.name && table != EngineTable.viewState.name
    }
    for row in try Row.fetchAll(db, sql: "SELECT name, entity_table, owner_table FROM rewind_lists") {
      let name = try row.checked("name", in: EngineTable.lists.name, as: String.self)
      let table = try row.checked("entity_table", in: EngineTable.lists.name, as: String.self)
      guard isEntityTable(table) else {
        throw RewindError(
          .corruptData, "rewind_lists: list \(name) orders ids of \(table), which is not a declared entity table")
      }
      lists[name] = table
      if let owner = try row.checked("owner_table", in: EngineTable.lists.name, as: String?.self) {
        guard isEntityTable(owner) else {
          throw RewindError(
            .corruptData, "rewind_lists: list family \(name) is keyed by \(owner), which is not a declared entity table"
          )
        }
        listOwners[name] = owner
      }
    }
    relations = try Relations(db, tables: keys.filter { isEntityTable($0.key) })
    keyCollations = [:]
    for (table, key) in keys where isEntityTable(table) && key.count == 1 {
      keyCollations[table] = try KeyCollation.folding(key: key[0], in: table, db)
    }
  }

  /// The engine-managed tables, sorted.
  var tableNames: [String] { columns.keys.sorted() }

  /// The declared entity tables, sorted.
  var entityTables: [String] {
    tableNames.filter { $0 != EngineTable.listEntries.name && $0 != EngineTable.viewState.name }
  }

  /// Whether `table` is a declared entity table. (The engine's own tables are ruled out first:
  /// comparing a short name costs a fraction of hashing it, and most changes are theirs.)
  func isEntityTable(_ table: String) -> Bool {
    table != EngineTable.listEntries.name && table != EngineTable.viewState.name && columns[table] != nil
  }

  /// The columns of `table`'s primary key, sorted.
  func keyColumns(of table: String) -> [String] { keys[table] ?? [] }

  /// The columns of `table`.
  func columns(of table: String) -> Set<String> { columns[table] ?? [] }

  /// Why `value` does not fit `column` of `table` by the column's declared type (SQLite's type
  /// affinity: INT → integers, TEXT/CHAR/CLOB → text, REAL/FLOA/DOUB → numbers), or `nil`.
  /// NULL is left to the column's NOT NULL constraint.
  func mismatch(_ value: DatabaseValue, column: String, of table: String) -> String? {
    guard let type = declaredTypes[table]?[column] else { return nil }
    let kind: String
    switch value.storage {
    case .null: return nil
    case .int64: kind = "an integer"
    case .double: kind = "a real number"
    case .string: kind = "text"
    case .blob: kind = "a blob"
    }
    if type.contains("INT") || type.contains("BOOL") {
      if case .int64 = value.storage { return nil }
      return "\(kind), but the column holds integers (\(type))"
    }
    if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
      if case .string = value.storage { return nil }
      return "\(kind), but the column holds text (\(type))"
    }
    if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
      switch value.storage {
      case .int64, .double: return nil
      default: return "\(kind), but the column holds numbers (\(type))"
      }
    }
    return nil
  }

  /// Throws unless `change` names a known table, only its columns, and its whole key.
  func validate(_ change: RowChange) throws {
    guard let known = columns[change.table] else {
      throw RewindError(.corruptData, "table \(change.table) is not a Rewind table of this database")
    }
    let keyColumns = keys[change.table] ?? []
    guard change.key.keys == keyColumns else {
      throw RewindError(
        .corruptData,
        "a row of \(change.table) is keyed by \(change.key.keys), not by its primary key \(keyColumns)")
    }
    // The rows one by one, with no array of the two made for every change (a snapshot's
    // rows, a million at a million tasks, are validated as changes too).
    func checkKey(of row: RowImage?) throws {
      guard let row else { return }
      for (column, value) in change.key where row[column] != value {
        throw RewindError(
          .corruptData,
          "a row of \(change.table) keyed \(describe(change.key)) holds \(column) = \(row[column] ?? .null)")
      }
    }
    func checkColumns(of row: RowImage?) throws {
      if let unknown = row?.keys.first(where: { !known.contains($0) }) {
        throw RewindError(.corruptData, "column \(unknown) is not a column of table \(change.table)")
      }
    }
    try checkKey(of: change.before)
    try checkKey(of: change.after)
    try checkColumns(of: change.before)
    try checkColumns(of: change.after)
  }
}
