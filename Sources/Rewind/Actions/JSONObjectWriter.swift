/// Writes a JSON object member by member, with no `Encoder`: what an action's
/// ``LoggedAction/writePayload(to:)`` writes its payload with.
///
/// Members must come in ascending key order (the order the store logs `Codable` payloads in),
/// so the text is the one the action's `Codable` encoding gives, byte for byte:
///
/// ```swift
/// // {"move":{"id":3,"to":0}}
/// try payload.writeObject("move") { move in
///   try move.write("id", id)
///   try move.write("to", index)
/// }
/// ```
public struct JSONObjectWriter {
  @usableFromInline
  var bytes: [UInt8]
  /// The key of the last member written, for the order check.
  @usableFromInline
  var lastKey: String?
  /// The key of the first member, if it was written with no escape: the name an action is
  /// logged under, as ``JSONObjectMembers/firstKey(_:)`` reads it from the text (which reads
  /// none from an escaped key), with no second pass over the text.
  @usableFromInline
  var firstKey: String?

  init() {
    bytes = []
    bytes.reserveCapacity(64)  // one allocation for most payloads
    bytes.append(UInt8(ascii: "{"))
  }

  /// The object's text, closed.
  mutating func finish() -> String {
    bytes.append(UInt8(ascii: "}"))
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Writes a string member.
  public mutating func write(_ key: String, _ value: String) throws {
    try startMember(key)
    JSONText.appendString(value, to: &bytes)
  }

  /// Writes an integer member.
  public mutating func write(_ key: String, _ value: Int64) throws {
    try startMember(key)
    JSONText.appendInteger(value, to: &bytes)
  }

  /// Writes an integer member.
  public mutating func write(_ key: String, _ value: Int) throws {
    try write(key, Int64(value))
  }

  /// Writes `true` or `false`.
  public mutating func write(_ key: String, _ value: Bool) throws {
    try startMember(key)
    bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
  }

  /// Writes a number as `Codable` payloads are written: an integral value without a fraction.
  ///
  /// - Throws: `EncodingError.invalidValue` for infinity and NaN, which JSON cannot hold.
  public mutating func write(_ key: String, _ value: Double) throws {
    let text = try CompactJSONEncoder.Node.number(value, nil)
    try startMember(key)
    bytes.append(contentsOf: text.utf8)
  }

  /// Writes `null`, as `Codable` writes an optional encoded with `encode(_:forKey:)`. (Synthesized
  /// `Codable` leaves a `nil` property out instead: write nothing for it.)
  public mutating func writeNull(_ key: String) throws {
    try startMember(key)
    bytes.append(contentsOf: "null".utf8)
  }

  /// Writes a member through its `Encodable` encoding: for the values with no method of their own.
  public mutating func write<Value: Encodable>(_ key: String, encoding value: Value) throws {
    let text = try CompactJSONEncoder.encode(value)
    try startMember(key)
    bytes.append(contentsOf: text.utf8)
  }

  /// Writes an object member, whose members `body` writes (an enum case's associated values, or
  /// `{}` for a case without).
  public mutating func writeObject(_ key: String, _ body: (inout JSONObjectWriter) throws -> Void) throws {
    try startMember(key)
    // The member writes into this writer's bytes: moved out and back, never copied.
    var member = JSONObjectWriter(continuing: bytes)
    bytes = []
    defer { bytes = member.bytes }
    member.bytes.append(UInt8(ascii: "{"))
    try body(&member)
    member.bytes.append(UInt8(ascii: "}"))
  }

  private init(continuing bytes: [UInt8]) {
    self.bytes = bytes
  }

  @usableFromInline
  mutating func startMember(_ key: String) throws {
    let isFirst = lastKey == nil
    if let lastKey {
      guard lastKey < key else {
        throw RewindError(
          .invalidValue,
          "a payload's members must be written in ascending key order, once each, as its Codable encoding is logged: \"\(key)\" came after \"\(lastKey)\""
        )
      }
      bytes.append(UInt8(ascii: ","))
    }
    lastKey = key
    let start = bytes.count
    JSONText.appendString(key, to: &bytes)
    // Every escape makes the text longer than the key and its quotes.
    if isFirst, bytes.count - start == key.utf8.count + 2 { firstKey = key }
    bytes.append(UInt8(ascii: ":"))
  }
}
