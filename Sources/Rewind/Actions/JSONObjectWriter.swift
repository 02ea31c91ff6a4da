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
///
/// The writer is not copyable: it writes into memory of its own, which the action's
/// `writePayload(to:)` borrows.
public struct JSONObjectWriter: ~Copyable {
  /// The text written so far.
  private var text = TextBuffer(capacity: 64)  // one allocation for most payloads
  /// The key of the last member written in the object being written, for the order check.
  private var lastKey: String?
  /// The objects ``writeObject(_:_:)`` opened and has not closed yet.
  private var depth = 0
  /// The key of the first member, if it was written with no escape: the name an action is
  /// logged under, as ``JSONObjectMembers/firstKey(_:)`` reads it from the text (which reads
  /// none from an escaped key), with no second pass over the text.
  private(set) var firstKey: String?

  init() {
    text.append(UInt8(ascii: "{"))
  }

  /// The object's text, closed.
  mutating func finish() -> String {
    text.append(UInt8(ascii: "}"))
    return text.withBytes { String(decoding: $0, as: UTF8.self) }
  }

  /// Writes a string member.
  public mutating func write(_ key: String, _ value: String) throws {
    try startMember(key)
    JSONText.appendString(value, to: &text)
  }

  /// Writes an integer member.
  public mutating func write(_ key: String, _ value: Int64) throws {
    try startMember(key)
    JSONText.appendInteger(value, to: &text)
  }

  /// Writes an integer member.
  public mutating func write(_ key: String, _ value: Int) throws {
    try write(key, Int64(value))
  }

  /// Writes `true` or `false`.
  public mutating func write(_ key: String, _ value: Bool) throws {
    try startMember(key)
    text.appendLiteral(value ? "true" : "false")
  }

  /// Writes a number as `Codable` payloads are written: an integral value without a fraction.
  ///
  /// - Throws: `EncodingError.invalidValue` for infinity and NaN, which JSON cannot hold.
  public mutating func write(_ key: String, _ value: Double) throws {
    let number = try CompactJSONEncoder.Node.number(value, nil)
    try startMember(key)
    JSONText.appendRaw(number, to: &text)
  }

  /// Writes `null`, as `Codable` writes an optional encoded with `encode(_:forKey:)`. (Synthesized
  /// `Codable` leaves a `nil` property out instead: write nothing for it.)
  public mutating func writeNull(_ key: String) throws {
    try startMember(key)
    text.appendLiteral("null")
  }

  /// Writes a member through its `Encodable` encoding: for the values with no method of their own.
  public mutating func write<Value: Encodable>(_ key: String, encoding value: Value) throws {
    let encoded = try CompactJSONEncoder.encode(value)
    try startMember(key)
    JSONText.appendRaw(encoded, to: &text)
  }

  /// Writes an object member, whose members `body` writes (an enum case's associated values, or
  /// `{}` for a case without).
  public mutating func writeObject(_ key: String, _ body: (inout JSONObjectWriter) throws -> Void) throws {
    try startMember(key)
    // The member is written by this same writer, into the same text, with an order check of
    // its own: the outer object's resumes once it is closed.
    let outer = lastKey
    lastKey = nil
    depth += 1
    defer {
      depth -= 1
      lastKey = outer
    }
    text.append(UInt8(ascii: "{"))
    try body(&self)
    text.append(UInt8(ascii: "}"))
  }

  private mutating func startMember(_ key: String) throws {
    let isFirst = lastKey == nil && depth == 0
    if let lastKey {
      guard lastKey < key else {
        throw RewindError(
          .invalidValue,
          "a payload's members must be written in ascending key order, once each, as its Codable encoding is logged: \"\(key)\" came after \"\(lastKey)\""
        )
      }
      text.append(UInt8(ascii: ","))
    }
    lastKey = key
    let start = text.count
    JSONText.appendString(key, to: &text)
    // Every escape makes the text longer than the key and its quotes.
    if isFirst, text.count - start == key.utf8.count + 2 { firstKey = key }
    text.append(UInt8(ascii: ":"))
  }
}
