import GRDB

/// A snapshot as listed by ``RewindDatabase/snapshots()``.
public struct SnapshotInfo: Hashable, Sendable {
  /// The label given when it was taken; `nil` for automatic and base snapshots.
  public var label: String?
  /// The state it holds is the one right after this seq.
  public var seq: Int64
  /// When it was taken (UTC, ISO 8601).
  public var time: String
  /// `manual`, `automatic` or `base`.
  public var kind: String
}

extension HistoryLog {
  /// A point whose full state is known: the current tables, a snapshot, or the empty origin.
  enum Anchor {
    case head
    case snapshot(id: Int64, seq: Int64, rows: Int64)
    case origin

    var seq: Int64? {
      switch self {
      case .head: nil
      case .snapshot(_, let seq, _): seq
      case .origin: 0
      }
    }
  }

  /// The fewest log entries between automatic snapshots.
  ///
  /// The store and the tool take an automatic snapshot once `max(minimumSnapshotSpacing,
  /// rows in the state)` entries were logged since the last one. Restoring or exporting any
  /// seq then reads at most that many entries from the nearest snapshot, plus the state
  /// itself; and since a snapshot costs time in proportion to the rows it copies, its cost
  /// spread over the actions between snapshots stays constant as the state grows.
  static let minimumSnapshotSpacing: Int64 = 1_000

  /// The anchor with the fewest log entries between it and `seq`.
  ///
  /// History does not cross a barrier migration: the anchor is between the barriers around
  /// `seq` (the head only when none follows it, the origin only when none precedes it).
  func nearestAnchor(to seq: Int64, _ db: Database) throws -> (anchor: Anchor, distance: Int64) {
    let floor = max(tables.appSchema.barrier(atOrBefore: seq), baseSeq)
    let ceiling = tables.appSchema.barrier(after: seq)
    var best: (Anchor, Int64) = (.head, ceiling == nil ? lastSeq - seq : .max)
    if baseSeq == 0, tables.appSchema.barrier(atOrBefore: seq) == 0, seq < best.1 { best = (.origin, seq) }
    let rows = try Row.fetchAll(
      db,
      sql: """
        SELECT * FROM (SELECT id, seq, row_count FROM snapshots WHERE seq >= ? AND seq < ? ORDER BY seq ASC LIMIT 1)
        UNION ALL
        SELECT * FROM (SELECT id, seq, row_count FROM snapshots WHERE seq <= ? AND seq >= ? ORDER BY seq DESC LIMIT 1)
        """,
      // Snapshots older than the base (kept labelled ones) have no log to walk from.
      arguments: [seq, ceiling ?? .max, seq, floor])
    for row in rows {
      let snapshotSeq = try row.checked("seq", in: EngineTable.snapshots.name, as: Int64.self)
      // Saturating: a tampered seq far from `seq` must not overflow, only lose.
      let difference = snapshotSeq.subtractingReportingOverflow(seq)
      let distance = difference.overflow ? Int64.max : Int64(clamping: difference.partialValue.magnitude)
      if distance < best.1 {
        best = (
          .snapshot(
            id: try row.checked("id", in: EngineTable.snapshots.name), seq: snapshotSeq,
            rows: try row.checked("row_count", in: EngineTable.snapshots.name)),
          distance
        )
      }
    }
    return best
  }

  /// The state tables as they were right after `seq`.
  func rows(at seq: Int64, _ db: Database) throws -> StateRows {
    try checkSeq(seq)
    return try rows(at: seq, from: try nearestAnchor(to: seq, db), db)
  }

  func rows(at seq: Int64, from anchor: (anchor: Anchor, distance: Int64), _ db: Database) throws -> StateRows {
    var rows: StateRows
    let anchorSeq: Int64
    switch anchor.anchor {
    case .head:
      rows = try StateRows(db, catalog: tables)
      anchorSeq = lastSeq
    case .origin:
      rows = StateRows(empty: tables)
      anchorSeq = 0
    case .snapshot(let id, let snapshotSeq, _):
      rows = try snapshotRows(id: id, db)
      anchorSeq = snapshotSeq
    }
    // Walk the entries between the anchor and `seq`: backward to an earlier seq (each row
    // takes the before of the first entry that touched it), forward to a later one.
    let (low, high) = seq < anchorSeq ? (seq, anchorSeq) : (anchorSeq, seq)
    rows.apply(try netChanges(after: low, through: high, db).changes, seq < anchorSeq ? .backward : .forward)
    return rows
  }

