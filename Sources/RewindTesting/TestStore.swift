import CustomDump
import Foundation
import IssueReporting
@_spi(Testing) import Rewind

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
/// not receive, or an effect still running at ``finish(timeout:fileID:filePath:line:column:)``
/// is a test failure, reported to the test framework that runs the test (Swift Testing or
/// XCTest) at the line of the call. A state mismatch shows a
/// [custom-dump](https://github.com/pointfreeco/swift-custom-dump) diff of the fields that
/// differ: entity tables show as their entities by id and order lists as their ids, never as
/// the engine's bookkeeping. The store is a real ``Store`` on an in-memory SQLite database:
/// every action is committed and logged.
///
/// Ids and dates a reducer reads with `@Dependency(\.uuid)` and `@Dependency(\.date)` are
/// deterministic: `uuid` is `.incrementing` (`UUID(0)`, `UUID(1)`, … for each test store) and
/// `date` is `.constant(Date(timeIntervalSince1970: 1_234_567_890))` (2009-02-13 23:31:30 UTC),
/// unless the test changes them in `withDependencies` or through ``dependencies``. Other
/// dependencies are swift-dependencies' test values: reading one the test did not set fails.
@MainActor
public final class TestStore<State: PersistentState & Equatable, Action: LoggedAction & Equatable> {
  /// The store under test.
  public let store: Store<State, Action>
  /// The actions effects sent that the test has not received yet, in a box the store's
  /// `deinit` can read: it runs where the test lets go of the store, where the test framework
  /// can still tie an issue to the test (an isolated `deinit` would run without the test's
  /// task-local context, and the issue would be lost).
  private let inbox = Inbox()
  private var received: [Action] {
    get { inbox.actions }
    set { inbox.actions = newValue }
  }
  /// Where the test created the store: an action still not received when the test lets go of
  /// it is reported there.
  private let created: Location

  /// Creates a test store with a new in-memory database.
  ///
  /// - Parameters:
  ///   - initialState: the state of the new database.
  ///   - reducer: the reducer under test.
  ///   - withDependencies: changes the dependencies the reducer and its effects read. It
  ///     starts from the deterministic `uuid` and `date` described above, which it may replace.
  public init(
    initialState: State, reducer: some Reducer<State, Action>,
    withDependencies: (inout DependencyValues) -> Void = { _ in },
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) throws {
    created = Location(fileID: fileID, filePath: filePath, line: line, column: column)
    store = try Store(inMemory: initialState, reducer: reducer) {
      $0.uuid = .incrementing
      $0.date = .constant(Date(timeIntervalSince1970: 1_234_567_890))
      withDependencies(&$0)
    }
    store.interceptEffectActions { [weak self] action in self?.received.append(action) }
    store.interceptEffectErrors { [inbox] error in inbox.errors.append(String(customDumping: error)) }
  }

  // An effect's action that arrived and was never received is a change the test did not
  // state, whether or not it calls `finish()`.
  deinit {
    Self.reportUnreceived(inbox, at: created)
  }

