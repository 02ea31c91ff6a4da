import Foundation
import Testing

@_spi(Benchmarks) @testable import Rewind

/// A released store's state is freed on the engine's background queue, not on the thread that
/// released the store (the main actor, in an app closing a document): freeing a million tasks
/// took about 0.4 s there.
@MainActor
struct BackgroundReleaseTests {
  /// Records whether it is freed on the engine's background queue.
  final class ReleaseProbe: Sendable {
    let freed: @Sendable (_ onBackgroundQueue: Bool) -> Void
    init(freed: @escaping @Sendable (Bool) -> Void) { self.freed = freed }
    deinit { freed(DispatchQueue.getSpecific(key: BackgroundRelease.onQueue) == true) }
  }

  /// Where the probes were freed: `true` for the background queue.
  final class Record: @unchecked Sendable {  // its lock guards `queues`
    private let lock = NSLock()
    private var queues: [Bool] = []
    func append(_ onBackgroundQueue: Bool) { lock.withLock { queues.append(onBackgroundQueue) } }
    var freed: [Bool] { lock.withLock { queues } }
  }

  /// Labels, and a probe the schema does not persist, which only the reducer sets: the
  /// store's initial state does not hold it.
  struct ProbedState: PersistentState {
    var labels = EntityTable<ShoutedLabel>()
    var probe: ReleaseProbe?
    static var schema: StateSchema<Self> { StateSchema(.entities(\.labels)) }
  }

  @Test func aReleasedStoresStateIsFreedOffTheReleasingThread() throws {
    let record = Record()
    let reducer = Reduce<ProbedState, LabelsAction> { state, action in
      if case .add(let id, let text) = action {
        state.labels.insert(ShoutedLabel(id: id, text: text))
        state.probe = ReleaseProbe { record.append($0) }
      }
      return .none
    }
    var store: Store<ProbedState, LabelsAction>? = try Store(inMemory: ProbedState(), reducer: reducer)
    try store?.send(.add(id: 1, text: "milk"))
    #expect(store?.state.labels.count == 1)
    #expect(record.freed.isEmpty)
    store = nil
    Store<ProbedState, LabelsAction>.waitForReleasedStates()
    #expect(record.freed == [true], "freed where the store was released (false), or not at all (none)")
  }
}