  /// The changes of the entries after `low` up to `high`, merged per row.
  func netChanges(after low: Int64, through high: Int64, _ db: Database) throws -> NetChanges {
    var net = NetChanges()
    try forEachEntry(after: low, through: high, db) { for change in $0 { net.add(change) } }
    return net
  }

  /// The anchor to rebuild the state after `seq` from, or `nil` when walking back from the
  /// current tables is the cheaper way there.
  ///
  /// Walking back costs the entries since `seq`, whatever the state's size. A rebuild costs the
  /// whole state, read (and parsed, from a snapshot) and compared with the tables, plus the
  /// entries between: it is chosen only when that is less. (The start's state is about as
  /// large as the latest snapshot's, when there is one.) History does not cross a barrier:
  /// with one after `seq`, the nearest anchor before it is the way.
  func rebuildAnchor(for seq: Int64, _ db: Database) throws -> (anchor: Anchor, distance: Int64)? {
    let anchor = try nearestAnchor(to: seq, db)
    if tables.appSchema.barrier(after: seq) != nil { return anchor }
    let stateRows: Int64
    switch anchor.anchor {
    case .head: return nil
    case .snapshot(_, _, let rows): stateRows = rows
    case .origin: stateRows = lastSnapshotRows > 0 ? lastSnapshotRows : try stateRowCount(db)
    }
    let (rebuild, overflow) = anchor.distance.addingReportingOverflow(stateRows)
    return !overflow && rebuild < lastSeq - seq ? anchor : nil
  }

  /// The rows that differ between the tables now and right after `seq`, as they were then
  /// (`nil`: absent then), by table and key; `nil` when rebuilding the state from a snapshot
  /// or the start is the way there (see ``rebuildAnchor(for:_:)``).
  func rowsChanged(since seq: Int64, _ db: Database) throws -> [String: [StateRows.Row: StateRows.Row?]]? {
    try checkSeq(seq)
    if try rebuildAnchor(for: seq, db) != nil { return nil }
    var changed: [String: [StateRows.Row: StateRows.Row?]] = [:]
    for change in try netChanges(after: seq, through: lastSeq, db).changes {
      changed[change.table, default: [:]].updateValue(change.before, forKey: change.key)
    }
    return changed
  }

  /// Replaces the state tables' rows `current` with `target`, as one undoable entry (a
  /// restore or an import). Returns the entry's seq, or `nil` when the state is already
  /// `target`: nothing is logged then.
  mutating func replaceState(
    _ current: StateRows, with target: StateRows, kind: LogEntry.Kind, payload: String, _ db: Database
  ) throws -> Int64? {
    let changes = current.changes(to: target)
    guard !changes.isEmpty else { return nil }
    return try append(
      LogEntry(kind: kind, action: kind.rawValue, payload: payload, changes: changes, undo: .step(group: nil)), db)
  }

  /// Stores the tables as a snapshot, labelled with the seq of the state they hold: the last
  /// seq as the file has it inside this transaction, which may be past this position's when
  /// another connection wrote since. Returns that seq.
  @discardableResult
  mutating func takeSnapshot(kind: String, label: String?, _ db: Database) throws -> Int64 {
    let seq = try fileLastSeq(db)
    try insertSnapshot(try EncodedSnapshot(db, catalog: tables, seq: seq), kind: kind, label: label, db)
    return seq
  }

  mutating func insertSnapshot(_ rows: StateRows, seq: Int64, kind: String, label: String?, _ db: Database) throws {
    try insertSnapshot(EncodedSnapshot(rows, seq: seq), kind: kind, label: label, db)
  }

