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
    var out = "["
    for (index, change) in changes.enumerated() {
      if index > 0 { out += "," }
      out += #"{"table":"#
      JSONText.appendString(change.table, to: &out)
      out += #","key":"#
      JSONText.appendRow(change.key, to: &out)
      out += #","before":"#
      JSONText.appendRow(change.before, to: &out)
      out += #","after":"#
      JSONText.appendRow(change.after, to: &out)
      out += "}"
    }
    out += "]"
    return out
  }

  /// Decodes the JSON text of `action_log.changes`.
  ///
  /// - Throws: ``RewindError/Code/corruptData`` naming what is malformed.
  public static func decodeJSON(_ text: String) throws -> [RowChange] {
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
      func row(_ name: String) throws -> [String: DatabaseValue]? {
        switch object[name] {
        case nil, .null?: return nil
        case .object(let columns)?:
          return try columns.mapValues { try $0.databaseValue() }
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
enum JSONText {
  static func appendRow(_ row: [String: DatabaseValue]?, to out: inout String) {
    guard let row else {
      out += "null"
      return
    }
    out += "{"
    for (index, column) in row.keys.sorted().enumerated() {
      if index > 0 { out += "," }
      appendString(column, to: &out)
      out += ":"
      appendValue(row[column]!, to: &out)
    }
    out += "}"
  }

  static func appendValue(_ value: DatabaseValue, to out: inout String) {
    switch value.storage {
    case .null:
      out += "null"
    case .int64(let int):
      out += String(int)
    case .double(let double):
      if double.isFinite {
        out += "\(double)"
      } else {
        out += #"{"$real":""# + (double.isNaN ? "nan" : double < 0 ? "-inf" : "inf") + #""}"#
      }
    case .string(let string):
      appendString(string, to: &out)
    case .blob(let data):
      out += #"{"$blob":""# + data.base64EncodedString() + #""}"#
    }
  }

  static func appendString(_ string: String, to out: inout String) {
    out += "\""
    // Fast path: most strings need no escaping.
    if string.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
      out += string
    } else {
      for scalar in string.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20:
          out +=
            "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
            + String(scalar.value, radix: 16)
        default: out.unicodeScalars.append(scalar)
        }
      }
    }
    out += "\""
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
