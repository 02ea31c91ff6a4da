/// A list reflects as its ids in order, so `dump`, debuggers and test diffs show the order and
/// none of the position keys, chunks or change tracking behind it.
extension OrderedIDList: CustomReflectable {
  public var customMirror: Mirror { Mirror(self, unlabeledChildren: ids, displayStyle: .collection) }
}
