import GRDB

/// An ``OrderedIDLists`` family persisted as `list_entries` rows that carry their owner.
@usableFromInline
final class KeyedListPart<
  Root, Owner: Hashable & Comparable & Sendable & DatabaseValueConvertible,
  ID: Hashable & Comparable & Sendable & DatabaseValueConvertible
>: StatePart {
  @usableFromInline
  static var table: String { EngineTable.listEntries.name }
  @usableFromInline
  let path: StatePath<Root, OrderedIDLists<Owner, ID>>
  @usableFromInline
  var keyPath: WritableKeyPath<Root, OrderedIDLists<Owner, ID>> { path.keyPath }
  @usableFromInline
  let name: String
  @usableFromInline
  let entityTable: String
  @usableFromInline
  let ownerTable: String
  /// Ids as their entity tables store them.
  @usableFromInline
  let keyValue: @Sendable (ID) -> DatabaseValue
  @usableFromInline
  let ownerValue: @Sendable (Owner) -> DatabaseValue

  @usableFromInline
  init(
    keyPath: WritableKeyPath<Root, OrderedIDLists<Owner, ID>>, name: String, entityTable: String,
    ownerTable: String, keyValue: @escaping @Sendable (ID) -> DatabaseValue,
    ownerValue: @escaping @Sendable (Owner) -> DatabaseValue
  ) {
    path = StatePath(keyPath)
    self.name = name
    self.entityTable = entityTable
    self.ownerTable = ownerTable
    self.keyValue = keyValue
    self.ownerValue = ownerValue
  }

  @usableFromInline
  func takeDefaults(from initial: Root) throws {}

  @inlinable
  func danglingReference(in root: Root, idTests: [String: Any]) -> String? {
    let ownerExists = idTests[ownerTable] as? (Owner) -> Bool
    let exists = idTests[entityTable] as? (ID) -> Bool
    for (owner, list) in root[keyPath: keyPath].lists {
      if let ownerExists, !ownerExists(owner) {
        return "list \(name) has a list of \(ownerTable) \(ownerValue(owner))"
      }
      guard let exists else { continue }
      for id in list where !exists(id) {
        return "list \(name) of \(ownerTable) \(ownerValue(owner)) names \(entityTable) \(keyValue(id))"
      }
    }
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
    let registered = try String.fetchSet(
      db, sql: "SELECT name FROM rewind_entity_tables WHERE name IN (?, ?)", arguments: [entityTable, ownerTable])
    guard registered.count == Set([entityTable, ownerTable]).count else { return }
    try setUp(db)
  }

  @usableFromInline
  func setUp(_ db: Database) throws {
    // Checked first: opening a set-up file must not write (it may be read-only).
    if let row = try Row.fetchOne(
      db, sql: "SELECT entity_table, owner_table FROM rewind_lists WHERE name = ?", arguments: [name])
    {
      guard row["entity_table"] == entityTable, row["owner_table"] == ownerTable else {
        throw RewindError(
          .schemaMismatch,
          "the list \(name) is registered for \(row["entity_table"] ?? "?") owned by \(row["owner_table"] ?? "no owner"), not for \(entityTable) owned by \(ownerTable): list names are unique in the database"
        )
      }
      return
    }
    try db.execute(
      sql: "INSERT INTO rewind_lists (name, entity_table, owner_table) VALUES (?, ?, ?)",
      arguments: [name, entityTable, ownerTable])
  }

  /// The query that loads the family, each owner's members in order.
  @usableFromInline
  static var loadingSQL: String {
    "SELECT owner, id, position FROM list_entries WHERE list = ? ORDER BY owner, position"
  }

  @inlinable
  func load(_ db: Database) throws -> (inout Root) -> Void {
    typealias Build = BackgroundBuild<OrderedIDLists<Owner, ID>, (owner: Owner, id: ID, position: String)>
    let build = Build(OrderedIDLists()) { lists, batch in
      for (owner, id, position) in batch { lists.loadPosition(position, of: id, owner: owner) }
      batch.removeAll(keepingCapacity: false)
    }
    var batch: [Build.Element] = []
    // In the order of `list_entries_by_owner`, which covers the query (no sort, no lookup in
    // the table), through SQLite's C API, as `ListPart` reads: each list's members come in
    // position order, so each is appended.
    try db.cachedStatement(sql: Self.loadingSQL)
      .forEachRow(binding: [name.databaseValue]) { row in
        let ownerValue = DatabaseValue(sqliteStatement: row, index: 0)
        let idValue = DatabaseValue(sqliteStatement: row, index: 1)
        let positionValue = DatabaseValue(sqliteStatement: row, index: 2)
        guard let owner = Owner.fromKeyValue(ownerValue), let id = ID.fromKeyValue(idValue),
          let position = String.fromDatabaseValue(positionValue), PositionKey.isValid(position)
        else {
          throw RewindError(
            .corruptData,
            "list_entries: list family \(name) has an invalid entry: owner \(ownerValue), id \(idValue), position \(positionValue)"
          )
        }
        batch.append((owner, id, position))
        if batch.count == Build.batchSize { build.add(&batch) }
      }
    build.end(&batch)
    let keyPath = keyPath
    // Taken when the state is put together, after the other parts are read: the family is
    // built meanwhile.
    return { root in root[keyPath: keyPath] = build.take() }
  }

  @inlinable
  func hasChanges(in root: inout Root) -> Bool { path.read(&root) { $0.hasPendingChanges } }

  @inlinable
  func takeChanges(from root: inout Root, into changes: inout [RowChange]) throws {
    guard hasChanges(in: &root) else { return }  // a read, not a mutable access
    takeTrackedChanges(from: &root, into: &changes)
  }

  @usableFromInline
  func takeTrackedChanges(from root: inout Root, into changes: inout [RowChange]) {
    for (id, before, after) in path.modify(&root, { $0.takeChanges() }) {
      changes.append(change(id: id, before: before, after: after))
    }
  }

  @usableFromInline
  func rows(of root: Root, into batches: inout RowBatches) throws {
    let family = root[keyPath: keyPath]
    for owner in family.lists.keys.sorted() {
      let list = family.lists[owner]!
      for id in list {
        try batches.append(change(id: id, before: nil, after: (owner, list.positionKey(of: id)!)))
      }
    }
  }

  private func change(id: ID, before: (Owner, String)?, after: (Owner, String)?) -> RowChange {
    let (list, id) = (name.databaseValue, keyValue(id))
    // The values in the columns' sorted order (`id`, `list`, `owner`, `position`), as in
    // `ListPart`.
    let key = RowImage(columns: EngineTable.listEntryKey, sortedValues: [id, list])
    func row(_ place: (Owner, String)?) -> RowImage? {
      place.map { owner, position in
        RowImage(
          columns: EngineTable.keyedListEntryColumns,
          sortedValues: [id, list, ownerValue(owner), position.databaseValue])
      }
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
    let places: [(ID, String?, Owner?)] = try changes.map { change in
      guard let keyValue = change.key["id"], let id = ID.fromKeyValue(keyValue) else {
        throw RewindError(.corruptData, "a change to list family \(name) has no valid id: \(describe(change.key))")
      }
      guard let row = change.target(direction) else { return (id, nil, nil) }
      guard let position = row["position"].flatMap(String.fromDatabaseValue), PositionKey.isValid(position),
        let owner = row["owner"].flatMap(Owner.fromKeyValue)
      else {
        throw RewindError(
          .corruptData, "a change to list family \(name) has an invalid owner or position: \(describe(row))")
      }
      return (id, position, owner)
    }
    let keyPath = keyPath
    return { root in
      for (id, position, owner) in places { root[keyPath: keyPath].setPosition(position, of: id, owner: owner) }
    }
  }
}
