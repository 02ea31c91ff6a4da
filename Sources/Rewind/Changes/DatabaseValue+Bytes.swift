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
}
