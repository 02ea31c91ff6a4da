import GRDB

extension DatabaseValue {
  /// Whether the two values are the same to SQLite: text compared by its bytes, where `==`
  /// compares Swift strings by canonical equivalence ("é" composed equals "e" and a combining
  /// accent), which SQLite's keys tell apart.
  @usableFromInline
  func isSameBytes(as other: DatabaseValue) -> Bool {
    if case .string(let text) = storage, case .string(let otherText) = other.storage {
      return text.utf8.elementsEqual(otherText.utf8)
    }
    return self == other
  }

  /// Whether SQLite stores the two values alike: the same storage class, and the same value
  /// (text and blobs by their bytes). GRDB's `==` takes `1` and `1.0` for equal, which a TEXT
  /// or untyped column stores apart.
  @usableFromInline
  func isStoredAlike(_ other: DatabaseValue) -> Bool {
    switch (storage, other.storage) {
    case (.null, .null): true
    case (.int64(let value), .int64(let otherValue)): value == otherValue
    case (.double(let value), .double(let otherValue)): value == otherValue
    case (.string(let text), .string(let otherText)): text.utf8.elementsEqual(otherText.utf8)
    case (.blob(let data), .blob(let otherData)): data == otherData
    default: false
    }
  }
}
