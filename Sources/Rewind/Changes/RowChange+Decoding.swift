import GRDB

extension RowChange {
  /// The row changes of `text` when it has the engine's own shape, read straight into rows;
  /// `nil` for anything else, which ``decodeJSON(_:)`` then reads through ``JSONValue``, with
  /// its errors.
  ///
  /// Undo, redo, restores and `verify` read every entry's changes: through `JSONValue` each
  /// row became a dictionary, then a sorted copy, with its own ``RowImage/Columns``. Here a
  /// row's values go into one array as they are read, and rows whose columns are the same
  /// share one `Columns` (which also makes comparing them cheap).
  ///
  /// The shape read here: an array of objects with a string `table`, a non-empty object `key`,
  /// and `before` and `after` null, absent or objects; no other member, none twice; each
  /// row's columns in ascending order, as the engine writes them, each a null, a number or a
  /// string. A value the log tags (`$blob`, `$real`), a boolean, or any other shape returns
  /// `nil`: the general reader decides what it is, so both readers always agree.
  static func decodeEngineJSON(_ text: String) -> [RowChange]? {
    var text = text
    return text.withUTF8 { bytes in
      var reader = ChangesReader(parser: JSONValue.Parser(bytes: bytes))
      return try? reader.changes()
    }
  }
}

/// Reads the log's row changes in the shape the engine writes them (see
/// ``RowChange/decodeEngineJSON(_:)``); throws at anything else.
private struct ChangesReader {
  typealias NotEngineShape = JSONValue.Parser.NotEngineShape

  var parser: JSONValue.Parser
  /// The columns of the rows read so far, shared by the rows that have the same.
  var columns: [RowImage.Columns] = []

  mutating func changes() throws -> [RowChange] {
    parser.skipWhitespace()
    try expect(UInt8(ascii: "["))
    var changes: [RowChange] = []
    parser.skipWhitespace()
    if !parser.take(UInt8(ascii: "]")) {
      repeat {
        parser.skipWhitespace()
        changes.append(try change())
        parser.skipWhitespace()
      } while parser.take(UInt8(ascii: ","))
      try expect(UInt8(ascii: "]"))
    }
    parser.skipWhitespace()
    guard parser.index == parser.bytes.count else { throw NotEngineShape() }
    return changes
  }

  private mutating func change() throws -> RowChange {
    try expect(UInt8(ascii: "{"))
    var table: String?
    var key: RowImage??
    var before: RowImage??
    var after: RowImage??
    repeat {
      parser.skipWhitespace()
      let name = try string()
      parser.skipWhitespace()
      try expect(UInt8(ascii: ":"))
      parser.skipWhitespace()
      switch name {
      case "table" where table == nil: table = try string()
      case "key" where key == nil: key = try row()
      case "before" where before == nil: before = try row()
      case "after" where after == nil: after = try row()
      default: throw NotEngineShape()
      }
      parser.skipWhitespace()
    } while parser.take(UInt8(ascii: ","))
    try expect(UInt8(ascii: "}"))
    guard let table, let key = key ?? nil, !key.isEmpty else { throw NotEngineShape() }
    return RowChange(table: table, key: key, before: before ?? nil, after: after ?? nil)
  }

  /// A row object, or `nil` for `null`.
  private mutating func row() throws -> RowImage? {
    if parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "n") {
      try parser.expect("null")
      return nil
    }
    try expect(UInt8(ascii: "{"))
    var names: [String] = []
    var values: [DatabaseValue] = []
    parser.skipWhitespace()
    if !parser.take(UInt8(ascii: "}")) {
      repeat {
        parser.skipWhitespace()
        let name = try string()
        // Ascending, as the engine writes them: otherwise sorting (and a repeated name) is the
        // general reader's.
        if let last = names.last, !(last < name) { throw NotEngineShape() }
        names.append(name)
        parser.skipWhitespace()
        try expect(UInt8(ascii: ":"))
        parser.skipWhitespace()
        values.append(try value())
        parser.skipWhitespace()
      } while parser.take(UInt8(ascii: ","))
      try expect(UInt8(ascii: "}"))
    }
    return RowImage(columns: shared(names), sortedValues: values)
  }

  private mutating func value() throws -> DatabaseValue { try parser.plainValue() }

  private mutating func string() throws -> String { try parser.plainString() }

  private mutating func expect(_ byte: UInt8) throws { try parser.require(byte) }

  /// The `Columns` named `names`: one of those read already when it has the same names. An
  /// entry's rows come from a few tables, so the few kept are searched in turn.
  private mutating func shared(_ names: [String]) -> RowImage.Columns {
    if let found = columns.first(where: { $0.names == names }) { return found }
    let made = RowImage.Columns(sortedNames: names)
    if columns.count < 8 { columns.append(made) }
    return made
  }
}
