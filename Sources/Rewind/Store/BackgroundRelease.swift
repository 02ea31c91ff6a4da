import Foundation

/// Where released stores' states are freed: off the thread that released the store, usually
/// the main actor. Freeing a large state is O(state): a million tasks took about 0.4 s, a
/// cache miss per entity, as the entity tables' dictionaries are freed in hash order.
enum BackgroundRelease {
  /// One serial queue, so that states are freed one at a time, behind the app's own work.
  static let queue: DispatchQueue = {
    let queue = DispatchQueue(label: "Rewind.BackgroundRelease", qos: .utility)
    queue.setSpecific(key: onQueue, value: true)
    return queue
  }()

  /// `true` for work running on ``queue`` (`DispatchQueue.getSpecific(key:)`): what the tests
  /// check that a state is freed by.
  static let onQueue = DispatchSpecificKey<Bool>()

  /// Frees `value` on ``queue``, unless something else still holds it.
  static func free<Value: Sendable>(_ value: consuming Value) {
    // Moved into a box the queue empties: a closure capturing the value itself would hold a
    // copy, and the caller's own, released when this returns, could be the last.
    let box = Box(consume value)
    queue.async { box.empty() }
  }

  /// A value's only holder, until ``empty()``.
  private final class Box<Value: Sendable>: @unchecked Sendable {  // emptied once, on the queue
    private var value: Value?
    init(_ value: consuming Value) { self.value = consume value }
    func empty() { value = nil }
  }
}

extension Store {
  /// Blocks until the states of released stores are freed: for the benchmark, which times
  /// what a release costs the releasing thread apart from the freeing, and lets no freeing
  /// overlap what it times next.
  @_spi(Benchmarks) public nonisolated static func waitForReleasedStates() {
    BackgroundRelease.queue.sync {}
  }
}
