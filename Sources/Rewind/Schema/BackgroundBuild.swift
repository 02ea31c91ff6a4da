import Dispatch

/// A value built from batches of loaded rows on a serial queue of its own, while the caller
/// goes on reading: opening a file reads rows through SQLite on the caller's thread and stores
/// them into the state's hash tables here, so that on two cores the two overlap.
///
/// At a million rows each store into a table is a cache miss; done between reads, the misses
/// and the reads took turns. The caller reads a batch, hands it over with ``add(_:)`` and reads
/// the next; batches are stored in the order they were added. ``end(_:)`` hands over the last
/// one, and ``take()`` waits for them all and gives the value. A build of fewer rows than a
/// batch holds never leaves the caller's thread: there is nothing to overlap.
///
/// On Apple platforms the queue runs its work at the quality of service of the thread that
/// added it, and `take()` waits with `sync`, which raises the queue's to the waiter's.
@usableFromInline
final class BackgroundBuild<Value, BatchElement>: @unchecked Sendable {  // `value` is the queue's once it exists
  /// What a batch holds: one row, read and decoded.
  @usableFromInline typealias Element = BatchElement
  @usableFromInline typealias Storing = @Sendable (inout Value, inout [Element]) -> Void

  /// Stores one batch into the value, emptying it.
  @usableFromInline let store: Storing
  @usableFromInline var value: Value?
  /// Created by the first full batch.
  @usableFromInline var queue: DispatchQueue?

  /// A build of `value`, each batch stored into it by `store`.
  @inlinable
  init(_ value: consuming Value, store: @escaping Storing) {
    self.value = consume value
    self.store = store
  }

  /// How many rows a caller reads before it hands them over.
  @inlinable
  static var batchSize: Int { 1_024 }

  /// Hands `batch` over to be stored after the batches before it, and leaves `batch` empty
  /// with room for the next. Moved, not copied: a copy of each row would retain its strings,
  /// and the release of the copy left behind is an atomic operation per string.
  @inlinable
  func add(_ batch: inout [Element]) {
    let queue = queue ?? DispatchQueue(label: "Rewind.BackgroundBuild")
    self.queue = queue
    send(&batch, to: queue)
    batch.reserveCapacity(Self.batchSize)
  }

  @inlinable
  func send(_ batch: inout [Element], to queue: DispatchQueue) {
    let moved = Batch(&batch)
    queue.async { self.storeHandedOver(moved) }
  }

  /// Stores a batch on the queue. Not inlined: `rewind-bench --instructions` counts the
  /// queue's work by this function's name, as callgrind collects per thread.
  @inlinable @inline(never)
  func storeHandedOver(_ batch: Batch) {
    store(&value!, &batch.elements)
  }

  /// Hands over the last batch: stored here, at once, when no batch went to the queue.
  @inlinable
  func end(_ batch: inout [Element]) {
    guard let queue else { return store(&value!, &batch) }
    if !batch.isEmpty { send(&batch, to: queue) }
  }

  /// The value, once every batch handed over is stored. Call it once: a part's load update,
  /// which calls it, is applied once.
  @inlinable
  func take() -> Value {
    guard let queue else { return value.take()! }
    return queue.sync { value.take()! }
  }

  /// A batch on its way to the queue, held by one reference so that it is stored in place.
  @usableFromInline
  final class Batch: @unchecked Sendable {  // handed from the reader to the queue, once
    @usableFromInline var elements: [Element] = []
    @inlinable
    init(_ batch: inout [Element]) { swap(&elements, &batch) }
  }
}
