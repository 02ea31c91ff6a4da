import Foundation
import GRDB

// The log's JSON form of row changes:
//
//   [{"table":"tasks","key":{"id":1},"before":null,"after":{"done":0,"id":1,"title":"Milk"}}]
//
// Integers and reals are JSON numbers, text is a JSON string, NULL is null. Values JSON cannot
// carry as such are tagged objects: {"$blob":"<base64>"} and {"$real":"inf"|"-inf"|"nan"}.
// Keys are sorted, so the same changes always give the same bytes. Encoding is hand-written:
// it runs on every action, and this is several times faster than JSONEncoder.

extension RowChange {
  /// The JSON text of `changes`, as stored in `action_log.changes`.
  public static func json(_ changes: [RowChange]) -> String {
    var out = TextBuffer(capacity: 256 * changes.count)
    writeJSON(changes, to: &out)
    return out.text()
  }

  /// Writes the JSON text of `changes` (see ``json(_:)``) into `out`: the log insert binds
  /// those bytes, with no `String` made of them.
  static func writeJSON(_ changes: [RowChange], to out: inout TextBuffer) {
    out.append(UInt8(ascii: "["))
    // Each change read through its address: taken out of the array, its rows were copied
    // (retained, then released).
    changes.withUnsafeBufferPointer { changes in
      for index in changes.indices {
        let change = changes.baseAddress! + index
        if index > 0 { out.append(UInt8(ascii: ",")) }
        out.appendLiteral(#"{"table":"#)
        JSONText.appendString(change.pointee.table, to: &out)
        out.appendLiteral(#","key":"#)
        JSONText.appendRow(change.pointee.key, to: &out)
        out.appendLiteral(#","before":"#)
        JSONText.appendRow(change.pointee.before, to: &out)
        out.appendLiteral(#","after":"#)
        JSONText.appendRow(change.pointee.after, to: &out)
        out.append(UInt8(ascii: "}"))
      }
    }
    out.append(UInt8(ascii: "]"))
  }

  /// Decodes the JSON text of `action_log.changes`.
  ///
  /// - Throws: ``RewindError/Code/corruptData`` naming what is malformed.
  public static func decodeJSON(_ text: String) throws -> [RowChange] {
    try decodeEngineJSON(text) ?? decodeThroughJSONValue(text)
  }

  /// ``decodeJSON(_:)`` for any shape: the text parsed into ``JSONValue``s, then read as rows.
  static func decodeThroughJSONValue(_ text: String) throws -> [RowChange] {
    let values: [[String: JSONValue]]
    do {
      guard case .array(let items) = try JSONValue.parse(text) else { throw RewindError(.corruptData, "not an array") }
      values = try items.map {
        guard case .object(let object) = $0 else { throw RewindError(.corruptData, "an item is not an object") }
        return object
      }
    } catch {
      throw RewindError(.corruptData, "row changes are not a JSON array of objects", underlying: error as? RewindError)
    }
    return try values.enumerated().map { index, object in
      guard case .string(let table)? = object["table"] else {
        throw RewindError(.corruptData, "row change \(index) has no \"table\" string")
      }
      func row(_ name: String) throws -> RowImage? {
        switch object[name] {
        case nil, .null?: return nil
        case .object(let columns)?:
          return RowImage(try columns.mapValues { try $0.databaseValue() })
        default:
          throw RewindError(.corruptData, "row change \(index) has a \"\(name)\" that is not an object")
        }
      }
      guard let key = try row("key"), !key.isEmpty else {
        throw RewindError(.corruptData, "row change \(index) has no \"key\" object")
      }
      return RowChange(table: table, key: key, before: try row("before"), after: try row("after"))
    }
  }
}

/// Appends JSON text for the values rows hold.
///
/// The text is built as UTF-8 bytes, which is several times cheaper than appending small
/// strings; the `String` forms are for callers that build text around it.
enum JSONText {
  static func appendRow(_ row: RowImage?, to out: inout String) {
    out += String(decoding: bytes { appendRow(row, to: &$0) }, as: UTF8.self)
  }

  static func appendValue(_ value: DatabaseValue, to out: inout String) {
    out += String(decoding: bytes { appendValue(value, to: &$0) }, as: UTF8.self)
  }

  static func appendString(_ string: String, to out: inout String) {
    out += String(decoding: bytes { appendString(string, to: &$0) }, as: UTF8.self)
  }

  private static func bytes(_ body: (inout [UInt8]) -> Void) -> [UInt8] {
    var out: [UInt8] = []
    body(&out)
    return out
  }

  /// Appends a row image: its columns are in key order already, their keys written as JSON.
  static func appendRow<Out: TextOutput & ~Copyable>(_ row: RowImage?, to out: inout Out) {
    guard let row else {
      out.appendLiteral("null")
      return
    }
    out.append(UInt8(ascii: "{"))
    let columns = row.columns
    // Keys and values read in place: copying each out of its array costs a retain and a release.
    row.values.withUnsafeBufferPointer { values in
      guard let keys = columns.jsonKeys else {
        for index in values.indices {
          if index > 0 { out.append(UInt8(ascii: ",")) }
          appendString(columns.names[index], to: &out)
          out.append(UInt8(ascii: ":"))
          appendValue(values[index], to: &out)
        }
        return
      }
      keys.text.withUnsafeBufferPointer { text in
        var start = 0
        for index in values.indices {
          if index > 0 { out.append(UInt8(ascii: ",")) }
          let end = keys.ends[index]
          out.appendBytes(UnsafeBufferPointer(rebasing: text[start..<end]))
          start = end
          appendValue(values[index], to: &out)
        }
      }
    }
    out.append(UInt8(ascii: "}"))
  }

  static func appendValue<Out: TextOutput & ~Copyable>(_ value: DatabaseValue, to out: inout Out) {
    switch value.storage {
    case .null:
      out.appendLiteral("null")
    case .int64(let int):
      appendInteger(int, to: &out)
    case .double(let double):
      if double.isFinite {
        appendRaw("\(double)", to: &out)
      } else {
        appendRaw(#"{"$real":""# + (double.isNaN ? "nan" : double < 0 ? "-inf" : "inf") + #""}"#, to: &out)
      }
    case .string(let string):
      appendString(string, to: &out)
    case .blob(let data):
      appendRaw(#"{"$blob":""# + data.base64EncodedString() + #""}"#, to: &out)
    }
  }

  /// Appends text that is JSON already (a number, `null`), through its contiguous UTF-8:
  /// appending `text.utf8` goes through the view's generic iteration.
  static func appendRaw<Out: TextOutput & ~Copyable>(_ text: String, to out: inout Out) {
    var text = text
    text.withUTF8 { out.appendBytes($0) }
  }

  static func appendString<Out: TextOutput & ~Copyable>(_ string: String, to out: inout Out) {
    // Through the string's contiguous UTF-8, read in place (a native string's): a loop over a
    // buffer, and the runs between the bytes that need escaping copied whole (view-state
    // values are JSON text, full of quotes).
    if string.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &out) }) == nil {
      // A string not stored as UTF-8 (bridged): made contiguous first.
      var string = string
      string.withUTF8 { appendEscaped($0, to: &out) }
    }
  }

  /// Appends `bytes`, UTF-8, as a JSON string.
  private static func appendEscaped<Out: TextOutput & ~Copyable>(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout Out)
  {
    out.append(UInt8(ascii: "\""))
    var runStart = 0
    var index = 0
    while index < bytes.count {
      // Eight bytes at a time while none needs escaping: most text has no byte to escape, and
      // view-state values (JSON text) have long runs between their quotes. Otherwise straight
      // to the first that does.
      if index + 8 <= bytes.count {
        let flags = escapeFlags(UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
        if flags == 0 {
          index += 8
          continue
        }
        index += flags.trailingZeroBitCount &>> 3
      }
      let byte = bytes[index]
      index += 1
      guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
      let escaped = index - 1
      if runStart < escaped { out.appendBytes(UnsafeBufferPointer(rebasing: bytes[runStart..<escaped])) }
      runStart = index
      out.append(UInt8(ascii: "\\"))
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
      case UInt8(ascii: "\n"): out.append(UInt8(ascii: "n"))
      case UInt8(ascii: "\r"): out.append(UInt8(ascii: "r"))
      case UInt8(ascii: "\t"): out.append(UInt8(ascii: "t"))
      default:
        let hex = String(byte, radix: 16)
        appendRaw("u" + String(repeating: "0", count: 4 - hex.count) + hex, to: &out)
      }
    }
    if runStart < bytes.count { out.appendBytes(UnsafeBufferPointer(rebasing: bytes[runStart...])) }
    out.append(UInt8(ascii: "\""))
  }

  /// The high bit of each of the eight bytes of `word` (read little-endian: the first byte is
  /// the lowest) that is a control character, a quote or a backslash; zero when none is.
  ///
  /// Each test is the classic "has a zero byte" one: exact about whether any byte matches, and
  /// about the first that does (a borrow may flag bytes after it, never before).
  @inline(__always)
  static func escapeFlags(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highBits: UInt64 = 0x8080_8080_8080_8080
    let control = (word &- 0x20 &* ones) & ~word
    let quote = word ^ (UInt64(UInt8(ascii: "\"")) &* ones)
    let backslash = word ^ (UInt64(UInt8(ascii: "\\")) &* ones)
    return (control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highBits
  }

  /// Appends the decimal digits of `value`, as `String(value)` writes them.
  static func appendInteger<Out: TextOutput & ~Copyable>(_ value: Int64, to out: inout Out) {
    if value < 0 { out.append(UInt8(ascii: "-")) }
    var magnitude = value.magnitude
    // At most 20 digits; written from the end of a small buffer, then copied.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = 20
      repeat {
        start -= 1
        digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
      } while magnitude > 0
      out.appendBytes(UnsafeBufferPointer(rebasing: digits[start...]))
    }
  }
}

/// Any JSON value, for reading JSON whose shape is only known at run time.
enum JSONValue: Codable, Hashable, Sendable {
  case null
  case bool(Bool)
  case integer(Int64)
  case real(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let bool = try? container.decode(Bool.self) {
      self = .bool(bool)
    } else if let int = try? container.decode(Int64.self) {
      self = .integer(int)
    } else if let double = try? container.decode(Double.self) {
      self = .real(double)
    } else if let string = try? container.decode(String.self) {
      self = .string(string)
    } else if let array = try? container.decode([JSONValue].self) {
      self = .array(array)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let bool): try container.encode(bool)
    case .integer(let int): try container.encode(int)
    case .real(let double): try container.encode(double)
    case .string(let string): try container.encode(string)
    case .array(let array): try container.encode(array)
    case .object(let object): try container.encode(object)
    }
  }

  /// The SQLite value this JSON value stands for in a row.
  func databaseValue() throws -> DatabaseValue {
    switch self {
    case .null: return .null
    case .bool(let bool): return bool.databaseValue
    case .integer(let int): return int.databaseValue
    case .real(let double): return double.databaseValue
    case .string(let string): return string.databaseValue
    case .object(let object):
      if object.count == 1, case .string(let base64)? = object["$blob"],
        let data = Data(base64Encoded: base64)
      {
        return data.databaseValue
      }
      if object.count == 1, case .string(let special)? = object["$real"] {
        switch special {
        case "inf": return Double.infinity.databaseValue
        case "-inf": return (-Double.infinity).databaseValue
        case "nan": return Double.nan.databaseValue
        default: break
        }
      }
      throw RewindError(.corruptData, "a row value is an object that is neither $blob nor $real")
    case .array:
      throw RewindError(.corruptData, "a row value is an array; rows hold SQLite values only")
    }
  }
}
