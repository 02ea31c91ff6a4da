/// Fractional index keys: strings whose byte order is the list order.
///
/// A key can always be generated between two others, so inserting or moving one item of an
/// order list writes that item's row only. Keys have an integer part whose first character
/// gives its length (`a0`, `a1` … `az`, `b00` …) so that appending keeps keys short, followed
/// by an optional fraction used when inserting between neighbours. This is the scheme of
/// David Greenspan's "Implementing Fractional Indexing", with a base-62 alphabet in ASCII order
/// so that SQLite's default `BINARY` collation sorts keys correctly.
@usableFromInline
enum PositionKey {
  static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
  static let zero = digits[0]
  static let first = "a0"
  /// The smallest integer part, `A` followed by 26 zeros.
  static let smallestInteger = "A" + String(repeating: "0", count: 26)

  /// A key that sorts strictly between `lower` and `upper`.
  ///
  /// - Parameters:
  ///   - lower: the key before the new one, or `nil` for the start of the list.
  ///   - upper: the key after the new one, or `nil` for the end of the list.
  /// - Precondition: `lower < upper` when both are given, and both are valid keys.
  @usableFromInline
  static func between(_ lower: String?, _ upper: String?) -> String {
    if let lower, let upper { precondition(lower < upper, "position keys out of order: \(lower) >= \(upper)") }
    // Every move and insert makes one: built from the bounds' bytes in place, straight into
    // the new string, with no array made on the way. The key is at most a digit longer than
    // the longer bound (a fraction one digit longer, or an integer part one digit wider).
    let capacity = max(lower?.utf8.count ?? 0, upper?.utf8.count ?? 0) + 2
    return withUTF8(lower) { lower in
      withUTF8(upper) { upper in
        String(unsafeUninitializedCapacity: capacity) { buffer in
          var key = KeyWriter(buffer)
          write(between: lower, upper, to: &key)
          return key.count
        }
      }
    }
  }

  /// Writes a key strictly between `lower` and `upper` (UTF-8 bytes of valid keys) to `key`.
  private static func write(
    between lower: UnsafeBufferPointer<UInt8>?, _ upper: UnsafeBufferPointer<UInt8>?, to key: inout KeyWriter
  ) {
    switch (lower, upper) {
    case (nil, nil):
      key.append(contentsOf: first.utf8)
    case (nil, let upper?):
      let integer = integerPart(upper)
      if integer.elementsEqual(smallestInteger.utf8) {
        key.append(contentsOf: integer)
        midpoint(upper[integer.count..<integer.count], upper[integer.count...], to: &key)
      } else if integer.count < upper.count {
        key.append(contentsOf: integer)
      } else if !decrement(integer, to: &key) {
        preconditionFailure("cannot decrement position key \(String(decoding: upper, as: UTF8.self))")
      }
    case (let lower?, nil):
      let integer = integerPart(lower)
      if !increment(integer, to: &key) {
        key.append(contentsOf: integer)
        midpoint(lower[integer.count...], nil, to: &key)
      }
    case (let lower?, let upper?):
      let (integerLower, integerUpper) = (integerPart(lower), integerPart(upper))
      if integerLower.elementsEqual(integerUpper) {
        key.append(contentsOf: integerLower)
        midpoint(lower[integerLower.count...], upper[integerUpper.count...], to: &key)
        return
      }
      let start = key.count
      if increment(integerLower, to: &key), key.written(from: start).lexicographicallyPrecedes(upper) { return }
      key.count = start
      key.append(contentsOf: integerLower)
      midpoint(lower[integerLower.count...], nil, to: &key)
    }
  }

  /// `count` keys in order, strictly between `lower` and `upper`, as short as the bounds allow:
  /// counting on from `lower` (or down from `upper`) when the other bound is open, else by
  /// halving the gap, so that each key is at most a few digits longer than the bounds.
  ///
  /// - Precondition: `lower < upper` when both are given, and both are valid keys.
  static func spread(_ count: Int, between lower: String?, _ upper: String?) -> [String] {
    guard count > 0 else { return [] }
    switch (lower, upper) {
    case (_, nil):
      var keys: [String] = []
      for _ in 0..<count { keys.append(between(keys.last ?? lower, nil)) }
      return keys
    case (nil, let upper?):
      var keys: [String] = []
      for _ in 0..<count { keys.append(between(nil, keys.last ?? upper)) }
      return keys.reversed()
    case (let lower?, let upper?):
      let middle = between(lower, upper)
      let below = count / 2
      return spread(below, between: lower, middle) + [middle] + spread(count - below - 1, between: middle, upper)
    }
  }

  /// Whether `key` is a well-formed position key (used to check keys read from files).
  @usableFromInline
  static func isValid(_ key: String) -> Bool {
    // Over the string's own bytes where it has them (every key read from a file): opening
    // checks every list entry's key, and the view's iterator cost 270 instructions a key.
    key.utf8.withContiguousStorageIfAvailable(isValid) ?? isValid(key.utf8)
  }