  /// Lock-protected lists of the actions effects sent and of the errors effects with no error
  /// handler failed with (see ``inbox``).
  private final class Inbox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Action] = []
    private var storedErrors: [String] = []
    var actions: [Action] {
      get { lock.withLock { stored } }
      set { lock.withLock { stored = newValue } }
    }
    var errors: [String] {
      get { lock.withLock { storedErrors } }
      set { lock.withLock { storedErrors = newValue } }
    }
  }

  /// The current state.
  public var state: State { store.state }

  /// Polls `waiting` until it is false or this loop has itself waited `timeout`. Each poll counts
  /// at most 10 ms however long it took to come back: the rest is time the main actor spent on
  /// other work, which kept the effects' actions from arriving too.
  private func wait(atMost timeout: Duration, while waiting: () -> Bool) async throws {
    let clock = ContinuousClock()
    var waited = Duration.zero
    while waiting(), waited < timeout {
      let start = clock.now
      try await Task.sleep(for: .milliseconds(2))
      waited += min(clock.now - start, .milliseconds(10))
    }
  }

  /// The dependencies the reducer, and the effects it starts, read: set one between sends to
  /// change what the next actions read (`store.dependencies.date = .constant(later)`).
  /// Effects already running keep the values they started with.
  public var dependencies: DependencyValues {
    get { store.dependencies }
    set { store.dependencies = newValue }
  }

  /// Sends `action` and checks that it changed the state exactly as `update` says.
  ///
  /// - Parameter update: mutates the state before the action into the expected state after
  ///   it; omit it when the action must change nothing.
  public func send(
    _ action: Action,
    _ update: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    let location = Location(fileID: fileID, filePath: filePath, line: line, column: column)
    let event = "sending \(Self.name(action))"
    reportPending(before: event, location)
    let before = store.state
    try store.send(action)
    try expect(from: before, update, after: event, location)
  }

  /// Undoes the latest undo step (see ``Store/undo()``) and checks that it changed the state
  /// exactly as `update` says.
  ///
  /// - Parameter update: mutates the state before the undo into the expected state after it;
  ///   omit it when the undo must change nothing (there is nothing to undo).
  public func undo(
    _ update: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    let location = Location(fileID: fileID, filePath: filePath, line: line, column: column)
    try moveThroughHistory("undoing", update, location) { _ = try store.undo() }
  }

  /// Redoes the latest undone step (see ``Store/redo()``) and checks that it changed the state
  /// exactly as `update` says.
  ///
  /// - Parameter update: mutates the state before the redo into the expected state after it;
  ///   omit it when the redo must change nothing (there is nothing to redo).
  public func redo(
    _ update: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    let location = Location(fileID: fileID, filePath: filePath, line: line, column: column)
    try moveThroughHistory("redoing", update, location) { _ = try store.redo() }
  }

  /// Jumps to the state right after `seq` (see ``Store/jump(to:timeline:)``) and checks that it
  /// changed the state exactly as `update` says.
  ///
  /// - Parameters:
  ///   - seq: the log entry to go to: `store.lastSeq` after the action that logged it (this
  ///     store's `send` returns none).
  ///   - timeline: which part of the state travels.
  ///   - update: mutates the state before the jump into the expected state after it.
  public func jump(
    to seq: Int64, timeline: Timeline = .all,
    _ update: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    let location = Location(fileID: fileID, filePath: filePath, line: line, column: column)
    try moveThroughHistory("jumping to seq \(seq)", update, location) {
      _ = try store.jump(to: seq, timeline: timeline)
    }
  }

  /// Runs a move through history, as ``send(_:_:fileID:filePath:line:column:)`` runs an action.
  private func moveThroughHistory(
    _ event: String, _ update: ((inout State) throws -> Void)?, _ location: Location, _ move: () throws -> Void
  ) throws {
    reportPending(before: event, location)
    let before = store.state
    try move()
    try expect(from: before, update, after: event, location)
  }

  /// Reports an action an effect sent that the test has not received before `event`: the
  /// test would otherwise state the next change against a state that action has yet to make.
  private func reportPending(before event: String, _ location: Location) {
    guard let pending = received.first else { return }
    location.report(
      """
      An action sent by an effect was not received before \(event):

      \(String(customDumping: pending))
      """)
  }

  /// Waits for the next action an effect sends, checks it is `action`, reduces it, and checks
  /// its change to the state as ``send(_:_:fileID:filePath:line:column:)`` does.
  ///
  /// It waits as long as effects are running (on a busy machine that can be a while), and
  /// fails at once when none is left to send anything. `timeout` only guards against an
  /// effect that never ends; it counts this wait's own time (see ``finish(timeout:fileID:filePath:line:column:)``).
  public func receive(
    _ action: Action,
    timeout: Duration = .seconds(60),
    _ update: ((inout State) throws -> Void)? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    let location = Location(fileID: fileID, filePath: filePath, line: line, column: column)
    try await wait(atMost: timeout) { received.isEmpty && store.hasRunningEffects }
    guard !received.isEmpty else {
      location.report(
        store.hasRunningEffects
          ? "Expected to receive \(Self.name(action)), but the running effects sent nothing within \(timeout)."
          : "Expected to receive \(Self.name(action)), but no effect is running to send it.")
      return
    }
    let next = received.removeFirst()
    guard next == action else {
      location.report(
        """
        Received an action other than the one expected: (Expected: -, Received: +)

        \(diff(action, next, format: .default) ?? "")
        """)
      return
    }
    let before = store.state
    try store.send(next)
    try expect(from: before, update, after: "receiving \(Self.name(action))", location)
  }

  /// Waits for running effects to finish, then fails if any is still running after `timeout`
  /// (a guard against effects that never end) or any action they sent was not received.
  ///
  /// The timeout counts this wait's own time: time the main actor spent on other work
  /// meanwhile (another test's long synchronous body, on a busy machine) does not count, as
  /// the effects' actions wait for the main actor too.
  public func finish(
    timeout: Duration = .seconds(60),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async {
    let location = Location(fileID: fileID, filePath: filePath, line: line, column: column)
    try? await wait(atMost: timeout) { store.hasRunningEffects }
    if store.hasRunningEffects {
      location.report("An effect was still running after \(timeout).")
    }
    reportUnreceived(at: location)
  }

  /// Reports the errors of effects that failed with no error handler, and the actions effects
  /// sent that the test did not receive, once.
  private func reportUnreceived(at location: Location) {
    Self.reportUnreceived(inbox, at: location)
  }

  private nonisolated static func reportUnreceived(_ inbox: Inbox, at location: Location) {
    // An effect that failed with no error handler is a failure of the test, not a line on
    // standard error (a store's effects write one there).
    let errors = inbox.errors
    inbox.errors = []
    for error in errors { location.report("An effect failed and has no error handler: \(error)") }
    let received = inbox.actions
    guard !received.isEmpty else { return }
    inbox.actions = []
    let actions = received.map { String(customDumping: $0) }.joined(separator: "\n")
    location.report(
      """
      \(received.count) action\(received.count == 1 ? " was" : "s were") sent by effects but not received:

      \(actions)
      """)
  }

  private func expect(
    from before: State, _ update: ((inout State) throws -> Void)?, after event: String, _ location: Location
  ) throws {
    var expected = before
    try update?(&expected)
    let actual = store.state
    guard expected != actual else { return }
    location.report(Self.mismatch(after: event, expected: expected, actual: actual))
  }
}

extension TestStore {
  /// The message of a state that is not what the test said: a diff of the fields that differ.
  static func mismatch(after event: String, expected: State, actual: State) -> String {
    // Two values can differ with equal dumps (a field custom-dump cannot see); say so rather
    // than print an empty diff.
    let difference = diff(expected, actual, format: .default) ?? "(the states differ in a way their dumps do not show)"
    return """
      The state after \(event) is not what the test expects: (Expected: -, Actual: +)

      \(difference)
      """
  }

  /// An action as custom-dump prints it, on one line.
  static func name(_ action: Action) -> String {
    var text = ""
    for line in String(customDumping: action).split(separator: "\n") {
      if text.hasSuffix(",") { text += " " }
      text += line.drop(while: \.isWhitespace)
    }
    return text
  }
}

/// Where a test store call was made, for reporting a failure at that line.
struct Location {
  var fileID: StaticString
  var filePath: StaticString
  var line: UInt
  var column: UInt

  func report(_ message: String) {
    reportIssue(message, fileID: fileID, filePath: filePath, line: line, column: column)
  }
}
