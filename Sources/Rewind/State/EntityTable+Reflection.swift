/// A table reflects as its entities by id, in id order, so `dump`, debuggers and test diffs show
/// the app's values and none of the change-tracking bookkeeping.
extension EntityTable: CustomReflectable {
  public var customMirror: Mirror {
    Mirror(
      self,
      unlabeledChildren: storage.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) },
      displayStyle: .dictionary
    )
  }
}
