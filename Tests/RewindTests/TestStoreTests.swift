import Foundation
import RewindTesting
import Testing
import XCTest

@_spi(Testing) @testable import Rewind
@testable import TasksExample

/// The test store's own behaviour: what passes, what fails, and the exact text of each failure.
@MainActor
struct TestStoreTests {
  func importFile(_ tasks: String) throws -> (TemporaryDirectory, String) {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.json")
    try tasks.write(toFile: path, atomically: true, encoding: .utf8)
    return (directory, path)
  }

  /// What sending `.search("x")` while stating `searchText = "y"` reports, in either framework.
  static let wrongSearchText = """
    The state after sending TasksAction.list(.search("x")) is not what the test expects: (Expected: -, Actual: +)

      TasksState(
        tasks: [:],
        allTasks: [],
        favorited: [],
        projects: [:],
        projectTasks: [:],
        view: TasksViewState(…),
        list: ListFeature.State(
    -     searchText: "y",
    +     searchText: "x",
          scrollOffset: 0.0,
          isEditing: false
        ),
        settings: SettingsFeature.State(showCompleted: true)
      )
    """

  /// Runs `body`, which must record exactly one issue, and returns that issue's text.
  func recordedIssue(_ body: () async throws -> Void) async -> String {
    let messages = Messages()
    await withKnownIssue {
      do { try await body() } catch { Issue.record(error, "the body threw") }
    } matching: { issue in
      messages.append(issue.comments.map(\.rawValue).joined(separator: "\n"))
      return true
    }
    let recorded = messages.all
    #expect(recorded.count == 1)
    return recorded.first ?? ""
  }

  /// The issues' texts, collected from the matcher, which may run on another thread.
  final class Messages: @unchecked Sendable {
    private let lock = NSLock()
    private var texts: [String] = []
    func append(_ text: String) { lock.withLock { texts.append(text) } }
    var all: [String] { lock.withLock { texts } }
  }

  @Test func anImportIsExhaustivelyAsserted() async throws {
    let (directory, path) = try importFile(#"[{"title": "Milk"}, {"title": "Eggs", "done": true}]"#)
    _ = directory
    let store = try TestStore(initialState: TasksState(), reducer: TasksReducer())
    try await store.send(.importFile(path: path)) {
      _ = $0.view.importStatus.begin()
    }
    let items = [TaskImport.Item(title: "Milk"), TaskImport.Item(title: "Eggs", done: true)]
    try await store.receive(.importFinished(request: 1, file: path, items: items)) {
      $0.view.importStatus.succeed(1, with: .init(file: path, count: 2))
      $0.tasks.insert(TaskItem(id: 1, title: "Milk"))
      $0.tasks.insert(TaskItem(id: 2, title: "Eggs", isDone: true))
      $0.allTasks.append(1)
      $0.allTasks.append(2)
    }
    await store.finish()
    // The import is one undo step; its effect's action was logged like any other.
    try store.store.undo()
    #expect(store.state.tasks.isEmpty)
  }

  @Test func aFailedImportIsReceivedAsAFailure() async throws {
    let store = try TestStore(initialState: TasksState(), reducer: TasksReducer())
    try await store.send(.importFile(path: "/nonexistent/tasks.json")) { _ = $0.view.importStatus.begin() }
    try await store.receive(.importFailed(request: 1, message: "cannot read /nonexistent/tasks.json")) {
      $0.view.importStatus.fail(1, message: "cannot read /nonexistent/tasks.json")
    }
    await store.finish()
  }

  @Test func anUnstatedChangeShowsOnlyTheChangedEntityAndList() async throws {
    let store = try TestStore(initialState: TasksState(), reducer: TasksReducer())
    try await store.send(.add(title: "Milk")) {
      $0.tasks.insert(TaskItem(id: 1, title: "Milk"))
      $0.allTasks.append(1)
    }
    let message = await recordedIssue {
      try await store.send(.add(title: "Eggs"))  // says nothing changes; a task was added
    }
    // The untouched task and fields fold to `(…)`; the table and list show as values, without
    // the engine's change tracking, position keys or chunks.
    #expect(
      message == """
        The state after sending TasksAction.add(title: "Eggs", project: nil) is not what the test expects: (Expected: -, Actual: +)

          TasksState(
            tasks: [
              1: TaskItem(…),
        +     2: TaskItem(
        +       id: 2,
        +       title: "Eggs",
        +       isDone: false,
        +       notes: "",
        +       projectID: nil
        +     )
            ],
            allTasks: [
              [0]: 1,
        +     [1]: 2
            ],
            favorited: [],
            projects: [:],
            projectTasks: [:],
            view: TasksViewState(…),
            list: ListFeature.State(…),
            settings: SettingsFeature.State(showCompleted: true)
          )
        """)
    #expect(!message.contains("pending") && !message.contains("chunks") && !message.contains("largestID"))
  }

