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
    switch (lower, upper) {
    case (nil, nil):
      return first
    case (nil, let upper?):
      let integer = integerPart(upper)
      let fraction = Array(upper.utf8.dropFirst(integer.count))
      if integer == Array(smallestInteger.utf8) {
        return string(integer + midpoint([], fraction))
      }
      if integer.lexicographicallyPrecedes(Array(upper.utf8)) {
        return string(integer)
      }
      guard let decremented = decrement(integer) else {
        preconditionFailure("cannot decrement position key \(upper)")
      }
      return string(decremented)
    case (let lower?, nil):
      let integer = integerPart(lower)
      let fraction = Array(lower.utf8.dropFirst(integer.count))
      if let incremented = increment(integer) { return string(incremented) }
      return string(integer + midpoint(fraction, nil))
    case (let lower?, let upper?):
      precondition(lower < upper, "position keys out of order: \(lower) >= \(upper)")
      let integerLower = integerPart(lower)
      let fractionLower = Array(lower.utf8.dropFirst(integerLower.count))
      let integerUpper = integerPart(upper)
      let fractionUpper = Array(upper.utf8.dropFirst(integerUpper.count))
      if integerLower == integerUpper {
        return string(integerLower + midpoint(fractionLower, fractionUpper))
      }
      if let incremented = increment(integerLower),
        incremented.lexicographicallyPrecedes(Array(upper.utf8))
      {
        return string(incremented)
      }
      return string(integerLower + midpoint(fractionLower, nil))
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
    let bytes = key.utf8
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

  /// A fraction strictly between fractions `a` and `b` (`b == nil` means 1).
  private static func midpoint(_ a: [UInt8], _ b: [UInt8]?) -> [UInt8] {
    if let b {
      // Skip the common prefix.
      var n = 0
      while n < b.count, (n < a.count ? a[n] : zero) == b[n] { n += 1 }
      if n > 0 {
        return Array(b[..<n]) + midpoint(Array(a.dropFirst(n)), Array(b.dropFirst(n)))
      }
    }
    let digitA = a.first.flatMap(digitIndex) ?? 0
    let digitB = b.flatMap { $0.first.flatMap(digitIndex) } ?? digits.count
    if digitB - digitA > 1 {
      return [digits[(digitA + digitB + 1) / 2]]
    }
    if let b, b.count > 1 {
      return [b[0]]
    }
    return [digits[digitA]] + midpoint(Array(a.dropFirst()), nil)
  }

  private static func integerLength(_ head: UInt8) -> Int? {
    switch head {
    case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(head - UInt8(ascii: "a")) + 2
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(UInt8(ascii: "Z") - head) + 2
    default: nil
    }
  }

  private static func integerPart(_ key: String) -> [UInt8] {
    let bytes = Array(key.utf8)
    guard let length = integerLength(bytes[0]), length <= bytes.count else {
      preconditionFailure("invalid position key \(key)")
    }
    return Array(bytes[..<length])
  }

  private static func increment(_ integer: [UInt8]) -> [UInt8]? {
    var head = integer[0]
    var body = Array(integer.dropFirst())
    for i in body.indices.reversed() {
      let next = digitIndex(body[i])! + 1
      if next < digits.count {
        body[i] = digits[next]
        return [head] + body
      }
      body[i] = zero
    }
    // Every digit carried: the integer part grows (or shrinks, for negative heads).
    if head == UInt8(ascii: "Z") { return [UInt8(ascii: "a"), zero] }
    if head == UInt8(ascii: "z") { return nil }
    head += 1
    if head > UInt8(ascii: "a") { body.append(zero) } else { body.removeLast() }
    return [head] + body
  }

  private static func decrement(_ integer: [UInt8]) -> [UInt8]? {
    var head = integer[0]
    var body = Array(integer.dropFirst())
    let top = digits[digits.count - 1]
    for i in body.indices.reversed() {
      let index = digitIndex(body[i])!
      if index > 0 {
        body[i] = digits[index - 1]
        return [head] + body
      }
      body[i] = top
    }
    if head == UInt8(ascii: "a") { return [UInt8(ascii: "Z"), top] }
    if head == UInt8(ascii: "A") { return nil }
    head -= 1
    if head < UInt8(ascii: "Z") { body.append(top) } else { body.removeLast() }
    return [head] + body
  }

  private static func digitIndex(_ byte: UInt8) -> Int? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A")) + 10
    case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a")) + 36
    default: nil
    }
  }

  private static func string(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self)
  }
}