  /// A snapshot's rows encoded and checksummed, ready to insert: built outside the write
  /// transaction when a snapshot is taken in the background.
  struct EncodedSnapshot: Sendable {
    var seq: Int64
    var rowCount: Int
    var json: String
    var checksum: String
    /// The app schema version of the tables it was read from, when it was read from them: a
    /// snapshot stored after another process migrated the file would hold rows of the old
    /// shape under the new one, so it is dropped then (see `SnapshotWorker.store`).
    var appSchemaVersion: Int?
    /// How many times the tables had been rebuilt from the log when it was read from them
    /// (see ``Position/tablesRebuilt``): one read before a rebuild may hold rows edited by
    /// hand, which the rebuild put back, so it is dropped then too. `nil` for a state that
    /// was not read from the tables (the log's replay).
    var tablesRebuilt: Int64?

    init(_ rows: StateRows, seq: Int64) {
      self.init(json: rows.json(), rowCount: rows.tables.values.map(\.count).reduce(0, +), seq: seq)
    }

    /// Where the text is cut into parts of at most `maximumBytes` bytes of UTF-8 (at least
    /// one part), each cut before a character's first byte, so that the parts joined are the
    /// text. Ranges rather than strings: a worker makes each part's text only when it writes
    /// it, so the text is held once, not twice.
    func partRanges(maximumBytes: Int) -> [Range<Int>] {
      var text = json
      return text.withUTF8 { bytes in
        var ranges: [Range<Int>] = []
        var start = 0
        repeat {
          var end = min(start + max(maximumBytes, 4), bytes.count)
          // A UTF-8 continuation byte (10xxxxxx) is not where a character starts.
          while end < bytes.count, bytes[end] & 0b1100_0000 == 0b1000_0000 { end -= 1 }
          ranges.append(start..<end)
          start = end
        } while start < bytes.count
        return ranges
      }
    }

    /// The text of the part at `range`, one of ``partRanges(maximumBytes:)``.
    func part(_ range: Range<Int>) -> String {
      var text = json
      return text.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    init(json: String, rowCount: Int, seq: Int64) {
      (self.seq, self.rowCount, self.json) = (seq, rowCount, json)
      checksum = HistoryLog.checksum(json, seq: seq)
    }

    /// The catalog's tables as they are in `db`, which holds the state after `seq`: from a
    /// scan in key order where SQLite's order is the engine's, otherwise through an image.
    init(_ db: Database, catalog: TableCatalog, seq: Int64, stopping: () -> Bool = { false }) throws {
      self =
        try Self.scanning(db, catalog: catalog, seq: seq, stopping: stopping)
        ?? Self(StateRows(db, catalog: catalog), seq: seq)
      appSchemaVersion = catalog.appSchema.version
      tablesRebuilt = try HistoryLog.fileTablesRebuilt(db)
    }

    /// The tables read in key order and written as they come: the text ``StateRows/json()``
    /// gives (see `StateRows+SnapshotJSON.swift`), with no image of the state in memory (see
    /// ``KeyOrderScan``); `nil` when a table's order in SQLite is not the engine's. `stopping`
    /// is checked every 4,096 rows; `true` throws `CancellationError`.
    static func scanning(
      _ db: Database, catalog: TableCatalog, seq: Int64, stopping: () -> Bool = { false }
    ) throws -> Self? {
      var out: [UInt8] = [UInt8(ascii: "{")]
      var rowCount = 0
      do {
        for (index, table) in catalog.tableNames.enumerated() {
          guard let scan = try KeyOrderScan(table: table, keyColumns: catalog.keyColumns(of: table), db) else {
            return nil
          }
          if index > 0 { out.append(UInt8(ascii: ",")) }
          JSONText.appendString(table, to: &out)
          out.append(UInt8(ascii: ":"))
          var written = 0
          try scan.forEachRow(db) { values, _ in
            scan.appendSnapshotRowStart(written: written, to: &out)
            written += 1
            if (rowCount + written) % 4_096 == 0, stopping() { throw CancellationError() }
            scan.appendSnapshotRow(values, to: &out)
          }
          scan.appendSnapshotEnd(written: written, to: &out)
          rowCount += written
        }
      } catch is KeyOrderScan.NotInEngineOrder {
        return nil
      }
      out.append(UInt8(ascii: "}"))
      return Self(json: String(decoding: out, as: UTF8.self), rowCount: rowCount, seq: seq)
    }
  }

  mutating func insertSnapshot(_ snapshot: EncodedSnapshot, kind: String, label: String?, _ db: Database) throws {
    try insertSnapshot(snapshot, kind: kind, label: label, lastPart: snapshot.json, partSet: nil, db)
  }

