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
}
