import GRDB
import GRDBSQLite

/// An export read straight from the state tables in key order, taken back to an earlier seq
/// through the rows that changed since.
///
/// Exporting the current state, or a seq whose nearest anchor is the current tables, needs
/// no image of the whole state in memory: each table is read in the export's order (its key,
/// or a list's positions) and written as it comes, and the few rows that were different at
/// the seq are put back at their place, found before the scan (``RowsThen``,
/// ``MembersThen``). The export is the one ``StateRows`` gives, byte for byte (both write
/// through ``ExportWriter``); where SQLite's order is not the export's (a key column with
/// another collation, a fixed list's member given an owner by hand, rows outside the
/// catalog), ``export(appSchema:_:)`` returns `nil` and the caller builds the export from an
/// image.
struct TableScanExport {
  /// The members of one list (or keyed family) in the engine's order, read from the index
  /// `list_entries_by_owner` alone, with no sort: a fixed list's owner is NULL, so its members
  /// come in position order. (Rows of a fixed list given an owner by hand come out of that
  /// order: the scan gives up and the export is built another way.)
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
  ///
  /// As with lists (see ``appendLists(to:_:)``), the rows that changed since the seq are
  /// placed before the scan starts, each at the first row now whose key is not less than its
  /// own, so that the scan compares a row's key only with the next such place.
  private func appendTable(_ table: String, to writer: inout ExportWriter, _ db: Database) throws -> Bool {
    guard let scan = try KeyOrderScan(table: table, keyColumns: catalog.keyColumns(of: table), db) else {
      return false
    }
    var then = try RowsThen(scan: scan, changed: changed[table] ?? [:], db)
    writer.beginTable(table)
    try scan.forEachRow(db) { values, key in
      // Rows that were different (or only existed) at the seq come in at their place.
      if try !then.writeRows(at: key, { writer.appendRow($0) }) {
        writer.appendRow { scan.appendObject(values, to: &$0) }
      }
    }
    then.writeRest { writer.appendRow($0) }
    writer.endTable()
    return true
  }

  /// Writes every order list of the catalog, each member at its place; `false` if the table
  /// holds entries of lists the catalog does not know.
  ///
  /// SQLite reads each list's members in the export's order (the index's), so the scan
  /// compares nothing per member but ids: a member that changed since the seq is skipped where
  /// it is now, found by its id in the order its current place gives, and each member as it
  /// was then is written before the first current member that follows it, found by one
  /// indexed query per changed member (see ``MembersThen``).
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
      let changedHere = entriesChanged.filter { key, _ in key["list"] == list.databaseValue }
      var then = try MembersThen(
        list: list, keyed: keyed, changedIDs: changedHere.keys.map { $0["id"] ?? .null },
        members: changedHere.values.compactMap { $0.map { ListMember($0, keyed: keyed) } }, db)

      writer.beginList(list)
      let statement = try db.cachedStatement(sql: Self.listMembersSQL)
      try statement.forEachRow(binding: [list.databaseValue]) { handle in
        let owner = DatabaseValue(sqliteStatement: handle, index: 0)
        // A fixed list's rows have no owner; one given an owner by hand sorts after the
        // others, out of the export's order.
        if !keyed, !owner.isNull { throw KeyOrderScan.NotInEngineOrder() }
        let member = ListMember(
          owner: owner, position: DatabaseValue(sqliteStatement: handle, index: 1),
          id: DatabaseValue(sqliteStatement: handle, index: 2))
        try then.writeMembers(before: member) { writer.append($0, keyed: keyed) }
        if !then.isChanged(member) { writer.append(member, keyed: keyed) }
      }
      then.writeRest { writer.append($0, keyed: keyed) }
      writer.endList(keyed: keyed)
    }
    return true
  }
}

