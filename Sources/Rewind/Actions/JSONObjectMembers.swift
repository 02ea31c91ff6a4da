/// Reads the members of a JSON object's text.
enum JSONObjectMembers {
  /// The first key of a JSON object's text, when it needs no unescaping.
  ///
  /// Read through the text's contiguous UTF-8 (no copy for a native string): the store names
  /// every action it logs this way, and walking a `Substring`'s UTF-8 view costs ten times as
  /// much.
  static func firstKey(_ text: String) -> String? {
    var text = text
    return text.withUTF8 { bytes -> String? in
      guard bytes.count > 2, bytes[0] == UInt8(ascii: "{"), bytes[1] == UInt8(ascii: "\"") else { return nil }
      var end = 2
      while end < bytes.count {
        switch bytes[end] {
        case UInt8(ascii: "\""): return String(decoding: UnsafeBufferPointer(rebasing: bytes[2..<end]), as: UTF8.self)
        case UInt8(ascii: "\\"): return nil
        default: end += 1
        }
      }
      return nil
    }
  }
}
