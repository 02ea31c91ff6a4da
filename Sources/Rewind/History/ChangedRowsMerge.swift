import GRDB

/// Rows that differ from those a scan reads in key order, merged in at their place: the rows
/// written while a snapshot was read in steps. (An export at an earlier seq places its rows
/// before it scans, see ``TableScanExport/RowsThen``: the rows of a step are not known then.)
struct ChangedRowsMerge<Row> {
  /// The rows, in key order (``StateRows/valuesPrecede(_:_:)``): each key in key-column name
  /// order, with the row it stands for (`nil`: absent).
  private let rows: [(key: [DatabaseValue], row: Row?)]
  private var next = 0

  /// - Parameter rows: keys (in key-column name order) and rows (`nil`: absent), in any order.
  init(_ rows: some Sequence<(key: [DatabaseValue], row: Row?)>) {
    self.rows = rows.sorted { StateRows.valuesPrecede($0.key, $1.key) }
  }

  /// Writes the changed rows whose key precedes `key`, a scanned row's, then the changed row
  /// of `key` itself if there is one (nothing when it is absent). Returns whether the scanned
  /// row is replaced: if not, the caller writes it.
  mutating func writeRows(before key: some Collection<DatabaseValue>, _ write: (Row) -> Void) -> Bool {
    while next < rows.count, StateRows.valuesPrecede(rows[next].key, key) {
      if let row = rows[next].row { write(row) }
      next += 1
    }
    guard next < rows.count, rows[next].key.elementsEqual(key) else { return false }
    if let row = rows[next].row { write(row) }
    next += 1
    return true
  }

  /// Writes the changed rows after the last scanned one.
  mutating func writeRest(_ write: (Row) -> Void) {
    for (_, row) in rows[next...] {
      if let row { write(row) }
    }
    next = rows.count
  }
}