extension TableScanExport {
  /// The members of one list that were elsewhere, or absent, at the exported seq: where each
  /// is now, to skip it there, and where each was, to write it there.
  struct MembersThen {
    /// The changed members present now, in the list's order.
    private let now: [ListMember]
    private var nextNow = 0
    /// The id of `now[nextNow]`, compared with each member the scan reads.
    private var nextNowID: DatabaseValue?
    /// The changed members present at the seq, in the list's order, each with the id of the
    /// first member now that follows it (`nil`: none does, it comes last).
    private let then: [(member: ListMember, before: DatabaseValue?)]
    private var nextThen = 0
    /// The place of `then[nextThen]`, compared with each member the scan reads (kept apart so
    /// that the scan copies no member).
    private var nextBefore: DatabaseValue?

    /// The first member now after a member then: by owner (a keyed list's), position and id,
    /// as the index orders them.
    static let fixedFollowingSQL = """
      SELECT id FROM \(EngineTable.listEntries.name.quotedDatabaseIdentifier) \
      WHERE list = ? AND owner IS NULL AND (position, id) > (?, ?) ORDER BY owner, position, id LIMIT 1
      """
    static let keyedFollowingSQL = """
      SELECT id FROM \(EngineTable.listEntries.name.quotedDatabaseIdentifier) \
      WHERE list = ? AND (owner, position, id) > (?, ?, ?) ORDER BY owner, position, id LIMIT 1
      """
    static let memberSQL = """
      SELECT owner, position FROM \(EngineTable.listEntries.name.quotedDatabaseIdentifier) WHERE list = ? AND id = ?
      """

    init(list: String, keyed: Bool, changedIDs: [DatabaseValue], members: [ListMember], _ db: Database) throws {
      // SQLite compares a row value holding NULL as neither before nor after: no place found.
      if keyed, members.contains(where: \.owner.isNull) { throw KeyOrderScan.NotInEngineOrder() }
      let listValue = list.databaseValue
      let current = try db.cachedStatement(sql: Self.memberSQL)
      now = try changedIDs.compactMap { id in
        try Row.fetchOne(current, arguments: [listValue, id]).map { row in
          ListMember(owner: keyed ? row[0] : .null, position: row[1], id: id)
        }
      }
      .sorted(by: ListMember.precedes)
      let following = try db.cachedStatement(sql: keyed ? Self.keyedFollowingSQL : Self.fixedFollowingSQL)
      then = try members.sorted(by: ListMember.precedes).map { member in
        let arguments: StatementArguments =
          keyed ? [listValue, member.owner, member.position, member.id] : [listValue, member.position, member.id]
        return (member, try DatabaseValue.fetchOne(following, arguments: arguments))
      }
      nextNowID = now.first?.id
      nextBefore = then.first?.before
    }

    /// Writes the members then that come before `member`, a member now.
    ///
    /// - Throws: ``KeyOrderScan/NotInEngineOrder`` if SQLite placed one where the export's
    ///   order does not.
    mutating func writeMembers(before member: ListMember, _ write: (ListMember) -> Void) throws {
      while let nextBefore, nextBefore.equals(member.id) {
        guard ListMember.precedes(then[nextThen].member, member) else { throw KeyOrderScan.NotInEngineOrder() }
        write(then[nextThen].member)
        nextThen += 1
        self.nextBefore = nextThen < then.count ? then[nextThen].before : nil
      }
    }

    /// Whether `member`, the next member now, changed since the seq: it is skipped then.
    mutating func isChanged(_ member: ListMember) -> Bool {
      guard let nextNowID, nextNowID.equals(member.id) else { return false }
      nextNow += 1
      self.nextNowID = nextNow < now.count ? now[nextNow].id : nil
      return true
    }

    /// Writes the members then that come after every member now.
    mutating func writeRest(_ write: (ListMember) -> Void) {
      for (member, _) in then[nextThen...] { write(member) }
      nextThen = then.count
      nextBefore = nil
    }
  }
}

