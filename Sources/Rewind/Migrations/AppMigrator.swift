import GRDB

/// Runs the app's pending migrations when a file opens, inside the transaction that sets it up,
/// and records each in `rewind_app_migrations` and as a `migration` log entry.
enum AppMigrator {
  /// The app's migrations the file has not had, after checking that the ones it had are the
  /// app's first ones.
  ///
  /// - Throws: ``RewindError/Code/newerAppSchema`` when the file has migrations the app does
  ///   not declare, or one the app declares under another name.
  static func pending(
    _ migrations: [SchemaMigration], recorded: AppSchemaHistory, path: String
  ) throws -> ArraySlice<SchemaMigration> {
    for (record, migration) in zip(recorded.records, migrations) where record.identifier != migration.identifier {
      throw RewindError(
        .newerAppSchema,
        "\(path) records app migration \(record.version) as \(record.identifier), but this app declares \(migration.identifier) there: the file was written by another version of the app"
      )
    }
    if recorded.records.count > migrations.count {
      throw RewindError(
        .newerAppSchema,
        "\(path) is at app schema version \(recorded.version) (its last migration is \(recorded.records.last!.identifier)), newer than this app's version \(migrations.count + 1); update the app to open it (the rewind tool can still read it)"
      )
    }
    return migrations[recorded.records.count...]
  }

  /// Records every migration of a new file as already made: its tables were created at the
  /// latest version, and no row image predates them.
  static func recordAsCreated(_ migrations: [SchemaMigration], _ db: Database) throws {
    for (index, migration) in migrations.enumerated() {
      var operations: [SchemaChange.Operation] = []
      if case .changes(let changes) = migration.kind {
        // Defaults as the columns (created by `createTable`) store them, as a migration records
        // them: an import of an earlier version's export reads through these.
        operations = try changes.map { change in
          guard case .addColumn(let table, let column, let type, let notNull, let value) = change.operation else {
            return change.operation
          }
          return .addColumn(
            table: table, column: column, type: type, notNull: notNull, default: try stored(value, as: type, db))
        }
      }
      try record(migration, version: index + 2, seq: 0, operations: operations, db)
    }
  }

  /// Runs the file's pending migrations, in order.
  @discardableResult
  static func migrate<Root>(
    _ db: Database, schema: StateSchema<Root>, history: inout HistoryLog, path: String
  ) throws -> Int {
    let pending = try pending(schema.migrations, recorded: history.tables.appSchema, path: path)
    for (index, migration) in zip(pending.indices, pending) {
      // Tables a later pending migration drops: a file that skipped the versions that had
      // them may never have had them at all.
      let droppedLater = Set(
        pending[(index + 1)...].flatMap { later -> [String] in
          guard case .changes(let changes) = later.kind else { return [] }
          return changes.compactMap { if case .dropTable(let table, _) = $0.operation { table } else { nil } }
        })
      do {
        try run(migration, version: index + 2, schema: schema, droppedLater: droppedLater, history: &history, db)
      } catch let error as RewindError where error.code == .migrationFailed {
        throw error
      } catch let error as RewindError {
        // The engine's own refusal while migrating (a table the migration code left unusable):
        // said with the migration it happened in.
        throw RewindError(
          .migrationFailed,
          "app migration \(migration.identifier) failed on \(path): \(error.message); nothing was changed",
          underlying: error)
      } catch {
        throw RewindError(
          .migrationFailed, "app migration \(migration.identifier) failed on \(path); nothing was changed",
          underlying: error)
      }
    }
    return pending.count
  }

