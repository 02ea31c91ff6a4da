/// The ids of an entity table keyed by `Int64` or `Int`, as one bit for each value from the
/// smallest id to the largest: what the dangling-entry check of an open looks ids up in.
///
/// That check looks up every member of every order list. In the table's own dictionary, at a
/// million entities, each look-up is a cache miss (about a tenth of opening a million tasks);
/// the bits of a million consecutive ids are 122 KiB, which the processor's cache holds. Ids
/// spread over more than 64 values each would take more memory than the keys themselves, and
/// get no set (`nil`), as do ids of other types (`Int32`, `UInt64`, a wrapper type): the
/// check then looks them up in the table.
@usableFromInline
struct DenseIntegerIDs {
  @usableFromInline let lowest: Int64
  @usableFromInline var words: [UInt64]

  /// The set of `ids`, or `nil` when they are not integers or are too spread out.
  @inlinable
  init?<ID>(_ ids: some Collection<ID>) {
    guard let first = ids.first.flatMap(Self.integer) else { return nil }
    var (lowest, highest) = (first, first)
    for id in ids {
      guard let value = Self.integer(id) else { return nil }
      lowest = min(lowest, value)
      highest = max(highest, value)
    }
    // Compared as unsigned, the span of any two `Int64`s cannot overflow.
    let span = UInt64(bitPattern: highest &- lowest)
    guard span / 64 <= UInt64(ids.count) else { return nil }
    self.lowest = lowest
    words = Array(repeating: 0, count: Int(span / 64) + 1)
    for id in ids {
      let offset = UInt64(bitPattern: Self.integer(id)! &- lowest)
      words[Int(offset / 64)] |= 1 &<< (offset % 64)
    }
  }

  /// Whether `id` is one of the set's ids.
  @inlinable
  func contains<ID>(_ id: ID) -> Bool {
    guard let value = Self.integer(id) else { return false }
    // A value below `lowest` wraps to an offset past the words; refused as one.
    let offset = UInt64(bitPattern: value &- lowest)
    guard offset / 64 < UInt64(words.count) else { return false }
    return words[Int(offset / 64)] & (1 &<< (offset % 64)) != 0
  }

  /// `id` as an `Int64` when it is one or an `Int`. Specialized code, where `ID` is known,
  /// keeps only the branch that applies.
  @inlinable
  static func integer<ID>(_ id: ID) -> Int64? {
    if let value = id as? Int64 { return value }
    if let value = id as? Int { return Int64(value) }
    return nil
  }
}
