import GRDB

/// An app migration's row transform, applied to whole states and to the row images of history.
struct RowTransform {
  let rows: @Sendable (HistoryRow) throws -> [HistoryRow]
  /// The tables after the migration: where produced rows must belong, and their keys.
  let catalog: TableCatalog
  let fail: (String) -> RewindError

  /// The rows one row becomes, each with its key.
  private func transform(table: String, row: RowImage) throws -> [(table: String, key: RowImage, row: RowImage)] {
    try rows(HistoryRow(table: table, columns: row.dictionary)).map { output in
      let keyColumns = catalog.keyColumns(of: output.table)
      guard !keyColumns.isEmpty else {
        throw fail(
          "its row transform turned a row of \(table) into a row of \(output.table), which is not a table of the state after the migration"
        )
      }
      guard let missing = keyColumns.first(where: { output.columns[$0] == nil }) else {
        let row = RowImage(output.columns)
        return (output.table, row.keeping(keyColumns), row)
      }
      throw fail("its row transform turned a row of \(table) into a row of \(output.table) with no \(missing)")
    }
  }

  /// The state `state` becomes.
  func apply(to state: StateRows) throws -> StateRows {
    var result = StateRows(empty: catalog)
    for (table, rows) in state.tables {
      for row in rows.values {
        for output in try transform(table: table, row: row) {
          result.tables[output.table, default: [:]][output.key] = output.row
        }
      }
    }
    return result
  }

  /// The changes one change becomes: its before and after images transformed, paired by row.
  func apply(to change: RowChange) throws -> [RowChange] {
    struct RowID: Hashable {
      var table: String
      var key: RowImage
    }
    var order: [RowID] = []
    var images: [RowID: (before: RowImage?, after: RowImage?)] = [:]
    for (isBefore, image) in [(true, change.before), (false, change.after)] {
      guard let image else { continue }
      for output in try transform(table: change.table, row: image) {
        let id = RowID(table: output.table, key: output.key)
        if images[id] == nil { order.append(id) }
        if isBefore {
          images[id, default: (nil, nil)].before = output.row
        } else {
          images[id, default: (nil, nil)].after = output.row
        }
      }
    }
    return order.compactMap { id in
      let (before, after) = images[id]!
      return before == after ? nil : RowChange(table: id.table, key: id.key, before: before, after: after)
    }
  }

  /// Throws unless the migration code turned the tables `before` into what the transform
  /// gives for them: the two descriptions of the migration must agree before history is
  /// rewritten with one of them.
  func check(_ before: StateRows, against after: StateRows) throws {
    let differences = after.changes(to: try apply(to: before))
    guard !differences.isEmpty else { return }
    let described = differences.prefix(3).map {
      "\($0.table) \(describe($0.key)) is \(describe($0.before)) after the migration, the row transform gives \(describe($0.after))"
    }
    throw fail(
      "its row transform and its migration code disagree on \(differences.count) row\(differences.count == 1 ? "" : "s"): \(described.joined(separator: "; "))"
    )
  }

  /// Rewrites the row images of the entries and snapshots before the migration at `seq` (back
  /// to the last barrier) into the migration's shape: each read through the described changes
  /// since it was written (`reading`), then transformed.
  func rewriteHistory(before seq: Int64, reading schema: AppSchemaHistory, _ db: Database) throws {
    let floor = schema.barrier(atOrBefore: seq)
    // Entries a compaction folded but has not removed yet are no history (`followsBase`); the
    // labelled snapshots it kept from before its base are, and are rewritten below.
    let entries = try Row.fetchAll(
      db, sql: "SELECT seq, changes FROM action_log WHERE seq > ? AND seq < ? ORDER BY seq",
      arguments: [max(floor, try HistoryLog.fileBaseSeq(db)), seq])
    for entry in entries {
      let entrySeq: Int64 = entry["seq"]
      let text: String = entry["changes"]
      let changes = schema.upgrade(try RowChange.decodeJSON(text), at: entrySeq)
      let rewritten = RowChange.json(try changes.flatMap(apply(to:)))
      if rewritten != text {
        try db.execute(sql: "UPDATE action_log SET changes = ? WHERE seq = ?", arguments: [rewritten, entrySeq])
      }
    }
    let snapshots = try Row.fetchAll(
      db, sql: "SELECT id, seq, rows, part_set, checksum, schema_seq FROM snapshots WHERE seq >= ? AND seq < ?",
      arguments: [floor, seq])
    for snapshot in snapshots {
      let snapshotSeq: Int64 = snapshot["seq"]
      let text = try HistoryLog.snapshotText(snapshot, db)
      // A snapshot edited by hand is refused, not rewritten with a new checksum.
      let checksum = try snapshot.checked("checksum", in: EngineTable.snapshots.name, as: String?.self)
      if checksum != HistoryLog.checksum(text, seq: snapshotSeq) {
        throw fail("the snapshot at seq \(snapshotSeq) was modified after it was taken")
      }
      let shape: Int64 = snapshot["schema_seq"] ?? snapshotSeq
      let operations = schema.operations(at: snapshotSeq, shape: shape)
      var rows = StateRows(empty: catalog)
      for (stored, storedRow) in try StateRows.images(json: text) {
        guard let (table, row) = AppSchemaHistory.apply(operations, toRowOf: stored, storedRow) else { continue }
        for output in try transform(table: table, row: row) {
          rows.tables[output.table, default: [:]][output.key] = output.row
        }
      }
      let json = rows.json()
      // Rewritten whole, in this one migration transaction: its parts, if any, go.
      try db.execute(
        sql: "DELETE FROM snapshot_parts WHERE part_set = ?", arguments: [snapshot["part_set"] as Int64?])
      try db.execute(
        sql: "UPDATE snapshots SET rows = ?, part_set = NULL, checksum = ?, row_count = ?, schema_seq = ? WHERE id = ?",
        arguments: [
          json, HistoryLog.checksum(json, seq: snapshotSeq), rows.tables.values.map(\.count).reduce(0, +), seq,
          snapshot["id"],
        ])
    }
  }
}