  private static func run<Root>(
    _ migration: SchemaMigration, version: Int, schema: StateSchema<Root>, droppedLater: Set<String>,
    history: inout HistoryLog, _ db: Database
  ) throws {
    func fail(_ message: String) -> RewindError {
      RewindError(.migrationFailed, "app migration \(migration.identifier): \(message); nothing was changed")
    }
    let previous = history.tables
    var operations: [SchemaChange.Operation] = []
    var before: StateRows?
    switch migration.kind {
    case .changes(let changes):
      // A change to a table the file does not have has nothing to do, with no row of it in
      // history, when the table is one a version this file skipped had: one this version
      // declares (its `createTable` makes it after the migrations, in its latest shape), one
      // being dropped, or one a later migration drops. Any other is a mistake, refused.
      let declared = Set(schema.parts.compactMap(\.declaredEntityTable))
      var catalog = previous
      for change in changes {
        // Its createTable would bring it back empty, its rows gone without a trace in history.
        if case .dropTable(let table, _) = change.operation, declared.contains(table) {
          throw fail("it drops table \(table), which the app's schema still declares")
        }
        if let table = change.operation.table, !catalog.entityTables.contains(table), try !db.tableExists(table) {
          var skipped = declared.union(droppedLater)
          if case .dropTable = change.operation { skipped.insert(table) }
          if skipped.contains(table) {
            operations.append(change.operation)
            continue
          }
        }
        operations.append(try apply(change.operation, catalog: catalog, db, fail: fail))
        // The next change sees the tables as this one left them.
        catalog = try TableCatalog(db)
      }
    case .transform(let migrate, _):
      before = try StateRows(db, catalog: previous)
      try migrate(db)
      try registerTables(schema, db)
    case .barrier(let migrate):
      try migrate(db)
      try registerTables(schema, db)
    }
    // The migration's own code may delete rows that order lists still name: refused here, by
    // name, rather than at every open after it (see `StateSchema.loaded(_:onto:)`).
    let ranCode = if case .changes = migration.kind { false } else { true }
    if ranCode, let dangling = try TableCatalog(db).danglingListEntries(db, limit: 1).first {
      throw fail("its code leaves \(dangling); remove the rows' list entries in the migration too")
    }
    let operationsJSON = SchemaChange.Operation.json(operations)
    var payload = #"{"migration":"#
    JSONText.appendString(migration.identifier, to: &payload)
    payload += #","kind":"\#(migration.kind.recorded.rawValue)","version":\#(version),"changes":\#(operationsJSON)}"#
    let seq = try history.append(
      LogEntry(kind: .migration, action: migration.identifier, payload: payload, changes: [], undo: .none), db)
    try record(migration, version: version, seq: seq, operations: operations, db)
    try history.reload(db)

    switch migration.kind {
    case .changes:
      break
    case .transform(_, let rows):
      let transform = RowTransform(rows: rows, catalog: history.tables, fail: fail)
      try transform.check(before!, against: try StateRows(db, catalog: history.tables))
      try transform.rewriteHistory(before: seq, reading: previous.appSchema, db)
    case .barrier:
      // What follows the barrier starts from here, as history before it cannot be crossed.
      try history.takeSnapshot(kind: "automatic", label: nil, db)
    }
  }

  private static func record(
    _ migration: SchemaMigration, version: Int, seq: Int64, operations: [SchemaChange.Operation], _ db: Database
  ) throws {
    try db.execute(
      sql: "INSERT INTO rewind_app_migrations (version, identifier, seq, kind, changes) VALUES (?, ?, ?, ?, ?)",
      arguments: [
        version, migration.identifier, seq, migration.kind.recorded.rawValue, SchemaChange.Operation.json(operations),
      ])
  }

  /// `value` as a column of SQL type `type` stores it (SQLite's type affinity).
  private static func stored(_ value: DatabaseValue, as type: String, _ db: Database) throws -> DatabaseValue {
    guard !value.isNull else { return value }
    try db.execute(sql: "CREATE TEMP TABLE rewind_affinity (value \(type))")
    defer { try? db.execute(sql: "DROP TABLE temp.rewind_affinity") }
    try db.execute(sql: "INSERT INTO temp.rewind_affinity (value) VALUES (?)", arguments: [value])
    return try DatabaseValue.fetchOne(db, sql: "SELECT value FROM temp.rewind_affinity") ?? value
  }

