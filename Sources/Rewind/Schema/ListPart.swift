import GRDB

/// An ``OrderedIDList`` persisted as `list_entries` rows.
@usableFromInline
final class ListPart<Root, ID: Hashable & Comparable & Sendable & DatabaseValueConvertible>: StatePart {
  @usableFromInline
  static var table: String { EngineTable.listEntries.name }
  @usableFromInline
  let path: StatePath<Root, OrderedIDList<ID>>
  @usableFromInline
  var keyPath: WritableKeyPath<Root, OrderedIDList<ID>> { path.keyPath }
  @usableFromInline
  let name: String
  @usableFromInline
  let entityTable: String
  /// An id as its entity table stores it.
  @usableFromInline
  let keyValue: @Sendable (ID) -> DatabaseValue

  @usableFromInline
  init(
    keyPath: WritableKeyPath<Root, OrderedIDList<ID>>, name: String, entityTable: String,
    keyValue: @escaping @Sendable (ID) -> DatabaseValue
  ) {
    path = StatePath(keyPath)
    self.name = name
    self.entityTable = entityTable
    self.keyValue = keyValue
  }

  @usableFromInline
  func takeDefaults(from initial: Root) throws {}

  @inlinable
  func danglingReference(in root: Root, idTests: [String: Any]) -> String? {
    guard let exists = idTests[entityTable] as? (ID) -> Bool else { return nil }
    for id in root[keyPath: keyPath] where !exists(id) { return "list \(name) names \(entityTable) \(keyValue(id))" }
    return nil
  }

  @usableFromInline
  func renewed() -> Self { self }  // nothing per store

  @usableFromInline
  var storage: PartStorage { .list(name) }

  @usableFromInline
  var declaredEntityTable: String? { nil }

  @usableFromInline
  func registerIfPresent(_ db: Database) throws {
    guard
      try Bool.fetchOne(db, sql: "SELECT 1 FROM rewind_entity_tables WHERE name = ?", arguments: [entityTable]) == true
    else { return }
    try setUp(db)
  }

  @usableFromInline
  func setUp(_ db: Database) throws {
    // Checked first: opening a set-up file must not write (it may be read-only).
    let registered = try Bool.fetchOne(
      db, sql: "SELECT 1 FROM rewind_lists WHERE name = ? AND entity_table = ?", arguments: [name, entityTable])
    guard registered != true else { return }
    try db.execute(
      sql: "INSERT OR IGNORE INTO rewind_lists (name, entity_table) VALUES (?, ?)",
      arguments: [name, entityTable])
  }

  /// The query that loads one list, its members in order.
  @usableFromInline
  static var loadingSQL: String { "SELECT id, position FROM list_entries WHERE list = ? ORDER BY owner, position" }

  @inlinable
  func load(_ db: Database) throws -> (inout Root) -> Void {
    // Not sized with a `count(*)` first, a second pass over the list's index: the list's
    // table of keys grows as it is built, on the build's queue.
    typealias Build = BackgroundBuild<OrderedIDList<ID>.Loader, (key: String, id: ID)>
    let build = Build(OrderedIDList.Loader()) { loader, batch in loader.append(&batch) }
    var batch: [Build.Element] = []
    // In the order of `list_entries_by_owner`, which covers the query: no sort and no lookup
    // in the table. A fixed list's owner is NULL, so that is position order. Members a file
    // gave equal keys, or (by hand) an owner, come out of order: `OrderedIDList.Loader`
    // places those where they belong.
    try db.cachedStatement(sql: Self.loadingSQL)
      .forEachRow(binding: [name.databaseValue]) { row in
        let idValue = DatabaseValue(sqliteStatement: row, index: 0)
        let positionValue = DatabaseValue(sqliteStatement: row, index: 1)
        guard let id = ID.fromKeyValue(idValue), let position = String.fromDatabaseValue(positionValue),
          PositionKey.isValid(position)
        else {
          throw RewindError(
            .corruptData, "list_entries: list \(name) has an invalid entry: id \(idValue), position \(positionValue)")
        }
        batch.append((position, id))
        if batch.count == Build.batchSize { build.add(&batch) }
      }
    build.end(&batch)
    let keyPath = keyPath
    // Taken when the state is put together, after the other parts are read: the list is
    // built meanwhile.
    return { root in root[keyPath: keyPath] = build.take().finish() }
  }

  @inlinable
  func hasChanges(in root: inout Root) -> Bool { path.read(&root) { $0.hasPendingChanges } }

  @inlinable
  func takeChanges(from root: inout Root, into changes: inout [RowChange]) throws {
    guard hasChanges(in: &root) else { return }  // a read, not a mutable access
    for (id, before, after) in path.modify(&root, { $0.takeChanges() }) {
      changes.append(change(id: id, before: before, after: after))
    }
  }

  @usableFromInline
  func rows(of root: Root, into batches: inout RowBatches) throws {
    let list = root[keyPath: keyPath]
    for id in list {
      try batches.append(change(id: id, before: nil, after: list.positionKey(of: id)))
    }
  }

  @inlinable
  func change(id: ID, before: String?, after: String?) -> RowChange {
    let (list, id) = (name.databaseValue, keyValue(id))
    // The values in the columns' sorted order (`id`, `list`, `position`): given in declared
    // order, each image was built twice, an array for each.
    let key = RowImage(columns: EngineTable.listEntryKey, sortedValues: [id, list])
    func row(_ position: String?) -> RowImage? {
      position.map { RowImage(columns: EngineTable.listEntryColumns, sortedValues: [id, list, $0.databaseValue]) }
    }
    return RowChange(table: Self.table, key: key, before: row(before), after: row(after))
  }

  @usableFromInline
  func rowCount(of root: Root) -> Int { root[keyPath: keyPath].count }

  @usableFromInline
  func owns(_ change: RowChange) -> Bool {
    change.table == Self.table && change.key["list"] == name.databaseValue
  }

  @usableFromInline
  func prepare(_ changes: [RowChange], _ direction: ChangeDirection) throws -> (inout Root) -> Void {
    let positions: [(ID, String?)] = try changes.map { change in
      guard let keyValue = change.key["id"], let id = ID.fromKeyValue(keyValue) else {
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
}
