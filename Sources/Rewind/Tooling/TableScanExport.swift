import GRDB
import GRDBSQLite

/// An export read straight from the state tables in key order, taken back to an earlier seq
/// through the rows that changed since.
///
/// Exporting the current state, or a seq whose nearest anchor is the current tables, needs
/// no image of the whole state in memory: each table is read in the export's order (its key,
/// or a list's positions) and written as it comes, and the few rows that were different at
/// the seq are merged in at their place. The export is the one ``StateRows`` gives, byte for
/// byte (both write through ``ExportWriter``); where SQLite's order is not the export's (a
/// key column with another collation, rows outside the catalog), ``export(appSchema:_:)``
/// returns `nil` and the caller builds the export from an image.
struct TableScanExport {
  /// The members of one list (or keyed family) in the engine's order, read from the index
  /// `list_entries_by_owner` alone, with no sort: a fixed list's owner is NULL, so its members
  /// come in position order. (Rows of a fixed list given an owner by hand come out of that
  /// order: the scan stops and the export is built another way.)
  static let listMembersSQL = """
    SELECT owner, position, id FROM \(EngineTable.listEntries.name.quotedDatabaseIdentifier) \
    WHERE list = ? ORDER BY owner, position, id
    """

  let catalog: TableCatalog
  /// Table → key → the row at the exported seq (`nil`: absent then), for rows changed since.
  let changed: [String: [StateRows.Row: StateRows.Row?]]

  /// The export, or `nil` when the tables cannot be read in the export's order.
  func export(appSchema: Int, _ db: Database) throws -> String? {
    guard changed.keys.allSatisfy(catalog.tableNames.contains) else { return nil }
    var writer = ExportWriter(appSchema: appSchema)
    do {
      for table in catalog.entityTables.sorted() {
        guard try appendTable(table, to: &writer, db) else { return nil }
      }
      writer.beginLists()
      guard try appendLists(to: &writer, db) else { return nil }
    } catch is KeyOrderScan.NotInEngineOrder {
      return nil
    }
    writer.beginView()
    let viewState = EngineTable.viewState.name
    var view = try StateRows.rows(of: viewState, keyColumns: catalog.keyColumns(of: viewState), db)
    for (key, row) in changed[viewState] ?? [:] { view[key] = row }
    RewindDatabase.appendView(view, to: &writer)
    return writer.finish()
  }

  /// Writes the rows of an entity table in key order; `false` if it has no known key.
  private func appendTable(_ table: String, to writer: inout ExportWriter, _ db: Database) throws -> Bool {
    guard let scan = try KeyOrderScan(table: table, keyColumns: catalog.keyColumns(of: table), db) else {
      return false
    }
    var merge = ChangedRowsMerge((changed[table] ?? [:]).map { key, row in (key: scan.key(of: key), row: row) })
    writer.beginTable(table)
    try scan.forEachRow(db) { values, key in
      // Rows that were different (or only existed) at the seq come in at their place.
      if !merge.writeRows(before: key, { writer.appendRow($0) }) {
        writer.appendRow { scan.appendObject(values, to: &$0) }
      }
    }
    merge.writeRest { writer.appendRow($0) }
    writer.endTable()
    return true
  }

  /// Writes every order list of the catalog, each member at its place; `false` if the table
  /// holds entries of lists the catalog does not know.
  private func appendLists(to writer: inout ExportWriter, _ db: Database) throws -> Bool {
    let entriesTable = EngineTable.listEntries.name
    let entriesChanged = changed[entriesTable] ?? [:]
    let named =
      try DatabaseValue.fetchAll(db, sql: "SELECT DISTINCT list FROM \(entriesTable.quotedDatabaseIdentifier)")
      + entriesChanged.values.compactMap { $0?["list"] }
    guard named.allSatisfy({ String.fromDatabaseValue($0).map { catalog.lists[$0] != nil } == true }) else {
      return false
    }
    for list in catalog.lists.keys.sorted() {
      let keyed = catalog.listOwners[list] != nil
      // Members that were elsewhere, or absent, at the seq are skipped where they are now and
      // written where they were.
      var idsChanged: Set<DatabaseValue> = []
      var membersChanged: [ListMember] = []
      for (key, row) in entriesChanged where key["list"] == list.databaseValue {
        idsChanged.insert(key["id"] ?? .null)
        if let row { membersChanged.append(ListMember(row, keyed: keyed)) }
      }
      membersChanged.sort(by: ListMember.precedes)
      var next = 0
      var previous: ListMember?

      writer.beginList(list)
      let statement = try db.cachedStatement(sql: Self.listMembersSQL)
      try statement.forEachRow(binding: [list.databaseValue]) { handle in
        let member = ListMember(
          owner: keyed ? DatabaseValue(sqliteStatement: handle, index: 0) : .null,
          position: DatabaseValue(sqliteStatement: handle, index: 1),
          id: DatabaseValue(sqliteStatement: handle, index: 2))
        if let previous, !ListMember.precedes(previous, member) { throw KeyOrderScan.NotInEngineOrder() }
        previous = member
        if !idsChanged.isEmpty, idsChanged.contains(member.id) { return }
        while next < membersChanged.count, ListMember.precedes(membersChanged[next], member) {
          writer.append(membersChanged[next], keyed: keyed)
          next += 1
        }
        writer.append(member, keyed: keyed)
      }
      for member in membersChanged[next...] { writer.append(member, keyed: keyed) }
      writer.endList(keyed: keyed)
    }
    return true
  }
}
