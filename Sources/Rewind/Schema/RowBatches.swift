/// Row changes handed on in batches of at most `size`, so that a large state is written
/// without all its rows in memory at once: creating a file from a state of a million entities
/// logs it as a run of `initialize` entries, each of bounded size.
@usableFromInline
struct RowBatches {
  let size: Int
  private let flush: ([RowChange]) throws -> Void
  private var pending: [RowChange] = []

  /// Batches that `flush` receives in order, each of at most `size` changes.
  init(size: Int, flush: @escaping ([RowChange]) throws -> Void) {
    precondition(size > 0)
    self.size = size
    self.flush = flush
  }

  mutating func append(_ change: RowChange) throws {
    pending.append(change)
    if pending.count >= size { try finishBatch() }
  }

  /// Hands on the last, partial batch.
  mutating func finishBatch() throws {
    guard !pending.isEmpty else { return }
    try flush(pending)
    pending.removeAll(keepingCapacity: true)
  }
}
