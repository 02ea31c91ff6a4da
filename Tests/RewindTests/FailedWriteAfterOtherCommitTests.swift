import Foundation
import GRDB
import TasksExample
import Testing

@testable import Rewind

// A write keeps one copy of the history position to put back if it fails. When the sync at
// its start finds no new entry, that copy is the one taken before the sync, even if the sync
// read the position again because another connection committed something that is not an
// entry (a labelled snapshot): the store must go on writing, undoing and following the file
// as if the failed write had never been tried.
@MainActor
struct FailedWriteAfterOtherCommitTests {
  @Test func aRefusedSendAfterAnotherConnectionsCommitLeavesTheStoreAsTheFile() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer())
    try store.send(.add(title: "one"))
    let seq = store.lastSeq
    // Another connection commits (its data_version moves) without appending an entry.
    try RewindDatabase(path: path).snapshot(label: "meanwhile")
    // Refused inside the write, after the sync: a NUL cannot be stored in SQLite text exactly.
    #expect(throws: RewindError.self) { try store.send(.add(title: "a\u{0}b")) }
    #expect(store.lastSeq == seq)
    #expect(store.state.tasks.values.map(\.title) == ["one"])

    // Another process appends an entry: the next write follows it, then commits its own.
    try RewindDatabase(path: path).undo()
    #expect(throws: RewindError.self) { try store.send(.add(title: "b\u{0}")) }
    #expect(store.state.tasks.isEmpty)
    #expect(try store.send(.add(title: "two")) == seq + 2)
    #expect(store.state.tasks.values.map(\.title) == ["two"])
    #expect(try store.undo() != nil)
    #expect(store.state.tasks.isEmpty)

    let reopened = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer(), readOnly: true)
    #expect(reopened.state == store.state)
    #expect(reopened.lastSeq == store.lastSeq)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  // Found by a model test of a warehouse app with injected failures: another writer removed
  // the task the view selected; the store's next write caught up, logged the repair that
  // clears the selection, and failed at commit, which rolled the repair back with it. The
  // store read the file again (the dangling selection with it) and never repaired it: the
  // next task took the removed one's id and, with it, the selection.
  @Test func aRepairAFailedWriteRolledBackIsMadeByTheNextWrite() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer())
    try store.send(.add(title: "A"))
    try store.send(.add(title: "B"))
    try store.send(.select(id: 2))
    try editByHand(
      path,
      "CREATE TRIGGER refuse_boom BEFORE INSERT ON tasks WHEN NEW.title = 'boom' BEGIN SELECT RAISE(ABORT, 'injected'); END"
    )
    // The tool undoes the add of B: the selection dangles in the file.
    try RewindDatabase(path: path).undo()
    #expect(throws: RewindError.self) { try store.send(.add(title: "boom")) }
    #expect(store.state.view.selection == 2, "memory is what the file holds, the repair rolled back")
    try store.send(.add(title: "ok"))
    #expect(store.state.view.selection == nil)
    #expect(store.state.tasks.values.map(\.title).sorted() == ["A", "ok"])
    let kinds = try DatabaseQueue(path: path).read {
      try String.fetchAll($0, sql: "SELECT kind FROM action_log ORDER BY seq")
    }
    #expect(kinds.suffix(3) == ["undo", "repair", "action"], "\(kinds)")
    let reopened = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer(), readOnly: true)
    #expect(reopened.state == store.state)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  // The same model test's injected failures, on the tool's writes: SQLite's refusal reached
  // the user bare ("SQLite error 19: injected"), naming neither the operation nor that
  // nothing was written, as the store's errors do.
  @Test func aToolWriteSQLiteRefusesIsARewindErrorNamingTheOperation() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer())
    try store.send(.add(title: "A"))
    try editByHand(
      path, "CREATE TRIGGER refuse_delete BEFORE DELETE ON tasks BEGIN SELECT RAISE(ABORT, 'injected'); END")
    let file = try dump(path)
    let database = try RewindDatabase(path: path)
    for (operation, write) in [
      ("undo failed", { try database.undo() }), ("restoring seq 1 failed", { try database.restore(to: 1) }),
    ] as [(String, () throws -> Int64?)] {
      let error = #expect(throws: RewindError.self) { _ = try write() }
      #expect(error?.code == .commitFailed, "\(String(describing: error))")
      #expect(error?.message == "\(operation); nothing was written", "\(String(describing: error))")
      #expect("\(error!)".contains("injected"))
      #expect(try dump(path) == file)
    }
  }
}
