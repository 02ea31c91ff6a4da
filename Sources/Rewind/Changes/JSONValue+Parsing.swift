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
      let start = index
      // Fast path: no escapes.
      while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
        guard bytes[index] >= 0x20 else { throw error("a control character in a string") }
        index += 1
      }
      guard index < bytes.count else { throw error("unterminated string") }
      var result = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
      if bytes[index] == UInt8(ascii: "\"") {
        index += 1
        return result
      }
      var scalars = String.UnicodeScalarView()
      while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "\"") {
          index += 1
          result.unicodeScalars.append(contentsOf: scalars)
          return result
        }
        guard byte >= 0x20 else { throw error("a control character in a string") }
        if byte != UInt8(ascii: "\\") {
          // Copy one UTF-8 sequence.
          let length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
          guard index + length <= bytes.count else { throw error("truncated UTF-8") }
          scalars.append(
            contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<index + length]), as: UTF8.self)
              .unicodeScalars)
          index += length
          continue
        }
        index += 1
        guard index < bytes.count else { throw error("unterminated escape") }
        switch bytes[index] {
        case UInt8(ascii: "\""): scalars.append("\"")
        case UInt8(ascii: "\\"): scalars.append("\\")
        case UInt8(ascii: "/"): scalars.append("/")
        case UInt8(ascii: "b"): scalars.append("\u{8}")
        case UInt8(ascii: "f"): scalars.append("\u{C}")
        case UInt8(ascii: "n"): scalars.append("\n")
        case UInt8(ascii: "r"): scalars.append("\r")
        case UInt8(ascii: "t"): scalars.append("\t")
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
          scalars.append(scalar)
        default:
          throw error("an invalid escape")
        }
        index += 1
      }
      throw error("unterminated string")
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