  @Test func aWrongChangeShowsTheFieldOnly() async throws {
    let store = try TestStore(initialState: TasksState(), reducer: TasksReducer())
    let message = await recordedIssue {
      try await store.send(.search("x")) { $0.list.searchText = "y" }
    }
    #expect(message == Self.wrongSearchText)
  }

  /// Undo, redo and jumps are stated as sends are: each one's exact change, and a wrong or
  /// missing one fails with the same diff.
  @Test func undoRedoAndJumpsAreAssertedAsSendsAre() async throws {
    let store = try TestStore(initialState: TasksState(), reducer: TasksReducer())
    try await store.send(.add(title: "Milk")) {
      $0.tasks.insert(TaskItem(id: 1, title: "Milk"))
      $0.allTasks.append(1)
    }
    let added = store.store.lastSeq
    try await store.send(.rename(id: 1, title: "Oat milk")) { $0.tasks[1]?.title = "Oat milk" }
    try await store.undo { $0.tasks[1]?.title = "Milk" }
    try await store.redo { $0.tasks[1]?.title = "Oat milk" }
    let message = await recordedIssue {
      try await store.undo()  // says nothing changes; the rename was undone
    }
    #expect(message.hasPrefix("The state after undoing is not what the test expects: (Expected: -, Actual: +)"))
    #expect(message.contains(#"-       title: "Oat milk","#) && message.contains(#"+       title: "Milk","#))
    try await store.redo { $0.tasks[1]?.title = "Oat milk" }
    try await store.jump(to: added) { $0.tasks[1]?.title = "Milk" }
    try await store.jump(to: added)  // there already: nothing changes
  }

  @Test func aChangedTitleShowsOneLine() async throws {
    let store = try TestStore(initialState: TasksState(), reducer: TasksReducer())
    try await store.send(.add(title: "Milk")) {
      $0.tasks.insert(TaskItem(id: 1, title: "Milk"))
      $0.allTasks.append(1)
    }
    let message = await recordedIssue {
      try await store.send(.rename(id: 1, title: "Oat milk")) { $0.tasks[1]?.title = "Soy milk" }
    }
    #expect(
      message == """
        The state after sending TasksAction.row(id: 1, action: .rename("Oat milk")) is not what the test expects: (Expected: -, Actual: +)

          TasksState(
            tasks: [
              1: TaskItem(
                id: 1,
        -       title: "Soy milk",
        +       title: "Oat milk",
                isDone: false,
                notes: "",
                projectID: nil
              )
            ],
            allTasks: […],
            favorited: [],
            projects: [:],
            projectTasks: [:],
            view: TasksViewState(…),
            list: ListFeature.State(…),
            settings: SettingsFeature.State(showCompleted: true)
          )
        """)
  }

  @Test func anUnexpectedEffectActionShowsBothActions() async throws {
    let (directory, path) = try importFile(#"[{"title": "Milk"}]"#)
    _ = directory
    let store = try TestStore(initialState: TasksState(), reducer: TasksReducer())
    try await store.send(.importFile(path: path)) { _ = $0.view.importStatus.begin() }
    let message = await recordedIssue {
      try await store.receive(.importFailed(request: 1, message: "no"))
    }
    #expect(
      message == """
        Received an action other than the one expected: (Expected: -, Received: +)

        - TasksAction.importFailed(
        -   request: 1,
        -   message: "no"
        - )
        + TasksAction.importFinished(
        +   request: 1,
        +   file: "\(path)",
        +   items: [
        +     [0]: TaskImport.Item(
        +       title: "Milk",
        +       done: nil
        +     )
        +   ]
        + )
        """)
  }

  /// The wait for an effect's action counts its own time, not time the main actor spent on
  /// other work: under a long synchronous test beside it on a busy machine, `finish` reported
  /// an import's effect as "still running after 60.0 seconds" (seen twice in full runs).
  @Test func timeTheMainActorSpentElsewhereDoesNotCountAgainstTheTimeout() async throws {
    let store = try TestStore(initialState: JournalState(), reducer: SlowEffectReducer())
    try await store.send(.search("go")) { $0.view.search = "go" }
    // The main actor is kept busy past the timeout while the effect finishes: its action
    // arrives behind the wait's own wake-up, which must not find the time spent.
    // (The timeout leaves the effect a second of the wait's own time: its sleep runs on the
    // shared pool, which other tests on a loaded machine keep busy.)
    Task { @MainActor in usleep(1_500_000) }
    try await store.receive(.scroll(1), timeout: .seconds(1)) { $0.view.scroll = 1 }
    await store.finish()
  }

  @Test func anEffectActionThatIsNotReceivedFails() async throws {
    let (directory, path) = try importFile(#"[{"title": "Milk"}]"#)
    _ = directory
    let store = try TestStore(initialState: TasksState(), reducer: TasksReducer())
    try await store.send(.importFile(path: path)) { _ = $0.view.importStatus.begin() }
    let message = await recordedIssue {
      await store.finish()
    }
    #expect(
      message == """
        1 action was sent by effects but not received:

        TasksAction.importFinished(
          request: 1,
          file: "\(path)",
          items: [
            [0]: TaskImport.Item(
              title: "Milk",
              done: nil
            )
          ]
        )
        """)
  }

  /// Without `finish()`: an effect's action that arrived and was never received fails the test
  /// when the test lets go of the store, at the line that created it (found by an app's tests
  /// that ended without `finish()` and passed).
  @Test func anEffectActionNotReceivedFailsWhenTheStoreIsReleasedWithoutFinish() async throws {
    let (directory, path) = try importFile(#"[{"title": "Milk"}]"#)
    _ = directory
    let message = await recordedIssue { @MainActor in
      var store: TestStore<TasksState, TasksAction>? = try TestStore(
        initialState: TasksState(), reducer: TasksReducer())
      try await store?.send(.importFile(path: path)) { _ = $0.view.importStatus.begin() }
      // The effect's action arrives; the test neither receives it nor calls finish().
      while store?.store.hasRunningEffects == true { try await Task.sleep(for: .milliseconds(2)) }
      store = nil
    }
    #expect(message.hasPrefix("1 action was sent by effects but not received:"), "\(message)")
  }
}