  /// Inserts the row of `snapshot`, the beginning of whose text `parts` holds (already
  /// written, see `SnapshotWorker.writeParts`).
  mutating func insertSnapshot(
    _ snapshot: EncodedSnapshot, kind: String, label: String?, parts: SnapshotWorker.WrittenParts, _ db: Database
  ) throws {
    try insertSnapshot(snapshot, kind: kind, label: label, lastPart: parts.lastPart, partSet: parts.partSet, db)
  }

  /// Inserts the row of `snapshot`, with `lastPart` as its `rows`: the end of its text, whose
  /// beginning is in the parts `partSet` names (already written), or the whole text.
  private mutating func insertSnapshot(
    _ snapshot: EncodedSnapshot, kind: String, label: String?, lastPart: String, partSet: Int64?, _ db: Database
  ) throws {
    // Rows built for an earlier seq were read through the migrations since: say so, or they
    // would be read through them again.
    let shape = tables.appSchema.shape(ofRowsAt: snapshot.seq)
    try db.execute(
      sql: """
        INSERT INTO snapshots (label, seq, kind, row_count, rows, part_set, checksum, schema_seq) \
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """,
      arguments: [
        label, snapshot.seq, kind, snapshot.rowCount, lastPart, partSet, snapshot.checksum,
        shape == snapshot.seq ? nil : shape,
      ])
    if snapshot.seq >= lastSnapshotSeq {
      lastSnapshotSeq = snapshot.seq
      lastSnapshotRows = Int64(snapshot.rowCount)
    }
  }

  /// The rows of snapshot `id`, refused if they were edited after it was taken.
  func snapshotRows(id: Int64, _ db: Database) throws -> StateRows {
    guard
      let row = try Row.fetchOne(
        db, sql: "SELECT seq, rows, part_set, checksum, schema_seq FROM snapshots WHERE id = ?", arguments: [id])
    else { throw RewindError(.corruptData, "snapshot \(id) is missing") }
    return try snapshotRows(row, db)
  }

  /// The whole text of a `snapshots` row (with `rows` and `part_set`): its parts, if it was
  /// stored in parts, then its own `rows`.
  static func snapshotText(_ row: Row, _ db: Database) throws -> String {
    let rows = try row.checked("rows", in: EngineTable.snapshots.name, as: String.self)
    guard let partSet = try row.checked("part_set", in: EngineTable.snapshots.name, as: Int64?.self) else {
      return rows
    }
    var text = ""
    let parts = try Row.fetchCursor(
      db, sql: "SELECT rows FROM snapshot_parts WHERE part_set = ? ORDER BY part", arguments: [partSet])
    while let part = try parts.next() {
      text += try part.checked("rows", in: EngineTable.snapshotParts.name, as: String.self)
    }
    return text + rows
  }

  /// The rows of a `snapshots` row (with `seq`, `rows`, `part_set`, `checksum` and
  /// `schema_seq`), checked, in the current shape.
  func snapshotRows(_ row: Row, _ db: Database) throws -> StateRows {
    try snapshotRows(row, text: try Self.snapshotText(row, db))
  }

  /// ``snapshotRows(_:_:)`` for a snapshot whose whole text ``snapshotText(_:_:)`` has read:
  /// no database needed, so that a large snapshot is parsed after its read transaction. (The
  /// text is consumed: it is freed once its rows are read, before they are stored.)
  func snapshotRows(_ row: Row, text json: consuming String) throws -> StateRows {
    let seq = try row.checked("seq", in: EngineTable.snapshots.name, as: Int64.self)
    // Every snapshot has a checksum since engine schema 9 sealed them (its triggers refuse
    // one without), so a missing one was taken away by hand.
    guard
      let checksum = try row.checked("checksum", in: EngineTable.snapshots.name, as: String?.self),
      checksum == Self.checksum(json, seq: seq)
    else {
      throw RewindError(
        .corruptData,
        "the snapshot at seq \(seq) was modified after it was taken (its checksum does not match its rows and seq)")
    }
    let shape = try row.checked("schema_seq", in: EngineTable.snapshots.name, as: Int64?.self) ?? seq
    return try StateRows(
      json: consume json, catalog: tables, upgradingThrough: tables.appSchema.operations(at: seq, shape: shape),
      validate: seq >= tables.appSchema.lastBarrier)
  }

