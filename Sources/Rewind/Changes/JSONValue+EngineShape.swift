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
