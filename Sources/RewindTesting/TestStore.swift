@_spi(Testing) import Rewind
import Testing

/// A store for tests that makes you state every change: each action's exact effect on the
/// state, and every action an effect sends back.
///
/// ```swift
/// @Test func importing() async throws {
///   let store = try TestStore(initialState: TasksState(), reducer: TasksReducer())
///   try await store.send(.importFile(path: "tasks.json")) {
///     _ = $0.view.importStatus.begin()
///   }
///   try await store.receive(.importFinished(request: 1, file: "tasks.json", items: items)) {
///     $0.view.importStatus.succeed(1, with: .init(file: "tasks.json", count: 1))
///     $0.tasks.insert(TaskItem(id: 1, title: "Milk"))
///     $0.allTasks.append(1)
///   }
///   await store.finish()
/// }
/// ```
///
/// A change you did not state, a stated change that did not happen, an effect action you did
/// not receive, or an effect still running at ``finish(timeout:sourceLocation:)`` is a test
/// failure, with a line diff of the expected and actual state. The store is a real ``Store``
/// on an in-memory SQLite database: every action is committed and logged.
@MainActor
public final class TestStore<State: PersistentState & Equatable, Action: LoggedAction & Equatable> {
  /// The store under test.
  public let store: Store<State, Action>
  private var received: [Action] = []

  /// Creates a test store with a new in-memory database.
  public init(initialState: State, reducer: some Reducer<State, Action>) throws {
    store = try Store(inMemory: initialState, reducer: reducer)
    store.interceptEffectActions { [weak self] action in self?.received.append(action) }
  }

  /// The current state.
  public var state: State { store.state }

  /// Sends `action` and checks that it changed the state exactly as `update` says.
  ///
  /// - Parameter update: mutates the state before the action into the expected state after
  ///   it; omit it when the action must change nothing.
  public func send(
    _ action: Action, _ update: ((inout State) -> Void)? = nil, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    if let pending = received.first {
      Issue.record(
        "An effect action was not received before sending \(action): \(pending)", sourceLocation: sourceLocation)
    }
    let before = store.state
    try store.send(action)
    expect(from: before, update, after: "sending \(action)", sourceLocation)
  }

  /// Waits for the next action an effect sends, checks it is `action`, reduces it, and checks
  /// its change to the state as ``send(_:_:sourceLocation:)`` does.
  ///
  /// It waits as long as effects are running (on a busy machine that can be a while), and
  /// fails at once when none is left to send anything. `timeout` only guards against an
  /// effect that never ends.
  public func receive(
    _ action: Action, timeout: Duration = .seconds(60), _ update: ((inout State) -> Void)? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while received.isEmpty, store.hasRunningEffects, clock.now < deadline {
      try await Task.sleep(for: .milliseconds(2))
    }
    guard !received.isEmpty else {
      Issue.record(
        store.hasRunningEffects
          ? "Expected to receive \(action), but the running effects sent nothing within \(timeout)"
          : "Expected to receive \(action), but no effect is running to send it",
        sourceLocation: sourceLocation)
      return
    }
    let next = received.removeFirst()
    guard next == action else {
      Issue.record("Received an unexpected action:\n\(StateDiff.lines(expected: action, actual: next))", sourceLocation: sourceLocation)
      return
    }
    let before = store.state
    try store.send(next)
    expect(from: before, update, after: "receiving \(action)", sourceLocation)
  }

  /// Waits for running effects to finish, then fails if any is still running after `timeout`
  /// (a guard against effects that never end) or any action they sent was not received.
  public func finish(timeout: Duration = .seconds(60), sourceLocation: SourceLocation = #_sourceLocation) async {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while store.hasRunningEffects, clock.now < deadline {
      try? await Task.sleep(for: .milliseconds(2))
    }
    if store.hasRunningEffects {
      Issue.record("An effect was still running after \(timeout)", sourceLocation: sourceLocation)
    }
    if !received.isEmpty {
      Issue.record(
        "\(received.count) action\(received.count == 1 ? " was" : "s were") received from effects but not asserted: \(received)",
        sourceLocation: sourceLocation)
    }
  }

  private func expect(
    from before: State, _ update: ((inout State) -> Void)?, after event: String, _ sourceLocation: SourceLocation
  ) {
    var expected = before
    update?(&expected)
    let actual = store.state
    guard expected != actual else { return }
    Issue.record(
      "The state after \(event) does not match the expectation (− expected, + actual):\n\(StateDiff.lines(expected: expected, actual: actual))",
      sourceLocation: sourceLocation)
  }
}
