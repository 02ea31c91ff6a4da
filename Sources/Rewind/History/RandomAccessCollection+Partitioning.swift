extension RandomAccessCollection {
  /// The index of the first element for which `isAbove` holds, in a collection where it holds
  /// for no element before one for which it does (sorted, and asked whether an element is past
  /// a bound): `endIndex` if none. Halves the collection: O(log n) calls of `isAbove`.
  ///
  /// Inlinable, as the hot paths of the state's containers that call it are.
  @inlinable
  func partitioningIndex(where isAbove: (Element) throws -> Bool) rethrows -> Index {
    var (low, count) = (startIndex, self.count)
    while count > 0 {
      let half = count / 2
      let middle = index(low, offsetBy: half)
      if try isAbove(self[middle]) {
        count = half
      } else {
        low = index(after: middle)
        count -= half + 1
      }
    }
    return low
  }
}
