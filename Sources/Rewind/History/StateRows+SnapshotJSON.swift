import GRDB

/// A snapshot's text: one JSON object, each state table under its name, in name order.
///
/// Since engine schema 10 a table with rows is written as its columns once, then each row's
/// values in their order, the rows in key order:
///
/// ```json
/// {"tasks":{"columns":["done","id","title"],"rows":[[0,1,"Buy milk"],[1,2,"Call Alice"]]}}
/// ```
///
/// Schema 9 and earlier wrote every table as an array of row objects,
/// `[{"done":0,"id":1,"title":"Buy milk"},...]`, which repeated each column's name in each row:
/// a third of the text at a million tasks. That form is still read, and still written for an
/// empty table (`[]`) and for a table whose rows do not all have the same columns (rows of an
/// earlier app schema read through its migrations).
extension StateRows {
  /// The image as a snapshot's text, tables and rows in a fixed order.
  func json() -> String {
    var out: [UInt8] = [UInt8(ascii: "{")]
    for (index, table) in tables.keys.sorted().enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      JSONText.appendString(table, to: &out)
      out.append(UInt8(ascii: ":"))
      let rows = tables[table]!
      let keys = Self.sortedKeys(rows.keys)
      if let columns = Self.sharedColumns(of: rows.values, in: table) {
        let header = Self.rowsHeader(columns)
        for (rowIndex, key) in keys.enumerated() {
          if rowIndex == 0 { out.append(contentsOf: header) } else { out.append(UInt8(ascii: ",")) }
          let row = rows[key]!
          Self.appendValues(columns.lazy.map { row[$0] ?? .null }, to: &out)
        }
        out.append(contentsOf: Self.rowsFooter)
      } else {
        out.append(UInt8(ascii: "["))
        for (rowIndex, key) in keys.enumerated() {
          if rowIndex > 0 { out.append(UInt8(ascii: ",")) }
          JSONText.appendRow(rows[key], to: &out)
        }
        out.append(UInt8(ascii: "]"))
      }
    }
    out.append(UInt8(ascii: "}"))
    return String(decoding: out, as: UTF8.self)
  }

  /// Reads a snapshot's text (either form), read through `operations` (see
  /// ``AppSchemaHistory``); tables and columns are checked against `catalog` when `validate`.
  ///
  /// The text is consumed: freed once its rows are read, before they are stored, so that a
  /// large state's text (75 MB at a million tasks) and its stored rows are not in memory at
  /// once, when the caller passes it with `consume`.
  init(
    json: consuming String, catalog: TableCatalog, upgradingThrough operations: [SchemaChange.Operation] = [],
    validate: Bool = true
  ) throws {
    self.init(empty: catalog)
    let images = try Self.images(json: json)
    _ = consume json
    // Each table's dictionary is sized for its rows at once, not grown by doubling (the
    // rows come table by table).
    var start = images.startIndex
    while start < images.endIndex, operations.isEmpty {
      let end = images[start...].firstIndex { $0.table != images[start].table } ?? images.endIndex
      tables[images[start].table, default: [:]].reserveCapacity(end - start)
      start = end
    }
    var keys: (table: String, projection: RowImage.KeyProjection)?
    for (stored, storedRow) in images {
      guard let (table, row) = AppSchemaHistory.apply(operations, toRowOf: stored, storedRow) else { continue }
      if keys?.table != table { keys = (table, RowImage.KeyProjection(keyColumns: catalog.keyColumns(of: table))) }
      // A table the catalog does not know (history before a barrier) is keyed by whole rows.
      let key = keys!.projection.keyColumns.isEmpty ? row : keys!.projection.key(of: row)
      if validate { try catalog.validate(RowChange(table: table, key: key, before: nil, after: row)) }
      tables[table, default: [:]][key] = row
    }
  }

  /// The rows of a snapshot's text (either form), as stored.
  ///
  /// - Throws: ``RewindError/Code/corruptData`` naming what is malformed.
  static func images(json: String) throws -> [(table: String, row: Row)] {
    try directImages(json: json) ?? imagesThroughJSONValue(json: json)
  }

  /// ``images(json:)`` read through ``JSONValue``: any text, with its errors.
  static func imagesThroughJSONValue(json: String) throws -> [(table: String, row: Row)] {
    var images: [(table: String, row: Row)] = []
    do {
      guard case .object(let tables) = try JSONValue.parse(json) else {
        throw RewindError(.corruptData, "not an object")
      }
      for (table, value) in tables {
        switch value {
        case .array(let rows):
          for item in rows {
            guard case .object(let row) = item else {
              throw RewindError(.corruptData, "a row of \(table) is not an object")
            }
            images.append((table, RowImage(try row.mapValues { try $0.databaseValue() })))
          }
        case .object(let form):
          try appendImages(ofColumnsAndRows: form, of: table, to: &images)
        default:
          throw RewindError(.corruptData, "\(table) is neither an array of rows nor an object of columns and rows")
        }
      }
    } catch {
      throw RewindError(
        .corruptData, "a snapshot is not a JSON object of tables of rows", underlying: error as? RewindError)
    }
    return images
  }

  /// The rows of a table written as `{"columns":[...],"rows":[[...],...]}`.
  private static func appendImages(
    ofColumnsAndRows form: [String: JSONValue], of table: String, to images: inout [(table: String, row: Row)]
  ) throws {
    guard form.count == 2, case .array(let names)? = form["columns"], case .array(let rows)? = form["rows"] else {
      throw RewindError(.corruptData, "\(table) is an object other than {\"columns\":[...],\"rows\":[...]}")
    }
    let layout = try ColumnsAndRows(
      table: table,
      columnNames: names.map { name in
        guard case .string(let name) = name else {
          throw RewindError(.corruptData, "a column of \(table) is not a string")
        }
        return name
      })
    for (index, item) in rows.enumerated() {
      guard case .array(let values) = item, values.count == layout.columns.names.count else {
        throw RewindError(
          .corruptData, "row \(index) of \(table) is not an array of \(layout.columns.names.count) values")
      }
      images.append((table, layout.image(try values.map { try $0.databaseValue() })))
    }
  }

  /// The columns of a table written as columns and rows, shared by the images of its rows.
  struct ColumnsAndRows {
    /// The columns, given in the order the text names them.
    let columns: RowImage.Columns
    /// Where the column left out when NULL is among `columns`, and the columns of a row
    /// without it: shared too, rather than made for each row (a million fixed-list entries
    /// would make a million).
    private let omitted: (index: Int, rest: RowImage.Columns)?

    /// - Throws: ``RewindError/Code/corruptData`` when a column is named twice.
    init(table: String, columnNames: [String]) throws {
      guard Set(columnNames).count == columnNames.count else {
        throw RewindError(.corruptData, "\(table) names a column twice in \(columnNames)")
      }
      let columns = RowImage.Columns(columnNames)
      self.columns = columns
      omitted = columnOmittedWhenNull(in: table).flatMap { column in
        columns.index(of: column).map { (index: $0, rest: RowImage.Columns(columns.names.filter { $0 != column })) }
      }
    }

    /// The image of a row whose `values` are in the order the text names the columns.
    func image(_ values: [DatabaseValue]) -> Row {
      let image = RowImage(columns, values)
      guard let omitted, image.values[omitted.index] == .null else { return image }
      var values = image.values
      values.remove(at: omitted.index)
      return RowImage(columns: omitted.rest, sortedValues: values)
    }
  }

  // MARK: - Writing tables of columns and rows

  /// The columns every row of `rows` has, in name order, the table's column left out when NULL
  /// included; `nil` when there are no rows, or when their columns differ (a row would not
  /// read back as it is).
  static func sharedColumns(of rows: some Collection<Row>, in table: String) -> [String]? {
    guard let first = rows.first else { return nil }
    let omitted = columnOmittedWhenNull(in: table)
    var columns = first.keys
    if let omitted, !columns.contains(omitted) {
      columns.insert(omitted, at: columns.firstIndex { $0 > omitted } ?? columns.endIndex)
    }
    let columnsLeavingOut = omitted.map { omitted in columns.filter { $0 != omitted } }
    // Rows of a scan or of an entity share their columns: compared once.
    var fitting: RowImage.Columns?
    for row in rows {
      // A NULL given for the column left out when NULL would not read back.
      if let omitted, row[omitted] == .null { return nil }
      if row.columns === fitting { continue }
      guard row.keys == columns || row.keys == columnsLeavingOut else { return nil }
      fitting = row.columns
    }
    return columns
  }

  /// `{"columns":[...],"rows":[`: what comes before a table's first row.
  static func rowsHeader(_ columns: [String]) -> [UInt8] {
    var out: [UInt8] = Array(#"{"columns":["#.utf8)
    for (index, column) in columns.enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      JSONText.appendString(column, to: &out)
    }
    out.append(contentsOf: #"],"rows":["#.utf8)
    return out
  }

  /// What comes after a table's last row.
  static let rowsFooter: [UInt8] = Array("]}".utf8)

  /// Appends one row: its values, in its table's columns' order, as a JSON array.
  static func appendValues(_ values: some Sequence<DatabaseValue>, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "["))
    var first = true
    for value in values {
      if !first { out.append(UInt8(ascii: ",")) }
      first = false
      JSONText.appendValue(value, to: &out)
    }
    out.append(UInt8(ascii: "]"))
  }
}
