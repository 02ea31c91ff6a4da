import GRDB

/// Reads a snapshot of a file's state in steps of a few thousand rows, each in a short read
/// transaction of its own, and makes them one state with the log entries committed meanwhile.
///
/// One read transaction as long as the state (seconds at a million rows) keeps the WAL from
/// starting over: every send committed meanwhile extends the WAL file (whose new pages the
/// kernel zeroes) and lengthens the WAL index's hash chains, so sends during a snapshot cost
/// about twice as much. Between steps, checkpoints copy the WAL and it starts over.
///
/// Why the steps make one state: rows are read in the order of the table's primary key, each
/// step after the last key of the one before (a seek in the key's index), so every row is
/// read once, at some seq between the first step and the last. A row no entry touched in
/// between was the same all along. The rows entries touched (the log is read along with the
/// steps) are read again, by key, in the last transaction, whose seq labels the snapshot;
/// there the row is as SQLite stores it, whatever the log's image of it says. The rows are
/// then written in the engine's key order (``StateRows/json()``'s), sorted in memory where it
/// is not the primary key's (`list_entries`: `(id, list)` against `(list, id)`).
///
/// The last transaction also counts each table's rows. A migration or any other schema change
/// meanwhile, a compaction, the tables rebuilt from the log, a count that differs (a row inserted or deleted past the log,
/// behind the steps), or a table whose key is not its primary key makes
/// ``read(from:evenIfUpToDate:rowsPerStep:stopping:beforeStep:reading:)`` answer
/// ``Outcome/needsOneRead``. What it cannot see is a row updated past the log behind the
/// steps: the snapshot holds it as it was read, which is what the log says it is (and
/// `rewind verify` reports the table differing from the log).
struct SteppedSnapshotRead {
  /// What a stepped read gives.
  enum Outcome {
    /// The snapshot, encoded.
    case snapshot(HistoryLog.EncodedSnapshot)
    /// No entry was logged since the last snapshot: nothing to take.
    case upToDate
    /// The steps cannot be joined into one state: read it in one transaction instead.
    case needsOneRead
  }

  /// The rows one step reads: a few milliseconds of a read transaction.
  static let defaultRowsPerStep = 4_096

