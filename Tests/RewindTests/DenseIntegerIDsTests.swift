import Foundation
import Testing

@testable import Rewind

/// The dangling-entry check of an open looks list members up in a bit set of the table's ids
/// when they are integers close together: it must answer as the table would, for every id.
struct DenseIntegerIDsTests {
  @Test func answersAsASetOfTheSameIdsDoes() throws {
    var generator = SystemRandomNumberGenerator()
    var built = 0
    for round in 0..<300 {
      let base = [Int64.min, -1_000, 0, 1, Int64.max - 5_000][round % 5]
      let spread: Int64 = [10, 64, 200, 5_000][(round / 5) % 4]
      let count = Int.random(in: 1...60, using: &generator)
      let ids = Set((0..<count).map { _ in base &+ Int64.random(in: 0...spread, using: &generator) })
      let span = UInt64(bitPattern: ids.max()! &- ids.min()!)
      let set = DenseIntegerIDs(ids)
      #expect((set != nil) == (span / 64 <= UInt64(ids.count)), "ids \(ids.sorted())")
      guard let set else { continue }
      built += 1
      let probes =
        Array(ids) + [ids.min()! &- 1, ids.max()! &+ 1, Int64.min, Int64.max, 0]
        + (0..<40).map { _ in base &+ Int64.random(in: -70...(spread + 70), using: &generator) }
      for probe in probes {
        #expect(set.contains(probe) == ids.contains(probe), "\(probe) in \(ids.sorted())")
      }
    }
    #expect(built > 100, "too few sets were dense enough to be built: \(built)")
  }

  @Test func intIdsAreSetsTooAndOtherTypesAreNot() {
    let set = DenseIntegerIDs([3, 5, 8] as [Int])
    #expect(set != nil)
    #expect([3, 5, 8].allSatisfy { set?.contains($0) == true })
    #expect([2, 4, 9, -3].allSatisfy { set?.contains($0) == false })
    #expect(DenseIntegerIDs([UUID()]) == nil)
    #expect(DenseIntegerIDs(["a", "b"]) == nil)
    #expect(DenseIntegerIDs([Int64]()) == nil)
    // Other integer types and wrappers are looked up in the table.
    #expect(DenseIntegerIDs([1, 2] as [Int32]) == nil)
    #expect(DenseIntegerIDs([1, 2] as [UInt64]) == nil)
    #expect(DenseIntegerIDs([WrappedID(rawValue: 1)]) == nil)
  }

  struct WrappedID: RawRepresentable, Hashable { var rawValue: Int64 }

  @Test func idsSpreadOverMoreThan64ValuesEachGetNoSet() {
    #expect(DenseIntegerIDs([0, 64] as [Int64]) != nil)
    #expect(DenseIntegerIDs([0, 128] as [Int64]) != nil)
    #expect(DenseIntegerIDs([0, 192] as [Int64]) == nil)
    #expect(DenseIntegerIDs([Int64.min, Int64.max]) == nil)
  }
}