extension TableScanExport {
  /// The rows of one table that were different, or absent, at the exported seq, each with the
  /// place it is written at.
  ///
  /// SQLite finds each place with the key column's collation: a row then goes between the rows
  /// now SQLite puts either side of it, checked to be there in the export's order too (the
  /// scan checks the rows now), or the export is built from an image.
  struct RowsThen {
    /// Keys (in key-column name order) and rows then (`nil`: absent), in key order, each with
    /// the key of the first row now not less than its own (`nil`: every row now is less).
    private let rows: [(key: [DatabaseValue], row: StateRows.Row?, at: [DatabaseValue]?)]
    private var next = 0
    /// The place of `rows[next]`, compared with each row the scan reads.
    private var nextAt: [DatabaseValue]?

    /// - Throws: ``KeyOrderScan/NotInEngineOrder`` when a row then follows the row now SQLite
    ///   puts before it in the export's order.
    init(scan: KeyOrderScan, changed: [StateRows.Row: StateRows.Row?], _ db: Database) throws {
      guard !changed.isEmpty else {
        rows = []
        return
      }
      let columns = scan.quotedKeyColumns
      let keyList = columns.joined(separator: ", ")
      let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
      func nearest(_ comparison: String, _ order: String) throws -> Statement {
        try db.makeStatement(
          sql: """
            SELECT \(keyList) FROM \(scan.table.quotedDatabaseIdentifier) \
            WHERE (\(keyList)) \(comparison) (\(placeholders)) \
            ORDER BY \(columns.map { $0 + order }.joined(separator: ", ")) LIMIT 1
            """)
      }
      let (atOrAfter, before) = (try nearest(">=", ""), try nearest("<", " DESC"))
      rows = try changed.map { key, row in (key: scan.key(of: key), row: row) }
        .sorted { StateRows.valuesPrecede($0.key, $1.key) }
        .map { key, row in
          let arguments = StatementArguments(key)
          if let previous = try Row.fetchOne(before, arguments: arguments),
            !StateRows.valuesPrecede(previous.databaseValues, key)
          {
            throw KeyOrderScan.NotInEngineOrder()
          }
          return (key, row, try Row.fetchOne(atOrAfter, arguments: arguments).map { Array($0.databaseValues) })
        }
      nextAt = rows.first?.at
    }

    /// Writes the rows then placed at `key`, a row now's: those whose key precedes it, and its
    /// own row then (nothing when absent). Returns whether the row now is replaced: if not,
    /// the caller writes it.
    ///
    /// - Throws: ``KeyOrderScan/NotInEngineOrder`` if SQLite placed a row where the export's
    ///   order does not.
    mutating func writeRows(at key: [DatabaseValue], _ write: (StateRows.Row) -> Void) throws -> Bool {
      var replaced = false
      while let nextAt, DatabaseValue.equal(nextAt, key) {
        if DatabaseValue.equal(rows[next].key, key) {
          replaced = true
        } else if !StateRows.valuesPrecede(rows[next].key, key) {
          throw KeyOrderScan.NotInEngineOrder()
        }
        if let row = rows[next].row { write(row) }
        next += 1
        self.nextAt = next < rows.count ? rows[next].at : nil
      }
      return replaced
    }

    /// Writes the rows then after every row now (their order checked when they were placed).
    mutating func writeRest(_ write: (StateRows.Row) -> Void) {
      for (_, row, _) in rows[next...] {
        if let row { write(row) }
      }
      next = rows.count
      nextAt = nil
    }
  }
}

extension DatabaseValue {
  /// `==`, with two integers (the most common key and id) compared in place: the scan compares
  /// the next changed row's place with every row it reads, and GRDB's `==`, called across the
  /// module, switched over both values' storage each time.
  @inline(__always)
  fileprivate func equals(_ other: DatabaseValue) -> Bool {
    if case .int64(let value) = storage, case .int64(let otherValue) = other.storage { return value == otherValue }
    return self == other
  }

  /// Whether two keys are equal, value by value (see ``equals(_:)``).
  @inline(__always)
  fileprivate static func equal(_ key: [DatabaseValue], _ other: [DatabaseValue]) -> Bool {
    guard key.count == other.count else { return false }
    for index in key.indices where !key[index].equals(other[index]) { return false }
    return true
  }
}
