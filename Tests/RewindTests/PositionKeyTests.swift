import Testing

@testable import Rewind

struct PositionKeyTests {
  @Test func appendingKeepsKeysShortAndOrdered() {
    var keys = [PositionKey.between(nil, nil)]
    for _ in 0..<10_000 { keys.append(PositionKey.between(keys.last, nil)) }
    #expect(keys == keys.sorted())
    #expect(Set(keys).count == keys.count)
    #expect(keys.allSatisfy(PositionKey.isValid))
    // Appends grow the integer part logarithmically: 10,000 appends need at most 4 characters.
    #expect(keys.map(\.count).max()! <= 4)
  }

  @Test func prependingKeepsOrder() {
    var keys = [PositionKey.between(nil, nil)]
    for _ in 0..<5_000 { keys.insert(PositionKey.between(nil, keys.first), at: 0) }
    #expect(keys == keys.sorted())
    #expect(keys.allSatisfy(PositionKey.isValid))
  }

  @Test func insertingBetweenNeighboursAlwaysFindsAKey() {
    // Repeatedly insert right after the first key: the worst case for fraction length.
    var keys = [PositionKey.between(nil, nil)]
    keys.append(PositionKey.between(keys[0], nil))
    for _ in 0..<500 {
      let key = PositionKey.between(keys[0], keys[1])
      #expect(keys[0] < key && key < keys[1])
      keys.insert(key, at: 1)
    }
    #expect(keys == keys.sorted())
    #expect(Set(keys).count == keys.count)
    #expect(keys.allSatisfy(PositionKey.isValid))
  }

  @Test func spreadKeysAreOrderedWithinTheirBoundsAndShort() {
    let a0 = PositionKey.between(nil, nil)
    let a1 = PositionKey.between(a0, nil)
    // Neighbours many splits deep, as repeated moves into one spot leave them.
    var deep = [a0, a1]
    for _ in 0..<200 { deep.insert(PositionKey.between(deep[0], deep[1]), at: 1) }
    let bounds: [(String?, String?)] = [(nil, nil), (a0, nil), (nil, a0), (a0, a1), (deep[0], deep[1]), (deep[1], a1)]
    for (lower, upper) in bounds {
      for count in [0, 1, 2, 17, 33, 200] {
        let keys = PositionKey.spread(count, between: lower, upper)
        #expect(keys.count == count)
        #expect(keys == keys.sorted() && Set(keys).count == count)
        #expect(keys.allSatisfy(PositionKey.isValid))
        if let lower, let first = keys.first { #expect(lower < first) }
        if let upper, let last = keys.last { #expect(last < upper) }
        // At most a few digits longer than the longer bound.
        let longest = max(lower?.utf8.count ?? 2, upper?.utf8.count ?? 2)
        #expect(
          keys.allSatisfy { $0.utf8.count <= longest + 3 }, "\(count) between \(lower ?? "nil") and \(upper ?? "nil")")
      }
    }
  }

  @Test func rejectsMalformedKeys() {
    #expect(!PositionKey.isValid(""))
    #expect(!PositionKey.isValid("a"))  // integer part too short
    #expect(!PositionKey.isValid("a0!"))
    #expect(!PositionKey.isValid("a00"))  // fraction ends with zero
    #expect(!PositionKey.isValid("b1"))  // a `b` head has two integer digits
    #expect(!PositionKey.isValid("a0é"))  // a byte of no digit, past ASCII
    #expect(!PositionKey.isValid("0a"))  // no integer head
    #expect(PositionKey.isValid("a0"))
    #expect(PositionKey.isValid("b12V"))
  }

  /// The key between any two keys a list can hold is the one the array-building version of
  /// release 0.5 gives (``ReferencePositionKey``): keys written before are not written again
  /// differently, and a reload compares them as they were. Bounds come from random appends,
  /// prepends and inserts, many splits deep, and include the smallest integer part and keys
  /// whose integer part must widen or narrow.
  @Test(arguments: [1, 2, 3, 4])
  func betweenAgreesWithTheArrayBuildingModel(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    var keys = [PositionKey.between(nil, nil)]
    for _ in 0..<3_000 {
      let index = Int.random(in: 0...keys.count, using: &random)
      let lower = index == 0 ? nil : keys[index - 1]
      let upper = index == keys.count ? nil : keys[index]
      let key = PositionKey.between(lower, upper)
      #expect(key == ReferencePositionKey.between(lower, upper), "between \(lower ?? "nil") and \(upper ?? "nil")")
      keys.insert(key, at: index)
    }
    #expect(keys == keys.sorted() && Set(keys).count == keys.count)
    let edges = [
      PositionKey.smallestInteger, PositionKey.smallestInteger + "1", "Zz", "Zzz", "a0", "az", "azz", "b00", "bzz",
      "z" + String(repeating: "z", count: 25) + "y", "a0zzzz", "a0V", "a01",
    ]
    for lower in [nil] + edges {
      for upper in [nil] + edges {
        // Ordered bounds only, and none below the smallest key.
        if let lower, let upper, lower >= upper { continue }
        if lower == nil, upper == PositionKey.smallestInteger { continue }
        #expect(PositionKey.between(lower, upper) == ReferencePositionKey.between(lower, upper))
      }
    }
  }
}
