import Testing

@testable import Rewind

/// The halving search the sorted members, list positions and undo steps are looked up with
/// agrees with a look at every element, on sorted arrays with repeats and on slices.
struct PartitioningIndexTests {
  @Test(arguments: 0..<40)
  func agreesWithALookAtEveryElement(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    let values = (0..<Int(random.next() % 30)).map { _ in Int(random.next() % 12) }.sorted()
    for bound in -1...13 {
      #expect(values.partitioningIndex { $0 >= bound } == (values.firstIndex { $0 >= bound } ?? values.endIndex))
      let slice = values.dropFirst(values.count / 3)
      #expect(slice.partitioningIndex { $0 > bound } == (slice.firstIndex { $0 > bound } ?? slice.endIndex))
    }
  }
}
