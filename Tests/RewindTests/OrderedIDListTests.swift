import Foundation
import Testing

@testable import Rewind

struct OrderedIDListTests {
  /// Random inserts, moves and removals agree with a plain array, across chunk splits.
  @Test func agreesWithAnArrayModel() {
    var generator = SplitMix64(seed: 42)
    var list = OrderedIDList<Int64>()
    var model: [Int64] = []
    var nextID: Int64 = 1
    for _ in 0..<6_000 {
      switch generator.next() % 4 {
      case 0, 1:
        let offset = Int(generator.next() % UInt64(model.count + 1))
        list.insert(nextID, at: offset)
        model.insert(nextID, at: offset)
        nextID += 1
      case 2 where !model.isEmpty:
        let id = model[Int(generator.next() % UInt64(model.count))]
        let offset = Int(generator.next() % UInt64(model.count))
        list.move(id, to: offset)
        model.removeAll { $0 == id }
        model.insert(id, at: offset)
      case 3 where !model.isEmpty:
        let id = model[Int(generator.next() % UInt64(model.count))]
        list.remove(id)
        model.removeAll { $0 == id }
      default:
        break
      }
    }
    #expect(model.count > OrderedIDList<Int64>.chunkCapacity * 2)  // several chunks
    #expect(list.ids == model)
    #expect(Array(list) == model)
    #expect(list.count == model.count)
    for (offset, id) in model.enumerated() where offset % 97 == 0 {
      #expect(list.firstIndex(of: id) == offset)
      #expect(list[offset] == id)
    }
  }

  @Test func movingOneItemChangesOneKey() {
    var list = OrderedIDList<Int64>(1...2_000)
    _ = list.takeChanges()
    list.move(1_500, to: 3)
    let changes = list.takeChanges()
    #expect(changes.count == 1)
    #expect(changes.first?.id == 1_500)
    #expect(list.firstIndex(of: 1_500) == 3)
  }

  @Test func changesAreNetForTheAction() {
    var list = OrderedIDList<Int64>([1, 2, 3])
    _ = list.takeChanges()
    list.append(4)
    list.remove(4)  // added and removed in one action: no change
    list.move(1, to: 2)
    list.move(1, to: 0)  // back where it was: no change
    #expect(list.takeChanges().isEmpty)
  }

  @Test func decodingRejectsDuplicates() throws {
    let data = Data("[1,2,1]".utf8)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(OrderedIDList<Int64>.self, from: data) }
  }
}

/// A small deterministic random number generator for repeatable tests.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
