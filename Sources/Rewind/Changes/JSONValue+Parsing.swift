import Foundation

extension JSONValue {
  /// Parses JSON text. Undo, redo, restores and `verify` read the log's row changes with it:
  /// Foundation's `JSONDecoder` costs several times more for these small documents.
  ///
  /// Integral numbers that fit in `Int64` become ``integer(_:)`` (as with `JSONDecoder`),
  /// other numbers ``real(_:)``.
  /// - Throws: ``RewindError/Code/corruptData`` naming the byte offset of the first error.
  static func parse(_ text: String) throws -> JSONValue {
    var text = text
    return try text.withUTF8 { bytes in
      var parser = Parser(bytes: bytes)
      parser.skipWhitespace()
      let value = try parser.value(depth: 0)
      parser.skipWhitespace()
      guard parser.index == bytes.count else { throw parser.error("unexpected text after the JSON value") }
      return value
    }
  }

  /// Reads JSON text from its UTF-8 bytes; ``RowChange/decodeJSON(_:)``'s direct path reads the
  /// log's row changes with its pieces too.
  struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    func error(_ message: String) -> RewindError {
      RewindError(.corruptData, "invalid JSON at byte \(index): \(message)")
    }

    mutating func skipWhitespace() {
      while index < bytes.count {
        switch bytes[index] {
        case 0x20, 0x0A, 0x0D, 0x09: index += 1
        default: return
        }
      }
    }

    /// Whether the next byte is `byte` (then read past it).
    mutating func take(_ byte: UInt8) -> Bool {
      guard index < bytes.count, bytes[index] == byte else { return false }
      index += 1
      return true
    }

    mutating func expect(_ literal: StaticString) throws {
      let count = literal.utf8CodeUnitCount
      guard index + count <= bytes.count,
        (0..<count).allSatisfy({ bytes[index + $0] == literal.utf8Start[$0] })
      else { throw error("expected \(literal)") }
      index += count
    }

    mutating func value(depth: Int) throws -> JSONValue {
      guard depth < 512 else { throw error("nested too deeply") }
      guard index < bytes.count else { throw error("unexpected end") }
      switch bytes[index] {
      case UInt8(ascii: "{"):
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
          index += 1
          return .object(members)
        }
        while true {
          skipWhitespace()
          guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
          let key = try string()
          skipWhitespace()
          try expect(":")
          skipWhitespace()
          members[key] = try value(depth: depth + 1)
          skipWhitespace()
          guard index < bytes.count else { throw error("unexpected end in an object") }
          if bytes[index] == UInt8(ascii: ",") {
            index += 1
          } else if bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
          } else {
            throw error("expected , or }")
          }
        }
      case UInt8(ascii: "["):
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
          index += 1
          return .array(items)
        }
        while true {
          skipWhitespace()
          items.append(try value(depth: depth + 1))
          skipWhitespace()
          guard index < bytes.count else { throw error("unexpected end in an array") }
          if bytes[index] == UInt8(ascii: ",") {
            index += 1
          } else if bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
          } else {
            throw error("expected , or ]")
          }
        }
      case UInt8(ascii: "\""):
        return .string(try string())
      case UInt8(ascii: "t"):
        try expect("true")
        return .bool(true)
      case UInt8(ascii: "f"):
        try expect("false")
        return .bool(false)
      case UInt8(ascii: "n"):
        try expect("null")
        return .null
      default:
        return try number()
      }
    }

    mutating func number() throws -> JSONValue {
      let start = index
      var isInteger = true
      if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
      let digitsStart = index
      while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
      guard index > digitsStart else { throw error("expected a value") }
      if bytes[digitsStart] == UInt8(ascii: "0"), index - digitsStart > 1 { throw error("a number has a leading zero") }
      if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
        isInteger = false
        index += 1
        let fraction = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        guard index > fraction else { throw error("a number has no digits after its point") }
      }
      if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
        isInteger = false
        index += 1
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        let exponent = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        guard index > exponent else { throw error("a number has no exponent digits") }
      }
      let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
      if isInteger, let integer = Int64(text) { return .integer(integer) }
      guard let real = Double(text) else { throw error("\(text) is not a number") }
      // A number written with a point or an exponent is a real, even when integral (2.0): a
      // REAL column's value must read back from the log as it reads from the table.
      // (JSONDecoder would make 2.0 an integer.)
      return .real(real)
    }

    mutating func string() throws -> String {
      index += 1  // the opening quote
      var run = index
      skipUnescapedText()
      guard index < bytes.count else { throw error("unterminated string") }
      // Most strings have nothing escaped: one decoding of their bytes.
      if bytes[index] == UInt8(ascii: "\"") {
        defer { index += 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[run..<index]), as: UTF8.self)
      }
      // Otherwise the string's UTF-8 is gathered, each run between escapes copied whole, and
      // decoded once at the end. (Appending to a `String.UnicodeScalarView` a character or an
      // escape at a time took time quadratic in the string's length when it mixed escapes with
      // other characters: 1.4 s to undo a rename to a 400,000-character title with newlines.)
      var utf8: [UInt8] = []
      utf8.reserveCapacity(2 * (index - run) + 16)
      while true {
        utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
        guard index < bytes.count else { throw error("unterminated string") }
        switch bytes[index] {
        case UInt8(ascii: "\""):
          index += 1
          return String(decoding: utf8, as: UTF8.self)
        case UInt8(ascii: "\\"):
          index += 1
          try appendEscape(to: &utf8)
        default:
          throw error("a control character in a string")
        }
        index += 1
        run = index
        skipUnescapedText()
      }
    }

    /// Reads past a string's bytes up to its closing quote, an escape or a control character
    /// (which a JSON string may not hold).
    private mutating func skipUnescapedText() {
      while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return }
        index += 1
      }
    }

    /// Appends the UTF-8 of the escape whose letter is at `index` (after its backslash), and
    /// leaves `index` on its last byte.
    private mutating func appendEscape(to utf8: inout [UInt8]) throws {
      guard index < bytes.count else { throw error("unterminated escape") }
      switch bytes[index] {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(bytes[index])
      case UInt8(ascii: "b"): utf8.append(0x08)
      case UInt8(ascii: "f"): utf8.append(0x0C)
      case UInt8(ascii: "n"): utf8.append(0x0A)
      case UInt8(ascii: "r"): utf8.append(0x0D)
      case UInt8(ascii: "t"): utf8.append(0x09)
      case UInt8(ascii: "u"):
        var code = try hex4()
        if (0xD800...0xDBFF).contains(code) {
          // A surrogate pair.
          guard index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\"), bytes[index + 2] == UInt8(ascii: "u")
          else { throw error("a lone surrogate") }
          index += 2
          let low = try hex4()
          guard (0xDC00...0xDFFF).contains(low) else { throw error("a lone surrogate") }
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(code) else { throw error("an invalid \\u escape") }
        UTF8.encode(scalar) { utf8.append($0) }
      default:
        throw error("an invalid escape")
      }
    }

    /// Reads the four hex digits after `\u`; leaves `index` on the last one.
    mutating func hex4() throws -> UInt32 {
      guard index + 4 < bytes.count else { throw error("a short \\u escape") }
      var code: UInt32 = 0
      for offset in 1...4 {
        guard let digit = Character(Unicode.Scalar(bytes[index + offset])).hexDigitValue else {
          throw error("an invalid \\u escape")
        }
        code = code << 4 + UInt32(digit)
      }
      index += 4
      return code
    }
  }
}
