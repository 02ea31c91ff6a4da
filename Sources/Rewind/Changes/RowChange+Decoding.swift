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
    ChangesReader.read(text) { try $0.changes() }
  }
}

/// Reads the log's row changes in the shape the engine writes them (see
/// ``RowChange/decodeEngineJSON(_:)``); throws at anything else.
private struct ChangesReader: EngineShapeReader {
  var parser: JSONValue.Parser
  /// The columns of the rows read so far, shared by the rows that have the same.
  var columns: [RowImage.Columns] = []

  init(parser: JSONValue.Parser) { self.parser = parser }

  mutating func changes() throws -> [RowChange] {
    try whole { try $0.array { try $0.change() } }
  }

  private mutating func change() throws -> RowChange {
    var table: String?
    var key: RowImage??
    var before: RowImage??
    var after: RowImage??
    try forEachMember { reader, name in
      switch name {
      case "table" where table == nil: table = try reader.string()
      case "key" where key == nil: key = try reader.row()
      case "before" where before == nil: before = try reader.row()
      case "after" where after == nil: after = try reader.row()
      default: throw NotEngineShape()
      }
    }
    guard let table, let key = key ?? nil, !key.isEmpty else { throw NotEngineShape() }
    return RowChange(table: table, key: key, before: before ?? nil, after: after ?? nil)
  }

  /// A row object, or `nil` for `null`.
  private mutating func row() throws -> RowImage? {
    if parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "n") {
      try parser.expect("null")
      return nil
    }
    var names: [String] = []
    var values: [DatabaseValue] = []
    try forEachMember { reader, name in
      // Ascending, as the engine writes them: otherwise sorting (and a repeated name) is the
      // general reader's.
      if let last = names.last, !(last < name) { throw NotEngineShape() }
      names.append(name)
      values.append(try reader.value())
    }
    return RowImage(columns: shared(names), sortedValues: values)
  }

  /// The `Columns` named `names`: one of those read already when it has the same names. An
  /// entry's rows come from a few tables, so the few kept are searched in turn.
  private mutating func shared(_ names: [String]) -> RowImage.Columns {
    if let found = columns.first(where: { $0.names == names }) { return found }
    let made = RowImage.Columns(sortedNames: names)
    if columns.count < 8 { columns.append(made) }
    return made
  }
}