  /// The checksum of the snapshot of the state after `seq` whose text is `text`:
  /// ``sealedChecksumPrefix`` and FNV-1a (64 bits), in hex, of the seq in decimal, a colon and
  /// the text. It catches a snapshot edited by hand or damaged on disk, its rows or its seq
  /// (engine schema 9; the rows alone before, see ``sealSnapshotSeqs(_:)``). Not a defence
  /// against someone who also rewrites the checksum.
  static func checksum(_ text: String, seq: Int64) -> String {
    var hash = FNV1a()
    hash.add("\(seq):")
    hash.add(text)
    return sealedChecksumPrefix + hash.hex
  }

  /// What begins every checksum of engine schema 9: a trigger of `0009` refuses a snapshot
  /// without it, which only a library of schema 8 or earlier, still running on a file another
  /// process upgraded, would write.
  static let sealedChecksumPrefix = "fnv1a-seq:"

  /// The checksum engine schemas 4 to 8 wrote: of the text alone.
  static func checksumOfRowsAlone(_ text: String) -> String {
    var hash = FNV1a()
    hash.add(text)
    return hash.hex
  }

  /// 64-bit FNV-1a, over UTF-8.
  private struct FNV1a {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ text: String) {
      for byte in text.utf8 {
        value ^= UInt64(byte)
        value &*= 0x0000_0100_0000_01b3
      }
    }

    var hex: String {
      let hex = String(value, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }
  }

  /// Engine migration 0009: seals each stored snapshot's seq into its checksum (see
  /// `0009_snapshot_checksums_cover_seq.sql`). A snapshot whose rows match its old checksum,
  /// or that has none (written before checksums), gets the new one; one whose rows no longer
  /// match keeps its old checksum, which the new form does not match either, so it stays
  /// refused. One that cannot be read (a value of the wrong type, a missing part) is left as
  /// it is, refused where it is used as before, rather than keeping the file from opening. One
  /// snapshot's text is held at a time.
  static func sealSnapshotSeqs(_ db: Database) throws {
    let ids = try Row.fetchAll(db, sql: "SELECT id FROM snapshots").map { $0[0] as DatabaseValue }
    for id in ids {
      guard
        let row = try Row.fetchOne(
          db, sql: "SELECT seq, rows, part_set, checksum FROM snapshots WHERE id = ?", arguments: [id]),
        case .int64(let seq) = (row["seq"] as DatabaseValue).storage
      else { continue }
      let text: String
      do {
        text = try snapshotText(row, db)
      } catch is RewindError {
        continue  // not text, or a part missing: damage, which stays refused
      }
      switch (row["checksum"] as DatabaseValue).storage {
      case .null: break
      case .string(let stored) where stored == checksumOfRowsAlone(text): break
      default: continue
      }
      try db.execute(
        sql: "UPDATE snapshots SET checksum = ? WHERE id = ?", arguments: [checksum(text, seq: seq), id])
    }
  }

  /// Whether the automatic policy wants a snapshot now, for a state of `rows` rows.
  ///
  /// - Parameters:
  ///   - rows: the rows the state holds.
  ///   - spacing: the entries between snapshots instead of the policy's, for benchmarks.
  ///   - taken: the seq of a snapshot taken since this position was read, if any.
  func wantsAutomaticSnapshot(rows: Int, spacing: Int64? = nil, taken: Int64 = 0) -> Bool {
    lastSeq - max(lastSnapshotSeq, taken) >= (spacing ?? max(Self.minimumSnapshotSpacing, Int64(rows)))
  }

  /// The snapshots, oldest first.
  static func snapshots(_ db: Database) throws -> [SnapshotInfo] {
    try Row.fetchAll(db, sql: "SELECT label, seq, time, kind FROM snapshots ORDER BY seq, id").map {
      SnapshotInfo(
        label: try $0.checked("label", in: EngineTable.snapshots.name),
        seq: try $0.checked("seq", in: EngineTable.snapshots.name),
        time: try $0.checked("time", in: EngineTable.snapshots.name),
        kind: try $0.checked("kind", in: EngineTable.snapshots.name))
    }
  }
}