/// The same failure, reported to XCTest when XCTest runs the test.
final class TestStoreXCTestReportingTests: XCTestCase {
  private var captured: [String]?

  // Captures failures while `captured` is set, so a deliberate one does not fail the test.
  override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
  ) {
    if captured != nil {
      captured?.append("\(URL(fileURLWithPath: filePath).lastPathComponent):\(lineNumber): \(description)")
    } else {
      super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
  }

  @MainActor func testAMismatchIsReportedToXCTestAtTheCallersLine() async throws {
    let store = try TestStore(initialState: TasksState(), reducer: TasksReducer())
    captured = []
    let line = #line + 1
    try await store.send(.search("x")) { $0.list.searchText = "y" }
    let failures = captured ?? []
    captured = nil
    XCTAssertEqual(failures.count, 1)
    // IssueReporting may add a note about host applications after the diff (it cannot tell an
    // async XCTest frame on Linux); the report itself is what this checks.
    let report = failures.first?.components(separatedBy: "\n\n━━").first
    XCTAssertEqual(report, "TestStoreTests.swift:\(line): failed - " + TestStoreTests.wrongSearchText)
  }
}

/// The failure the Testing article shows is the one the test store prints.
@MainActor
struct TestStoreArticleTests {
  @Test func theArticlesDiffIsTheRealOne() async throws {
    let store = try TestStore(initialState: NotesState(), reducer: NotesReducer())
    try await store.send(.write(text: "Buy milk")) {
      $0.notes.insert(Note(id: 1, text: "Buy milk"))
      $0.order.append(1)
    }
    let message = await TestStoreTests().recordedIssue {
      try await store.send(.write(text: "Eggs"))
    }
    let article = try String(
      contentsOf: DocumentationSamplesTests.root.appendingPathComponent("Sources/Rewind/Rewind.docc/Testing.md"),
      encoding: .utf8)
    #expect(!message.isEmpty)
    #expect(article.contains("```\n\(message)\n```"), "the article should show:\n\(message)")
  }
}

/// The journal's reducer, with an effect that sends `.scroll(1)` 100 ms after `.search`.
struct SlowEffectReducer: Reducer {
  func reduce(into state: inout JournalState, action: JournalAction) -> Effect<JournalAction> {
    _ = JournalReducer().reduce(into: &state, action: action)
    guard case .search = action else { return .none }
    return .run { send in
      try await Task.sleep(for: .milliseconds(100))
      try await send(.scroll(1))
    }
  }
}

/// The journal's reducer, with an effect that fails after `.search`, with no error handler.
struct FailingEffectReducer: Reducer {
  struct Boom: Error {}
  func reduce(into state: inout JournalState, action: JournalAction) -> Effect<JournalAction> {
    _ = JournalReducer().reduce(into: &state, action: action)
    guard case .search = action else { return .none }
    return .run { _ in throw Boom() }
  }
}

/// An effect that fails with no error handler fails the test, naming its error: a store only
/// writes a line to standard error, which a passing test would hide (found by an app trial).
@MainActor
struct TestStoreEffectErrorTests {
  @Test func anEffectThatFailsWithNoHandlerFailsTheTest() async throws {
    let message = await TestStoreTests().recordedIssue {
      let store = try TestStore(initialState: JournalState(), reducer: FailingEffectReducer())
      try await store.send(.search("x")) { $0.view.search = "x" }
      await store.finish()
    }
    #expect(message == "An effect failed and has no error handler: FailingEffectReducer.Boom()", "\(message)")
  }
}