  /// Reads the state of the file behind `queue` (see ``SteppedSnapshotRead``).
  ///
  /// - Parameters:
  ///   - evenIfUpToDate: read the state even when no entry was logged since the last snapshot
  ///     (a labelled snapshot), rather than answer ``Outcome/upToDate``.
  ///   - stopping: checked before each step, and every few thousand rows (or comparisons of a
  ///     sort) as the rows are written after the last one; `true` throws `CancellationError`.
  ///   - beforeStep: called before each step's transaction; it may wait (for the WAL to start
  ///     over, see `WALCheckpointer`), or throw to stop the read.
  ///   - reading: called with `true` as each read transaction begins, `false` as it ends.
  /// - Throws: `CancellationError` when stopped, what `beforeStep` throws, and what reading
  ///   the file or the log throws (a log entry compacted away meanwhile).
  static func read(
    from queue: DatabaseQueue, evenIfUpToDate: Bool = false, rowsPerStep: Int = defaultRowsPerStep,
    stopping: () -> Bool = { false }, beforeStep: () throws -> Void = {}, reading: (Bool) -> Void = { _ in }
  ) throws -> Outcome {
    func beginStep() throws {
      if stopping() { throw CancellationError() }
      try beforeStep()
    }
    func transaction<T>(_ body: (Database) throws -> T) throws -> T {
      reading(true)
      defer { reading(false) }
      return try queue.read(body)
    }
    struct Start {
      var history: HistoryLog
      var seq: Int64
      var schemaVersion: Int
      var tables: [Table]?
    }
    let start = try transaction { db -> Start? in
      guard let (history, seq) = try Self.due(evenIfUpToDate: evenIfUpToDate, db) else { return nil }
      let tables = try history.tables.tableNames.map {
        try Table($0, keyColumns: history.tables.keyColumns(of: $0), db)
      }
      return Start(
        history: history, seq: seq, schemaVersion: try Self.schemaVersion(db),
        tables: tables.allSatisfy { $0 != nil } ? tables.compactMap { $0 } : nil)
    }
    guard let start else { return .upToDate }
    guard var tables = start.tables else { return .needsOneRead }

    // The rows entries touched since the first transaction, by table: read again at the end.
    var touched: [String: Set<RowImage>] = [:]
    var seen = start.seq
    /// Checks the schema is the first transaction's, and reads the entries committed since
    /// the last transaction.
    func catchUp(_ db: Database) throws {
      guard try Self.schemaVersion(db) == start.schemaVersion else { throw CannotJoin() }
      // A compaction meanwhile may have removed entries the steps follow. (Its `VACUUM` used to
      // move the schema version, which the check above caught; shrinking in steps does not.)
      guard try HistoryLog.fileBaseSeq(db) == start.history.baseSeq else { throw CannotJoin() }
      // Tables rebuilt from the log meanwhile: rows read before were perhaps edited by hand.
      guard try HistoryLog.fileTablesRebuilt(db) == start.history.position.tablesRebuilt else { throw CannotJoin() }
      let seq = try start.history.fileLastSeq(db)
      guard seq >= seen else { throw CannotJoin() }
      try start.history.forEachEntry(after: seen, through: seq, db) {
        for change in $0 { touched[change.table, default: []].insert(change.key) }
      }
      seen = seq
    }
    let rowsPerStep = max(rowsPerStep, 1)
    let changed: [[(key: [DatabaseValue], row: [DatabaseValue]?)]]
    let counts: [Int]
    do {
      for index in tables.indices {
        while !tables[index].isRead {
          try beginStep()
          let rows = try transaction { db in
            try catchUp(db)
            return try tables[index].readStep(rowsPerStep, db)
          }
          // Encoded between transactions, so that the WAL can start over meanwhile.
          tables[index].append(rows)
        }
      }
      try beginStep()
      (changed, counts) = try transaction { db in
        try catchUp(db)
        // An entry touching a table the catalog does not have: not a state these steps make.
        guard touched.keys.allSatisfy(start.history.tables.tableNames.contains),
          try HistoryLog(db).tables.appSchema.version == start.history.tables.appSchema.version
        else { throw CannotJoin() }
        return (
          try tables.map { try $0.rows(keyed: touched[$0.scan.table] ?? [], db) },
          try tables.map {
            try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0.scan.table.quotedDatabaseIdentifier)") ?? 0
          }
        )
      }
    } catch is CannotJoin {
      return .needsOneRead
    }

