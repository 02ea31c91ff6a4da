import GRDB

/// An ``EntityTable`` persisted in its entity's table.
final class EntityPart<Root, E: Entity>: StatePart {
  let keyPath: WritableKeyPath<Root, EntityTable<E>>
  var table: String { E.databaseTableName }

  init(keyPath: WritableKeyPath<Root, EntityTable<E>>) { self.keyPath = keyPath }

  func prepare(_ db: Database) throws {
    if try !db.tableExists(table) {
      try E.createTable(db)
    }
    let columns = try db.columns(in: table).map(\.name)
    guard columns.contains(E.keyColumn) else {
      throw RewindError(
        .schemaMismatch, "entity table \(table) has no key column \(E.keyColumn)")
    }
    try db.execute(
      sql: "INSERT OR IGNORE INTO rewind_entity_tables (name, key_column) VALUES (?, ?)",
      arguments: [table, E.keyColumn])
  }

  func load(_ db: Database, into root: inout Root) throws {
    var entities = EntityTable<E>()
    entities.storage.reserveCapacity(
      try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier)") ?? 0)
    let cursor = try E.fetchCursor(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)")
    while let entity = try cursor.next() { entities.set(entity, for: entity.id) }
    root[keyPath: keyPath] = entities
  }

  func takeChanges(from root: inout Root, into changes: inout [RowChange]) throws {
    for (id, before, after) in root[keyPath: keyPath].takeChanges() {
      changes.append(
        RowChange(
          table: table, key: [E.keyColumn: id.databaseValue],
          before: try before?.databaseDictionary, after: try after?.databaseDictionary))
    }
  }

  func rows(of root: Root, into changes: inout [RowChange]) throws {
    let entities = root[keyPath: keyPath]
    for id in entities.ids.sorted() {
      changes.append(
        RowChange(
          table: table, key: [E.keyColumn: id.databaseValue],
          before: nil, after: try entities[id]!.databaseDictionary))
    }
  }

  func rowCount(of root: Root) -> Int { root[keyPath: keyPath].count }

  func owns(_ change: RowChange) -> Bool { change.table == table }

  func apply(_ change: RowChange, _ direction: ChangeDirection, to root: inout Root) throws {
    guard let keyValue = change.key[E.keyColumn], let id = E.ID.fromDatabaseValue(keyValue) else {
      throw RewindError(.corruptData, "a change to \(table) has no valid \(E.keyColumn) key")
    }
    var entity: E?
    if let row = change.target(direction) {
      do {
        entity = try E(row: Row(row))
      } catch {
        throw RewindError(.corruptData, "a row of \(table) does not decode as \(E.self)", underlying: error)
      }
    }
    root[keyPath: keyPath].set(entity, for: id)
  }

  func pulledBack<Parent>(
    along keyPath: WritableKeyPath<Parent, Root>, viewPrefix: String
  ) -> any StatePart<Parent> {
    EntityPart<Parent, E>(keyPath: keyPath.appending(path: self.keyPath))
  }
}
