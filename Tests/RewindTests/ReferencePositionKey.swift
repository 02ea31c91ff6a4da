import Testing

@testable import Rewind

/// `PositionKey.between` as release 0.5 wrote it, building arrays: the model the in-place
/// version must agree with, key for key, since keys are stored and compared across releases.
enum ReferencePositionKey {
  static func between(_ lower: String?, _ upper: String?) -> String {
    switch (lower, upper) {
    case (nil, nil):
      return PositionKey.first
    case (nil, let upper?):
      let integer = integerPart(upper)
      let fraction = Array(upper.utf8.dropFirst(integer.count))
      if integer == Array(PositionKey.smallestInteger.utf8) {
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

  /// A fraction strictly between fractions `a` and `b` (`b == nil` means 1).
  static func midpoint(_ a: [UInt8], _ b: [UInt8]?) -> [UInt8] {
    if let b {
      // Skip the common prefix.
      var n = 0
      while n < b.count, (n < a.count ? a[n] : PositionKey.zero) == b[n] { n += 1 }
      if n > 0 {
        return Array(b[..<n]) + midpoint(Array(a.dropFirst(n)), Array(b.dropFirst(n)))
      }
    }
    let digitA = a.first.flatMap(digitIndex) ?? 0
    let digitB = b.flatMap { $0.first.flatMap(digitIndex) } ?? PositionKey.digits.count
    if digitB - digitA > 1 {
      return [PositionKey.digits[(digitA + digitB + 1) / 2]]
    }
    if let b, b.count > 1 {
      return [b[0]]
    }
    return [PositionKey.digits[digitA]] + midpoint(Array(a.dropFirst()), nil)
  }

  static func integerLength(_ head: UInt8) -> Int? {
    switch head {
    case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(head - UInt8(ascii: "a")) + 2
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(UInt8(ascii: "Z") - head) + 2
    default: nil
    }
  }

  static func integerPart(_ key: String) -> [UInt8] {
    let bytes = Array(key.utf8)
    guard let length = integerLength(bytes[0]), length <= bytes.count else {
      preconditionFailure("invalid position key \(key)")
    }
    return Array(bytes[..<length])
  }

  static func increment(_ integer: [UInt8]) -> [UInt8]? {
    var head = integer[0]
    var body = Array(integer.dropFirst())
    for i in body.indices.reversed() {
      let next = digitIndex(body[i])! + 1
      if next < PositionKey.digits.count {
        body[i] = PositionKey.digits[next]
        return [head] + body
      }
      body[i] = PositionKey.zero
    }
    // Every digit carried: the integer part grows (or shrinks, for negative heads).
    if head == UInt8(ascii: "Z") { return [UInt8(ascii: "a"), PositionKey.zero] }
    if head == UInt8(ascii: "z") { return nil }
    head += 1
    if head > UInt8(ascii: "a") { body.append(PositionKey.zero) } else { body.removeLast() }
    return [head] + body
  }

  static func decrement(_ integer: [UInt8]) -> [UInt8]? {
    var head = integer[0]
    var body = Array(integer.dropFirst())
    let top = PositionKey.digits[PositionKey.digits.count - 1]
    for i in body.indices.reversed() {
      let index = digitIndex(body[i])!
      if index > 0 {
        body[i] = PositionKey.digits[index - 1]
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

  static func digitIndex(_ byte: UInt8) -> Int? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A")) + 10
    case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a")) + 36
    default: nil
    }
  }

  static func string(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self)
  }
}