  /// After the app's own migration code: forgets entity tables (and their lists) it dropped,
  /// and registers the schema's tables it created.
  private static func registerTables<Root>(_ schema: StateSchema<Root>, _ db: Database) throws {
    let existing = "SELECT name FROM sqlite_master WHERE type = 'table'"
    try db.execute(sql: "DELETE FROM rewind_lists WHERE entity_table NOT IN (\(existing))")
    try db.execute(sql: "DELETE FROM rewind_entity_tables WHERE name NOT IN (\(existing))")
    for part in schema.parts { try part.registerIfPresent(db) }
  }

  /// Makes a described change to the database; returns it as recorded (a dropped table with
  /// the lists that went with it).
  private static func apply(
    _ operation: SchemaChange.Operation, catalog: TableCatalog, _ db: Database, fail: (String) -> RewindError
  ) throws -> SchemaChange.Operation {
    func checkEntityTable(_ table: String) throws {
      guard catalog.entityTables.contains(table) else {
        throw fail(
          "\(table) is not an entity table of this file (it has \(catalog.entityTables.joined(separator: ", ")))")
      }
    }
    func checkColumn(_ column: String, of table: String) throws {
      guard catalog.columns(of: table).contains(column) else { throw fail("table \(table) has no column \(column)") }
    }
    func checkNoPath(_ path: String) throws {
      if try Bool.fetchOne(db, sql: "SELECT 1 FROM view_state WHERE path = ?", arguments: [path]) == true {
        throw fail("view_state already has a row at \(path)")
      }
    }
    switch operation {
    case .addColumn(let table, let column, let type, let notNull, let value):
      try checkEntityTable(table)
      guard !catalog.columns(of: table).contains(column) else {
        throw fail("table \(table) already has a column \(column)")
      }
      if notNull, value.isNull { throw fail("the NOT NULL column \(table).\(column) needs a default other than NULL") }
      try db.alter(table: table) { alteration in
        let definition = alteration.add(column: column, Database.ColumnType(rawValue: type))
        if notNull { definition.notNull() }
        if !value.isNull { definition.defaults(to: value) }
      }
      if type.uppercased().contains(" REFERENCES ") {
        // A relation's children are looked up by their reference (see `addReference`).
        try db.create(index: "index_\(table)_on_\(column)", on: table, columns: [column], options: .ifNotExists)
      }
      // Recorded as the table stores it (the column's affinity makes 0 a REAL 0.0), so that
      // older images read through the change hold exactly what the rows hold.
      return .addColumn(
        table: table, column: column, type: type, notNull: notNull, default: try stored(value, as: type, db))
    case .renameColumn(let table, let from, let to):
      try checkEntityTable(table)
      try checkColumn(from, of: table)
      try db.alter(table: table) { $0.rename(column: from, to: to) }
      try db.execute(
        sql: "UPDATE rewind_entity_tables SET key_column = ? WHERE name = ? AND key_column = ?",
        arguments: [to, table, from])
    case .dropColumn(let table, let column):
      try checkEntityTable(table)
      try checkColumn(column, of: table)
      if catalog.keyColumns(of: table).contains(column) { throw fail("\(column) is the key column of \(table)") }
      try db.alter(table: table) { $0.drop(column: column) }
    case .dropTable(let table, _):
      try checkEntityTable(table)
      let lists = catalog.lists.filter { $0.value == table }.keys.sorted()
      for list in lists {
        try db.execute(sql: "DELETE FROM list_entries WHERE list = ?", arguments: [list])
        try db.execute(sql: "DELETE FROM rewind_lists WHERE name = ?", arguments: [list])
      }
      try db.execute(sql: "DELETE FROM rewind_entity_tables WHERE name = ?", arguments: [table])
      try db.drop(table: table)
      return .dropTable(table: table, lists: lists)
    case .renameViewProperty(let from, let to):
      try checkNoPath(to)
      try db.execute(sql: "UPDATE view_state SET path = ? WHERE path = ?", arguments: [to, from])
    case .removeViewProperty(let path):
      try db.execute(sql: "DELETE FROM view_state WHERE path = ?", arguments: [path])
    }
    return operation
  }
}
