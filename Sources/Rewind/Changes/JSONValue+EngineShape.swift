import GRDB

/// The pieces of the direct readers of JSON the engine writes itself (the log's row changes,
/// snapshots): each reads the one shape the engine writes, and throws at anything else
/// (``NotEngineShape``, or the parser's own error for malformed text). Either way the direct
/// reader gives up, and the general reader (``JSONValue/parse(_:)``) reads the text, with its
/// errors.
extension JSONValue.Parser {
  /// The text is not in the shape the engine writes.
  struct NotEngineShape: Error {}

  /// A null, a number or a string, as a database value (a tagged `$blob` or `$real`, or a
  /// boolean, is not the engine's plain shape).
  mutating func plainValue() throws -> DatabaseValue {
    guard index < bytes.count else { throw NotEngineShape() }
    switch bytes[index] {
    case UInt8(ascii: "\""): return try string().databaseValue
    case UInt8(ascii: "n"):
      try expect("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number().databaseValue()
    default: throw NotEngineShape()
    }
  }

  /// A string.
  mutating func plainString() throws -> String {
    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw NotEngineShape() }
    return try string()
  }

  /// The byte `byte`, read past.
  mutating func require(_ byte: UInt8) throws {
    guard take(byte) else { throw NotEngineShape() }
  }
}

/// A direct reader of one shape of engine JSON: its parser, and the loops over arrays and
/// objects that every such reader runs, each item or member read by the reader itself (which
/// may keep state of its own, such as the columns read so far).
protocol EngineShapeReader {
  var parser: JSONValue.Parser { get set }
  init(parser: JSONValue.Parser)
}

extension EngineShapeReader {
  typealias NotEngineShape = JSONValue.Parser.NotEngineShape

  /// What `read` reads of `text` with a new reader, or `nil` when the text is not in the
  /// engine's shape (or is malformed): the caller then hands it to the general reader.
  static func read<Value>(_ text: String, _ read: (inout Self) throws -> Value) -> Value? {
    var text = text
    return text.withUTF8 { bytes in
      var reader = Self(parser: JSONValue.Parser(bytes: bytes))
      return try? read(&reader)
    }
  }

  /// The whole text, read by `read`, with only whitespace around it.
  mutating func whole<Value>(_ read: (inout Self) throws -> Value) throws -> Value {
    parser.skipWhitespace()
    let value = try read(&self)
    parser.skipWhitespace()
    guard parser.index == parser.bytes.count else { throw NotEngineShape() }
    return value
  }

  /// An array, each item read by `read` (the whitespace around it read past).
  mutating func forEachElement(_ read: (inout Self) throws -> Void) throws {
    try expect(UInt8(ascii: "["))
    parser.skipWhitespace()
    guard !parser.take(UInt8(ascii: "]")) else { return }
    repeat {
      parser.skipWhitespace()
      try read(&self)
      parser.skipWhitespace()
    } while parser.take(UInt8(ascii: ","))
    try expect(UInt8(ascii: "]"))
  }

  /// An array, each item read by `item`.
  mutating func array<Item>(_ item: (inout Self) throws -> Item) throws -> [Item] {
    var items: [Item] = []
    try forEachElement { items.append(try item(&$0)) }
    return items
  }

  /// An object, each member's value read by `read`, given the member's name (the name, the
  /// colon and the whitespace around them read past).
  mutating func forEachMember(_ read: (inout Self, String) throws -> Void) throws {
    try expect(UInt8(ascii: "{"))
    parser.skipWhitespace()
    guard !parser.take(UInt8(ascii: "}")) else { return }
    repeat {
      parser.skipWhitespace()
      let name = try string()
      parser.skipWhitespace()
      try expect(UInt8(ascii: ":"))
      parser.skipWhitespace()
      try read(&self, name)
      parser.skipWhitespace()
    } while parser.take(UInt8(ascii: ","))
    try expect(UInt8(ascii: "}"))
  }

  mutating func value() throws -> DatabaseValue { try parser.plainValue() }

  mutating func string() throws -> String { try parser.plainString() }

  mutating func expect(_ byte: UInt8) throws { try parser.require(byte) }
}
