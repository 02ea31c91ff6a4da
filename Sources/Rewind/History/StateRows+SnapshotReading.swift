import GRDB

extension StateRows {
  /// The rows of a snapshot's text when it has the shape the engine writes, read straight into
  /// rows; `nil` for anything else, which ``images(json:)`` then reads through ``JSONValue``,
  /// with its errors.
  ///
  /// Verifying a compacted file, compacting, and restoring far back read a snapshot of the
  /// whole state: through `JSONValue` each row was first an array of values of its own, and
  /// the whole text a tree of them (most of verifying a million-task compacted file).
  ///
  /// The shape read here: an object whose members, each named once, are an empty array or
  /// `{"columns":[...],"rows":[...]}` in that order, with distinct column names and each row
  /// an array of as many values as columns, each a null, a number or a string. A value the
  /// engine tags (`$blob`, `$real`), a table of row objects (the form of schema 9 and
  /// earlier), or any other shape returns `nil`: the general reader decides what it is, so
  /// the two readers always agree on each table's rows. (The direct reader gives the tables in
  /// the text's order, the general one in a dictionary's.)
  static func directImages(json: String) -> [(table: String, row: Row)]? {
    SnapshotReader.read(json) { try $0.images() }
  }
}

/// Reads a snapshot's text in the shape the engine writes it (see
/// ``StateRows/directImages(json:)``); throws at anything else.
private struct SnapshotReader: EngineShapeReader {
  var parser: JSONValue.Parser

  mutating func images() throws -> [(table: String, row: StateRows.Row)] {
    var images: [(table: String, row: StateRows.Row)] = []
    var tables: Set<String> = []
    try whole {
      try $0.forEachMember { reader, table in
        guard tables.insert(table).inserted else { throw NotEngineShape() }
        try reader.appendRows(of: table, to: &images)
      }
    }
    return images
  }

  /// A table's rows: `[]`, or `{"columns":[...],"rows":[...]}`.
  private mutating func appendRows(of table: String, to images: inout [(table: String, row: StateRows.Row)]) throws {
    if parser.take(UInt8(ascii: "[")) {
      parser.skipWhitespace()
      try expect(UInt8(ascii: "]"))
      return
    }
    try expect(UInt8(ascii: "{"))
    try member("columns")
    let layout = try StateRows.ColumnsAndRows(table: table, columnNames: try array { try $0.string() })
    parser.skipWhitespace()
    try expect(UInt8(ascii: ","))
    try member("rows")
    let count = layout.columns.names.count
    try forEachElement { reader in
      let values = try reader.array { try $0.value() }
      guard values.count == count else { throw NotEngineShape() }
      images.append((table, layout.image(values)))
    }
    parser.skipWhitespace()
    try expect(UInt8(ascii: "}"))
  }

  /// `"name":`, with any whitespace around.
  private mutating func member(_ name: String) throws {
    parser.skipWhitespace()
    guard try string() == name else { throw NotEngineShape() }
    parser.skipWhitespace()
    try expect(UInt8(ascii: ":"))
    parser.skipWhitespace()
  }
}
