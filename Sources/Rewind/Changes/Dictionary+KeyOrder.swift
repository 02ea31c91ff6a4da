import GRDB

extension Dictionary where Key == String, Value == DatabaseValue {
  /// Calls `body` with each column of this row in key order, and its place in that order.
  ///
  /// Rows are a handful of columns, each written to the log on every action: up to 16, their
  /// indices are sorted in a buffer on the stack (an insertion sort), where `sorted(by:)` would
  /// copy every column and value into a new array, retaining each, and release them all after.
  func forEachInKeyOrder(_ body: (_ place: Int, _ column: String, _ value: DatabaseValue) -> Void) {
    guard !isEmpty else { return }
    // An insertion sort compares about n²/4 pairs: past 16 columns, sort a copy.
    guard count <= 16 else {
      for (place, column) in sorted(by: { $0.key < $1.key }).enumerated() { body(place, column.key, column.value) }
      return
    }
    withUnsafeTemporaryAllocation(of: Index.self, capacity: count) { buffer in
      let order = buffer.baseAddress!
      var sorted = 0
      // (An index may hold a reference, as a bridged dictionary's does on Apple platforms:
      // the buffer's elements are initialized, moved and deinitialized, never assigned.)
      defer { order.deinitialize(count: sorted) }
      var index = startIndex
      while index != endIndex {
        let column = keys[index]
        var place = sorted
        while place > 0, column < keys[order[place - 1]] { place -= 1 }
        (order + place + 1).moveInitialize(from: order + place, count: sorted - place)
        (order + place).initialize(to: index)
        sorted += 1
        formIndex(after: &index)
      }
      for place in 0..<sorted {
        let (column, value) = self[order[place]]
        body(place, column, value)
      }
    }
  }
}
