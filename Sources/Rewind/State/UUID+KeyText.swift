import Foundation
import GRDB

// A UUID key's text is written at every change of its row and of each list entry naming it,
// and read for every list entry when a store opens. Foundation on Linux formats a UUID with
// `snprintf` and parses one with `sscanf`: about 3,000 and 10,000 instructions a key, as
// much as the rest of opening a row. These do the same in a few hundred.

extension UUID {
  /// The UUID as text, in `uuidString`'s form: 36 characters, hexadecimal digits in groups of
  /// 8-4-4-4-12 joined by hyphens; in uppercase (as `uuidString`) or lowercase.
  @usableFromInline
  func keyText(lowercase: Bool) -> String {
    let digits: StaticString = lowercase ? "0123456789abcdef" : "0123456789ABCDEF"
    return withUnsafeBytes(of: uuid) { bytes in
      String(unsafeUninitializedCapacity: 36) { text in
        var written = 0
        for (index, byte) in bytes.enumerated() {
          if index == 4 || index == 6 || index == 8 || index == 10 {
            text[written] = UInt8(ascii: "-")
            written += 1
          }
          text[written] = digits.utf8Start[Int(byte &>> 4)]
          text[written + 1] = digits.utf8Start[Int(byte & 0x0F)]
          written += 2
        }
        return written
      }
    }
  }

  /// Parses `text` as `UUID(uuidString:)` does. Text in `uuidString`'s form (either case) is
  /// parsed here; anything else is left to Foundation, so that what is accepted does not change.
  @usableFromInline
  init?(keyText text: String) {
    if let uuid = text.utf8.withContiguousStorageIfAvailable(Self.parseKeyText), let uuid {
      self = uuid
    } else if let uuid = UUID(uuidString: text) {
      self = uuid
    } else {
      return nil
    }
  }

  /// The UUID `utf8` spells in `uuidString`'s form, in either case; `nil` for anything else.
  static func parseKeyText(_ utf8: UnsafeBufferPointer<UInt8>) -> UUID? {
    guard utf8.count == 36 else { return nil }
    var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    let parsed = withUnsafeMutableBytes(of: &bytes) { bytes -> Bool in
      var read = 0
      for index in 0..<16 {
        if index == 4 || index == 6 || index == 8 || index == 10 {
          guard utf8[read] == UInt8(ascii: "-") else { return false }
          read += 1
        }
        guard let high = hexDigit(utf8[read]), let low = hexDigit(utf8[read + 1]) else { return false }
        bytes[index] = high &<< 4 | low
        read += 2
      }
      return true
    }
    return parsed ? UUID(uuid: bytes) : nil
  }

  @inline(__always)
  private static func hexDigit(_ character: UInt8) -> UInt8? {
    switch character {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): character &- UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): character &- UInt8(ascii: "A") &+ 10
    case UInt8(ascii: "a")...UInt8(ascii: "f"): character &- UInt8(ascii: "a") &+ 10
    default: nil
    }
  }
}

extension DatabaseValueConvertible {
  /// `fromDatabaseValue(_:)` for a key the engine reads by the thousand (list entries as a
  /// store opens): a `UUID` key's text is parsed by ``UUID/init(keyText:)``.
  @inlinable
  static func fromKeyValue(_ value: DatabaseValue) -> Self? {
    if Self.self == UUID.self, case .string(let text) = value.storage {
      return UUID(keyText: text) as? Self
    }
    return fromDatabaseValue(value)
  }
}