    var out: [UInt8] = [UInt8(ascii: "{")]
    var rowCount = 0
    for index in tables.indices {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      JSONText.appendString(tables[index].scan.table, to: &out)
      out.append(UInt8(ascii: ":"))
      let written = try tables[index].write(merging: ChangedRowsMerge(changed[index]), to: &out, stopping: stopping)
      tables[index].scan.appendSnapshotEnd(written: written, to: &out)
      // A row inserted or deleted past the log meanwhile, behind the steps.
      guard written == counts[index] else { return .needsOneRead }
      rowCount += written
      tables[index].removeRows()  // they are in `out` now
    }
    out.append(UInt8(ascii: "}"))
    var snapshot = HistoryLog.EncodedSnapshot(
      json: String(decoding: out, as: UTF8.self), rowCount: rowCount, seq: seen)
    snapshot.appSchemaVersion = start.history.tables.appSchema.version
    snapshot.tablesRebuilt = start.history.position.tablesRebuilt
    return .snapshot(snapshot)
  }

  /// A snapshot of the state of the file behind `queue`: read in steps (see
  /// ``read(from:evenIfUpToDate:rowsPerStep:stopping:beforeStep:reading:)``), or in one read
  /// transaction when the steps cannot be joined into one state. `stepped` says which; `nil`
  /// when no entry was logged since the last snapshot, unless `evenIfUpToDate`.
  ///
  /// - Parameters:
  ///   - stopping: checked before each step, and every few thousand rows (or comparisons) as
  ///     they are read or written; `true` throws `CancellationError`.
  ///   - beforeStep: called before each step's transaction; it may wait (for the WAL to start
  ///     over, see `WALCheckpointer`).
  ///   - reading: called with `true` as each read transaction begins, `false` as it ends.
  static func snapshot(
    from queue: DatabaseQueue, evenIfUpToDate: Bool = false, rowsPerStep: Int = defaultRowsPerStep,
    stopping: () -> Bool = { false }, beforeStep: () -> Void = {}, reading: (Bool) -> Void = { _ in }
  ) throws -> (snapshot: HistoryLog.EncodedSnapshot, stepped: Bool)? {
    let steps = try read(
      from: queue, evenIfUpToDate: evenIfUpToDate, rowsPerStep: rowsPerStep, stopping: stopping,
      beforeStep: beforeStep, reading: reading)
    switch steps {
    case .snapshot(let snapshot): return (snapshot, true)
    case .upToDate: return nil
    case .needsOneRead: break
    }
    reading(true)
    defer { reading(false) }
    let snapshot = try queue.read { db -> HistoryLog.EncodedSnapshot? in
      guard let (history, seq) = try Self.due(evenIfUpToDate: evenIfUpToDate, db) else { return nil }
      return try HistoryLog.EncodedSnapshot(db, catalog: history.tables, seq: seq, stopping: stopping)
    }
    return snapshot.map { ($0, false) }
  }

  /// The file's history position and last seq, or `nil` when no entry was logged since the
  /// last snapshot (unless `evenIfUpToDate`): nothing to take.
  private static func due(evenIfUpToDate: Bool, _ db: Database) throws -> (HistoryLog, Int64)? {
    let history = try HistoryLog(db)
    let seq = try history.fileLastSeq(db)
    return evenIfUpToDate || seq > history.lastSnapshotSeq ? (history, seq) : nil
  }

  /// Thrown inside the read when its steps cannot be joined into one state.
  private struct CannotJoin: Error {}

  /// SQLite's count of changes to the file's schema: any table or column added, changed or
  /// dropped between the first step and the last moves it.
  private static func schemaVersion(_ db: Database) throws -> Int {
    try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
  }

  /// One table's rows as the steps read them: their text, with each row's key.
  private struct Table {
    /// Writes the rows as a snapshot holds them and gives their keys in the engine's order.
    let scan: KeyOrderScan
    /// The positions (in ``KeyOrderScan/columns``) of the primary key's columns, in its order:
    /// the order the steps read in.
    private let stepColumns: [Int]
    /// The rows' text (arrays of values), in the order read, with a comma between two.
    private var text: [UInt8] = []
    /// Where each row's text ends in ``text``.
    private var rowEnds: [Int] = []
    /// Each row's key in key-column name order, one after another.
    private var keys: [DatabaseValue] = []
    /// Whether the rows were read in the engine's key order.
    private var inKeyOrder = true
    /// The primary key of the row read last, which the next step starts after.
    private var lastKey: [DatabaseValue]?
    /// Whether the last step read fewer rows than it asked for: the table is read.
    private(set) var isRead = false

    /// `nil` when the table has no key columns, or they are not its primary key (so no index
    /// to seek in).
    init?(_ table: String, keyColumns: [String], _ db: Database) throws {
      guard let scan = try KeyOrderScan(table: table, keyColumns: keyColumns, db) else { return nil }
      let primaryKey = try db.primaryKey(table).columns
      guard Set(primaryKey) == Set(keyColumns) else { return nil }
      self.scan = scan
      stepColumns = primaryKey.compactMap(scan.columns.firstIndex(of:))
      guard stepColumns.count == primaryKey.count else { return nil }
    }

    private var keyWidth: Int { scan.keyIndexes.count }
    private var rowCount: Int { rowEnds.count }

    /// Reads the values of the next `limit` rows, in ``KeyOrderScan/columns`` order.
    mutating func readStep(_ limit: Int, _ db: Database) throws -> [[DatabaseValue]] {
      let columns = scan.columns.map(\.quotedDatabaseIdentifier)
      let keyList = stepColumns.map { columns[$0] }.joined(separator: ", ")
      // A row value compares column by column, as ORDER BY sorts, and seeks in the index.
      let following =
        lastKey == nil ? "" : " WHERE (\(keyList)) > (\(stepColumns.map { _ in "?" }.joined(separator: ", ")))"
      let statement = try db.cachedStatement(
        sql: """
          SELECT \(columns.joined(separator: ", ")) FROM \(scan.table.quotedDatabaseIdentifier)\(following) \
          ORDER BY \(keyList) LIMIT \(limit)
          """)
      var rows: [[DatabaseValue]] = []
      rows.reserveCapacity(limit)
      try statement.forEachRow(binding: lastKey ?? []) { handle in
        rows.append((0..<Int32(columns.count)).map { DatabaseValue(sqliteStatement: handle, index: $0) })
      }
      if let last = rows.last { lastKey = stepColumns.map { last[$0] } }
      isRead = rows.count < limit
      return rows
    }

    /// Encodes the rows a step read.
    mutating func append(_ rows: [[DatabaseValue]]) {
      for values in rows {
        if !rowEnds.isEmpty { text.append(UInt8(ascii: ",")) }
        scan.appendSnapshotRow(values, to: &text)
        rowEnds.append(text.count)
        let key = scan.key(of: values)
        if inKeyOrder, rowCount > 1 { inKeyOrder = StateRows.valuesPrecede(self.key(rowCount - 2), key) }
        keys.append(contentsOf: key)
      }
    }

    private func key(_ row: Int) -> ArraySlice<DatabaseValue> { keys[row * keyWidth..<(row + 1) * keyWidth] }

    private func encoded(_ row: Int) -> ArraySlice<UInt8> {
      text[(row == 0 ? 0 : rowEnds[row - 1] + 1)..<rowEnds[row]]
    }

    /// The rows of `keys` as the table holds them now: each row's key (as stored, or as given
    /// when the row is absent) and values (`nil`: absent).
    func rows(keyed keys: Set<RowImage>, _ db: Database) throws -> [(key: [DatabaseValue], row: [DatabaseValue]?)] {
      guard !keys.isEmpty else { return [] }
      let statement = try db.cachedStatement(
        sql: """
          SELECT \(scan.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")) \
          FROM \(scan.table.quotedDatabaseIdentifier) \
          WHERE \(stepColumns.map { "\(scan.columns[$0].quotedDatabaseIdentifier) = ?" }.joined(separator: " AND "))
          """)
      return try keys.map { key in
        var row: [DatabaseValue]?
        try statement.forEachRow(binding: stepColumns.map { key[scan.columns[$0]] ?? .null }) { handle in
          row = (0..<Int32(scan.columns.count)).map { DatabaseValue(sqliteStatement: handle, index: $0) }
        }
        return (row.map(scan.key(of:)) ?? scan.key(of: key), row)
      }
    }

    /// Writes the rows (with the table's header, see ``KeyOrderScan``), in key order: those read, with `merge`'s rows in
    /// place of those entries touched since the first step (left out when absent now).
    /// Returns how many rows it wrote.
    ///
    /// `stopping` is checked every 4,096 rows and every 65,536 comparisons of the sort, which
    /// takes about a second at a million rows: a store released meanwhile waits that long.
    func write(
      merging merge: ChangedRowsMerge<[DatabaseValue]>, to out: inout [UInt8], stopping: () -> Bool
    ) throws -> Int {
      var merge = merge
      var written = 0
      func separate() {
        scan.appendSnapshotRowStart(written: written, to: &out)
        written += 1
      }
      var comparisons = 0
      let order =
        inKeyOrder
        ? nil
        : try (0..<rowCount).sorted { left, right in
          comparisons &+= 1
          if comparisons & 0xFFFF == 0, stopping() { throw CancellationError() }
          return StateRows.valuesPrecede(key(left), key(right))
        }
      for position in 0..<rowCount {
        if position & 0xFFF == 0xFFF, stopping() { throw CancellationError() }
        let row = order?[position] ?? position
        let replaced = merge.writeRows(before: key(row)) {
          separate()
          scan.appendSnapshotRow($0, to: &out)
        }
        if !replaced {
          separate()
          out.append(contentsOf: encoded(row))
        }
      }
      merge.writeRest {
        separate()
        scan.appendSnapshotRow($0, to: &out)
      }
      return written
    }

    /// Frees the rows read.
    mutating func removeRows() { (text, rowEnds, keys) = ([], [], []) }
  }
}
