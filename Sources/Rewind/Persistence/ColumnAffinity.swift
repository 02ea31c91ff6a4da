import Foundation
import GRDB

/// A column's type affinity: what SQLite converts a value written to it into
/// (<https://sqlite.org/datatype3.html#type_affinity>).
///
/// An entity's row is logged, and read back into memory, as the table will store it: text
/// written to a `NUMERIC` column that reads as a number (a `Decimal`, which GRDB writes as
/// text) is stored as that number, and a number written to a `TEXT` column as text. Logging
/// the row as encoded made the log disagree with the table (`verify` failed, so compaction and
/// `rebuild-tables` were refused) and memory with a reopen.
@usableFromInline
enum ColumnAffinity: Sendable {
  case text, numeric, integer, real
  /// No conversion: `BLOB` or no declared type, and `ANY` in a `STRICT` table.
  case none

  /// The affinity of a column declared `type`, by SQLite's rules, in their order.
  init(declaredType type: String, strict: Bool) {
    let type = type.uppercased()
    if strict && type == "ANY" {
      self = .none
    } else if type.contains("INT") {
      self = .integer
    } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
      self = .text
    } else if type.contains("BLOB") || type.isEmpty {
      self = .none
    } else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
      self = .real
    } else {
      self = .numeric
    }
  }

  /// The value a column of this affinity stores when `value` is written to it, or `nil` when
  /// that is `value` itself (most values: text to a text column, an integer to an integer one).
  @inlinable
  func converting(_ value: DatabaseValue) throws -> DatabaseValue? {
    switch value.storage {
    case .null, .blob: return nil
    case .string: if self == .text || self == .none { return nil }
    case .int64: if self == .integer || self == .numeric || self == .none { return nil }
    case .double(let real): if self == .none || (self == .real && !(real == 0 && real.sign == .minus)) { return nil }
    }
    return try convertingApart(value)
  }

  /// The conversions themselves, out of the inlined check.
  @usableFromInline
  func convertingApart(_ value: DatabaseValue) throws -> DatabaseValue? {
    switch (self, value.storage) {
    case (.text, .int64(let integer)):
      return String(integer).databaseValue
    case (.real, .int64(let integer)):
      return Double(integer).databaseValue
    case (.real, .double):
      return (0.0).databaseValue  // negative zero: stored as the integer 0, read back as 0.0
    case (.numeric, .double(let real)), (.integer, .double(let real)):
      return Self.integer(exactly: real)?.databaseValue
    case (.text, .double), (.numeric, .string), (.integer, .string), (.real, .string):
      if case .string(let text) = value.storage, !Self.mayReadAsNumber(text) { return nil }
      let stored = try Self.storedBySQLite(value, in: self)
      return stored.isStoredAlike(value) ? nil : stored
    default:
      return nil
    }
  }

  /// The integer SQLite stores a real as in a numeric column (`sqlite3VdbeIntegerAffinity`):
  /// one it converts to and back exactly, neither the smallest nor the largest integer.
  static func integer(exactly real: Double) -> Int64? {
    guard real > -9.223_372_036_854_775_808e18, real < 9.223_372_036_854_775_808e18 else { return nil }
    let integer = Int64(real)
    guard Double(integer) == real, integer != .min, integer != .max else { return nil }
    return integer
  }

  /// Whether SQLite may read `text` as a number: a digit, and no character a number cannot
  /// hold (digits, a point, signs, an exponent's `e`, white space). Any other text is stored
  /// as it is; this spares SQLite's look at the common case (names, GRDB's dates).
  static func mayReadAsNumber(_ text: String) -> Bool {
    var digit = false
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = true
      case UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "e"), UInt8(ascii: "E"), 0x20,
        0x09...0x0D:
        continue
      default: return false
      }
    }
    return digit
  }

  /// The value SQLite stores, found by SQLite: written to a column of this affinity in a
  /// table of its own, in memory. (Text read as a number and a real written as text follow
  /// rules of SQLite's own parser and printer, which a copy would only approximate.)
  static func storedBySQLite(_ value: DatabaseValue, in affinity: ColumnAffinity) throws -> DatabaseValue {
    let column: String
    switch affinity {
    case .text: column = "text"
    case .numeric: column = "numeric"
    case .integer: column = "integer"
    case .real: column = "real"
    case .none: return value
    }
    let converter = try converter.get()
    return try converter.queue.inDatabase { db in
      // A row's before-image holds what its last after-image did: the same values, met again.
      if let stored = converter.recent[Converted(affinity: affinity, value: value)] { return stored }
      try db.cachedStatement(sql: "UPDATE affinity SET \(column) = ?").execute(arguments: [value])
      let stored = try DatabaseValue.fetchOne(db.cachedStatement(sql: "SELECT \(column) FROM affinity")) ?? .null
      if converter.recent.count >= 256 { converter.recent.removeAll(keepingCapacity: true) }
      converter.recent[Converted(affinity: affinity, value: value)] = stored
      return stored
    }
  }

  /// The in-memory database whose one row takes each value to convert, and the values it
  /// converted last (read and written on its queue only).
  private final class Converter: @unchecked Sendable {
    let queue: DatabaseQueue
    var recent: [Converted: DatabaseValue] = [:]

    init() throws {
      queue = try DatabaseQueue()
      try queue.write { db in
        try db.execute(
          sql: """
            CREATE TABLE affinity (text TEXT, numeric NUMERIC, integer INTEGER, real REAL);
            INSERT INTO affinity DEFAULT VALUES;
            """)
      }
    }
  }

  /// A value converted by a column of an affinity: text (of ASCII digits and signs only, so
  /// `==` compares its bytes) or a real, by its bits (`-0.0` is written as text apart from 0).
  private struct Converted: Hashable {
    var affinity: ColumnAffinity
    var text: String?
    var bits: UInt64?

    init(affinity: ColumnAffinity, value: DatabaseValue) {
      self.affinity = affinity
      switch value.storage {
      case .string(let text): self.text = text
      case .double(let real): bits = real.bitPattern
      default: break
      }
    }
  }

  private static let converter = Result<Converter, any Error> { try Converter() }
}
