import GRDB

/// An ``OrderedIDList`` persisted as `list_entries` rows.
final class ListPart<Root, ID: Hashable & Comparable & Sendable & DatabaseValueConvertible>: StatePart {
  static var table: String { EngineTable.listEntries.name }
  let keyPath: WritableKeyPath<Root, OrderedIDList<ID>>
  let name: String
  let entityTable: String
  /// An id as its entity table stores it.
  let keyValue: @Sendable (ID) -> DatabaseValue

  init(
    keyPath: WritableKeyPath<Root, OrderedIDList<ID>>, name: String, entityTable: String,
    keyValue: @escaping @Sendable (ID) -> DatabaseValue
  ) {
    self.keyPath = keyPath
    self.name = name
    self.entityTable = entityTable
    self.keyValue = keyValue
  }

  func takeDefaults(from initial: Root) throws {}

  var declaredEntityTable: String? { nil }

  func registerIfPresent(_ db: Database) throws {
    guard
      try Bool.fetchOne(db, sql: "SELECT 1 FROM rewind_entity_tables WHERE name = ?", arguments: [entityTable]) == true
    else { return }
    try setUp(db)
  }

  func setUp(_ db: Database) throws {
    // Checked first: opening a set-up file must not write (it may be read-only).
    let registered = try Bool.fetchOne(
      db, sql: "SELECT 1 FROM rewind_lists WHERE name = ? AND entity_table = ?", arguments: [name, entityTable])
    guard registered != true else { return }
    try db.execute(
      sql: "INSERT OR IGNORE INTO rewind_lists (name, entity_table) VALUES (?, ?)",
      arguments: [name, entityTable])
  }

  func load(_ db: Database) throws -> (inout Root) -> Void {
    var list = OrderedIDList<ID>()
    // Sized up front: growing a 100,000-entry dictionary rehashes it again and again.
    list.keys.reserveCapacity(
      try Int.fetchOne(db, sql: "SELECT count(*) FROM list_entries WHERE list = ?", arguments: [name]) ?? 0)
    let rows = try Row.fetchCursor(
      db, sql: "SELECT id, position FROM list_entries WHERE list = ? ORDER BY position, id",
      arguments: [name])
    while let row = try rows.next() {
      guard let id = ID.fromDatabaseValue(row[0]), let position = String.fromDatabaseValue(row[1]),
        PositionKey.isValid(position)
      else {
        throw RewindError(.corruptData, "list_entries: list \(name) has an invalid entry: \(row)")
      }
      list.loadPosition(position, of: id)
    }
    let keyPath = keyPath
    return { root in root[keyPath: keyPath] = list }
  }

  func takeChanges(from root: inout Root, into changes: inout [RowChange]) throws {
    for (id, before, after) in root[keyPath: keyPath].takeChanges() {
      changes.append(change(id: id, before: before, after: after))
    }
  }

  func rows(of root: Root, into changes: inout [RowChange]) throws {
    let list = root[keyPath: keyPath]
    for id in list {
      changes.append(change(id: id, before: nil, after: list.positionKey(of: id)))
    }
  }

  private func change(id: ID, before: String?, after: String?) -> RowChange {
    let key: [String: DatabaseValue] = ["list": name.databaseValue, "id": keyValue(id)]
    func row(_ position: String?) -> [String: DatabaseValue]? {
      position.map { key.merging(["position": $0.databaseValue]) { $1 } }
    }
    return RowChange(table: Self.table, key: key, before: row(before), after: row(after))
  }

  func rowCount(of root: Root) -> Int { root[keyPath: keyPath].count }

  func owns(_ change: RowChange) -> Bool {
    change.table == Self.table && change.key["list"] == name.databaseValue
  }

  func prepare(_ changes: [RowChange], _ direction: ChangeDirection) throws -> (inout Root) -> Void {
    let positions: [(ID, String?)] = try changes.map { change in
      guard let keyValue = change.key["id"], let id = ID.fromDatabaseValue(keyValue) else {
        throw RewindError(.corruptData, "a change to list \(name) has no valid id: \(describe(change.key))")
      }
      guard let row = change.target(direction) else { return (id, nil) }
      guard let value = row["position"].flatMap(String.fromDatabaseValue), PositionKey.isValid(value) else {
        throw RewindError(.corruptData, "a change to list \(name) has an invalid position: \(describe(row))")
      }
      return (id, value)
    }
    let keyPath = keyPath
    return { root in
      for (id, position) in positions { root[keyPath: keyPath].setPosition(position, of: id) }
    }
  }

  func pulledBack<Parent>(
    along keyPath: WritableKeyPath<Parent, Root>, viewPrefix: String
  ) -> any StatePart<Parent> {
    ListPart<Parent, ID>(
      keyPath: keyPath.appending(path: self.keyPath), name: name, entityTable: entityTable, keyValue: keyValue)
  }
}
