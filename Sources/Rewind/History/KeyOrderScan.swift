import GRDB
import GRDBSQLite

/// Reads a state table's rows in the order of its key, as ``StateRows/sortedKeys(_:)`` orders
/// keys, and writes them as a snapshot's rows, as ``StateRows/json()`` would, or as an
/// export's JSON objects, as ``StateRows/image(of:in:)`` and ``JSONText/appendRow(_:to:)``
/// would.
///
/// Exports of the current state, and snapshots (read in steps, see ``SteppedSnapshotRead``, or
/// in one transaction inside a write), are written from such scans, with no image of the
/// whole state in memory: at a million rows, hashing every row into dictionaries cost ten
/// times the read. SQLite sorts by the key; the scan checks each key follows the last in the
/// engine's own order and throws ``NotInEngineOrder`` when it does not (a key column with
/// another collation), so the caller can build its text from an image instead.
///
/// A class: the closures that write each row capture the scan, and capturing a struct of six
/// arrays copied it (six retains, then six releases) for every row.
final class KeyOrderScan {
  /// Thrown when SQLite's order of the table's keys is not the engine's.
  struct NotInEngineOrder: Error {}

  let table: String
  /// The table's columns, by name, as row objects write them.
  let columns: [String]
  /// The positions of the key columns (by name) among ``columns``.
  let keyIndexes: [Int]
  /// Each column's `"name":`, encoded once per scan rather than once per row, one after the
  /// other in ``namesText`` (one buffer: appending an array's element retained it, for every
  /// column of every row).
  private let namesText: [UInt8]
  private let nameRanges: [Range<Int>]
  /// A column left out of row objects when NULL: a fixed list's `owner` in `list_entries`
  /// (added after such rows were first logged, see ``StateRows/image(of:in:)``).
  private let omittedWhenNull: Int?
  /// What comes before the table's first row in a snapshot (see ``StateRows/rowsHeader(_:)``).
  private let snapshotRowsHeader: [UInt8]

  /// A scan of `table`, keyed by `keyColumns`; `nil` when the table lacks a key column.
  init?(table: String, keyColumns: [String], _ db: Database) throws {
    self.table = table
    columns = try db.columns(in: table).map(\.name).sorted()
    let keyColumns = keyColumns.sorted()
    keyIndexes = keyColumns.compactMap(columns.firstIndex(of:))
    guard !keyColumns.isEmpty, keyIndexes.count == keyColumns.count else { return nil }
    var namesText: [UInt8] = []
    nameRanges = columns.map { column in
      let start = namesText.count
      JSONText.appendString(column, to: &namesText)
      namesText.append(UInt8(ascii: ":"))
      return start..<namesText.count
    }
    self.namesText = namesText
    omittedWhenNull = StateRows.columnOmittedWhenNull(in: table).flatMap(columns.firstIndex(of:))
    snapshotRowsHeader = StateRows.rowsHeader(columns)
  }

  /// The key of a row's `values`, in key-column name order.
  func key(of values: [DatabaseValue]) -> [DatabaseValue] { keyIndexes.map { values[$0] } }

  /// The key of a row image, in key-column name order.
  func key(of row: StateRows.Row) -> [DatabaseValue] { keyIndexes.map { row[columns[$0]] ?? .null } }

  /// The key columns, quoted, in key-column name order: the scan's `ORDER BY`, and the order
  /// of a row value compared with a key that `key(of:)` gives.
  var quotedKeyColumns: [String] { keyIndexes.map { columns[$0].quotedDatabaseIdentifier } }

  /// Calls `body` with each row's values (in ``columns`` order) and key, in key order.
  ///
  /// - Throws: ``NotInEngineOrder`` when a key does not follow the previous one.
  func forEachRow(_ db: Database, _ body: (_ values: [DatabaseValue], _ key: [DatabaseValue]) throws -> Void) throws {
    let statement = try db.makeStatement(
      sql: """
        SELECT \(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")) \
        FROM \(table.quotedDatabaseIdentifier) \
        ORDER BY \(quotedKeyColumns.joined(separator: ", "))
        """)
    var values = [DatabaseValue](repeating: .null, count: columns.count)
    // Two keys' storage, taken in turns: no array allocated per row.
    var key = [DatabaseValue](repeating: .null, count: keyIndexes.count)
    var previous = key
    var isFirst = true
    try statement.forEachRow(binding: []) { handle in
      for index in values.indices { values[index] = DatabaseValue(sqliteStatement: handle, index: Int32(index)) }
      swap(&key, &previous)
      for index in key.indices { key[index] = values[keyIndexes[index]] }
      if !isFirst, !StateRows.valuesPrecede(previous, key) { throw NotInEngineOrder() }
      isFirst = false
      try body(values, key)
    }
  }

  // MARK: - Snapshot text

  /// Appends what comes before a row of the table in a snapshot, `written` rows before it.
  func appendSnapshotRowStart(written: Int, to out: inout [UInt8]) {
    if written == 0 { out.append(contentsOf: snapshotRowsHeader) } else { out.append(UInt8(ascii: ",")) }
  }

  /// Appends a row's `values` as a snapshot holds them (NULLs included).
  func appendSnapshotRow(_ values: [DatabaseValue], to out: inout [UInt8]) {
    StateRows.appendValues(values, to: &out)
  }

  /// Appends what ends the table's rows in a snapshot, after `written` rows: an empty table is
  /// `[]`, as ``StateRows/json()`` writes it, which has no columns to name.
  func appendSnapshotEnd(written: Int, to out: inout [UInt8]) {
    if written == 0 { out.append(contentsOf: "[]".utf8) } else { out.append(contentsOf: StateRows.rowsFooter) }
  }

  // MARK: - Export text

  /// Appends the JSON object of a row's `values`.
  func appendObject(_ values: [DatabaseValue], to out: inout [UInt8]) {
    out.append(UInt8(ascii: "{"))
    var first = true
    namesText.withUnsafeBufferPointer { names in
      for index in values.indices where !(index == omittedWhenNull && values[index].isNull) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        out.append(contentsOf: UnsafeBufferPointer(rebasing: names[nameRanges[index]]))
        JSONText.appendValue(values[index], to: &out)
      }
    }
    out.append(UInt8(ascii: "}"))
  }
}