  private static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
    guard let head = bytes.first, let length = integerLength(head), bytes.count >= length
    else { return false }
    var last = head
    for byte in bytes {
      guard digitIndex(byte) != nil else { return false }
      last = byte
    }
    // A fraction never ends with the zero digit: keys would not be unique between neighbours.
    return bytes.count == length || last != zero
  }

  // MARK: - Implementation

  /// The bytes of a key being written, in the new string's buffer.
  private struct KeyWriter {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    mutating func append(_ byte: UInt8) {
      buffer[count] = byte
      count += 1
    }

    mutating func append(contentsOf bytes: some Collection<UInt8>) {
      for byte in bytes { append(byte) }
    }

    func written(from start: Int) -> Slice<UnsafeMutableBufferPointer<UInt8>> { buffer[start..<count] }
  }

  /// Calls `body` with the UTF-8 bytes of `key`, in place (a small string's on the stack).
  private static func withUTF8<R>(_ key: String?, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
    guard var key else { return body(nil) }
    return key.withUTF8 { body($0) }
  }

  /// Writes a fraction strictly between fractions `a` and `b` (`b == nil` means 1).
  private static func midpoint(
    _ a: Slice<UnsafeBufferPointer<UInt8>>, _ b: Slice<UnsafeBufferPointer<UInt8>>?, to key: inout KeyWriter
  ) {
    var (a, b) = (a, b)
    while true {
      if let upper = b {
        // Skip the common prefix.
        var n = 0
        while n < upper.count, (n < a.count ? a[a.startIndex + n] : zero) == upper[upper.startIndex + n] { n += 1 }
        if n > 0 {
          key.append(contentsOf: upper.prefix(n))
          (a, b) = (a.dropFirst(n), upper.dropFirst(n))
          continue
        }
      }
      let digitA = a.first.flatMap(digitIndex) ?? 0
      let digitB = b.flatMap { $0.first.flatMap(digitIndex) } ?? digits.count
      if digitB - digitA > 1 {
        key.append(digits[(digitA + digitB + 1) / 2])
        return
      }
      if let upper = b, upper.count > 1 {
        key.append(upper[upper.startIndex])
        return
      }
      key.append(digits[digitA])
      (a, b) = (a.dropFirst(), nil)
    }
  }

  private static func integerLength(_ head: UInt8) -> Int? {
    switch head {
    case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(head - UInt8(ascii: "a")) + 2
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(UInt8(ascii: "Z") - head) + 2
    default: nil
    }
  }

  private static func integerPart(_ key: UnsafeBufferPointer<UInt8>) -> Slice<UnsafeBufferPointer<UInt8>> {
    guard let head = key.first, let length = integerLength(head), length <= key.count else {
      preconditionFailure("invalid position key \(String(decoding: key, as: UTF8.self))")
    }
    return key[..<length]
  }

  /// Writes the integer part after `integer`, or returns `false` (having written nothing) when
  /// it is the largest.
  private static func increment(_ integer: Slice<UnsafeBufferPointer<UInt8>>, to key: inout KeyWriter) -> Bool {
    let start = key.count
    key.append(contentsOf: integer)
    let head = key.buffer[start]
    for i in (start + 1..<key.count).reversed() {
      let next = digitIndex(key.buffer[i])! + 1
      if next < digits.count {
        key.buffer[i] = digits[next]
        return true
      }
      key.buffer[i] = zero
    }
    // Every digit carried: the integer part grows (or shrinks, for negative heads).
    switch head {
    case UInt8(ascii: "Z"):
      key.count = start
      key.append(UInt8(ascii: "a"))
      key.append(zero)
    case UInt8(ascii: "z"):
      key.count = start
      return false
    default:
      key.buffer[start] = head + 1
      if head + 1 > UInt8(ascii: "a") { key.append(zero) } else { key.count -= 1 }
    }
    return true
  }

  /// Writes the integer part before `integer`, or returns `false` (having written nothing)
  /// when it is the smallest.
  private static func decrement(_ integer: Slice<UnsafeBufferPointer<UInt8>>, to key: inout KeyWriter) -> Bool {
    let start = key.count
    key.append(contentsOf: integer)
    let head = key.buffer[start]
    let top = digits[digits.count - 1]
    for i in (start + 1..<key.count).reversed() {
      let index = digitIndex(key.buffer[i])!
      if index > 0 {
        key.buffer[i] = digits[index - 1]
        return true
      }
      key.buffer[i] = top
    }
    switch head {
    case UInt8(ascii: "a"):
      key.count = start
      key.append(UInt8(ascii: "Z"))
      key.append(top)
    case UInt8(ascii: "A"):
      key.count = start
      return false
    default:
      key.buffer[start] = head - 1
      if head - 1 < UInt8(ascii: "Z") { key.append(top) } else { key.count -= 1 }
    }
    return true
  }

  private static func digitIndex(_ byte: UInt8) -> Int? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A")) + 10
    case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a")) + 36
    default: nil
    }
  }
}
