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

  @Test func rejectsMalformedKeys() {
    #expect(!PositionKey.isValid(""))
    #expect(!PositionKey.isValid("a"))  // integer part too short
    #expect(!PositionKey.isValid("a0!"))
    #expect(!PositionKey.isValid("a00"))  // fraction ends with zero
    #expect(PositionKey.isValid("a0"))
    #expect(PositionKey.isValid("b12V"))
  }
}
