import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// A store's write first takes in what other connections committed since its last one
/// (`HistoryLog.sync`). A commit that logged nothing (a snapshot stored by the tool, or by the
/// store's own worker on a connection of its own, part after part) leaves the position as it
/// was: only the latest snapshot is read. One that logged an entry, compacted or migrated has
/// the position read again.
@MainActor
@Suite struct OtherWritersSyncTests {
  let directory: TemporaryDirectory
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("journal.sqlite")
  }

  func storeWithEntries(_ count: Int = 5) throws -> JournalStore {
    let store = try JournalStore.journal(path: path)
    for index in 0..<count { try store.send(.add(title: "Entry \(index)")) }
    return store
  }

  func fileLastSeq() throws -> Int64 {
    try DatabaseQueue(path: path).read { try Int64.fetchOne($0, sql: "SELECT max(seq) FROM action_log") ?? 0 }
  }

  /// The store's own commits change the connection's data version too: each is taken as the
  /// version the next write starts from, so a run of sends looks at nothing, while a commit
  /// by another connection in between is looked at by the next write, once.
  @Test func ownCommitsAreNotLookedAtAndAnotherConnectionsCommitIs() throws {
    let store = try storeWithEntries(1)
    // The first write after opening looks once: the open's own setup committed after the
    // position was read.
    try store.send(.add(title: "Settled"))
    let looked = store.repository.history.commitsLookedAt
    for index in 0..<5 { try store.send(.add(title: "Own \(index)")) }
    _ = try store.undo()
    _ = try store.redo()
    #expect(store.repository.history.commitsLookedAt == looked)
    _ = try RewindDatabase(path: path).snapshot(label: "by another connection")
    try store.send(.add(title: "After the other connection"))
    #expect(store.repository.history.commitsLookedAt == looked + 1)
    try store.send(.add(title: "Own again"))
    #expect(store.repository.history.commitsLookedAt == looked + 1)
    // An entry logged by another connection is followed, through the data version alone.
    _ = try RewindDatabase(path: path).undo()
    let reloads = store.repository.history.reloads
    try store.send(.add(title: "After the tool's undo"))
    #expect(store.repository.history.reloads == reloads + 1)
    #expect(!store.state.entries.values.contains { $0.title == "Own again" })
    #expect(try fileState(path) == store.state)
  }

  /// Catching up with another writer looks only at its entries for the end of an undo group:
  /// typing goes on as one step across the other writer's view-only actions (as for a store
  /// that opens the file then), and ends at its undoable one. (Each catch-up walked back over
  /// every view-only entry since the group's last action: 30 ms at 80,000.)
  @Test func typingStaysOneStepAcrossAnotherWritersViewOnlyActionsAndEndsAtItsUndoableOne() throws {
    let path = directory.path("tasks.sqlite")
    let typing = try TasksStore.tasks(path: path)
    try typing.send(.add(title: "Note"))
    let other = try TasksStore.tasks(path: path)
    try typing.send(.append(id: 1, text: "a"))
    for offset in 1...20 { try other.send(.scroll(Double(offset))) }
    try typing.send(.append(id: 1, text: "b"))
    for offset in 21...40 { try other.send(.scroll(Double(offset))) }
    try typing.send(.append(id: 1, text: "c"))
    #expect(typing.state.tasks[1]?.title == "Noteabc")
    // A store opening the file now finds the group open too.
    let reopened = try TasksStore.tasks(path: path)
    try other.send(.scroll(41))
    try reopened.send(.append(id: 1, text: "d"))
    try typing.reload()
    _ = try typing.undo()
    #expect(typing.state.tasks[1]?.title == "Note")
    _ = try typing.redo()
    #expect(typing.state.tasks[1]?.title == "Noteabcd")
    // Another writer's undoable action ends the group: the next append is a step of its own.
    try other.send(.add(title: "Other"))
    try typing.send(.append(id: 1, text: "e"))
    _ = try typing.undo()
    #expect(typing.state.tasks[1]?.title == "Noteabcd")
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  /// Catching up reads the undo stacks' tops again only when the other writer logged an entry
  /// that touched them (each catch-up walked the whole redo stack: 12 ms a send, with 32,000
  /// steps undone, after each of another writer's view-only actions). With many steps undone,
  /// both stores agree on what undo and redo do next, whoever moved them.
  @Test func catchingUpReadsTheUndoStacksOnlyAfterAnEntryThatTouchedThem() throws {
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    for index in 1...30 { try store.send(.add(title: "Task \(index)")) }
    for _ in 1...20 { _ = try store.undo() }
    let other = try TasksStore.tasks(path: path)
    let reads = store.repository.history.stackReads
    try other.send(.scroll(1))
    try store.send(.scroll(2))
    #expect(store.repository.history.stackReads == reads)
    #expect(store.canUndo && store.canRedo)
    // Another writer's redo moves the stacks: the next catch-up reads them.
    _ = try other.redo()
    try store.send(.scroll(3))
    #expect(store.repository.history.stackReads == reads + 1)
    #expect(store.state.tasks.count == 11)
    _ = try store.redo()
    #expect(store.state.tasks.count == 12)
    _ = try RewindDatabase(path: path).undo()
    _ = try store.undo()
    #expect(store.state.tasks.count == 10)
    try other.reload()
    #expect(other.state == store.state)
    _ = try other.redo()
    try store.reload()
    #expect(store.state.tasks.count == 11)
    #expect(try TasksStore.tasks(path: path, readOnly: true).state == store.state)
  }

  /// The stacks a history menu lists are their tops, next first, in every process: with more
  /// steps undone than listed, and after another writer moved them.
  @Test func historyStacksListTheTopsOfBothStacks() throws {
    let path = directory.path("stacks.sqlite")
    let store = try TasksStore.tasks(path: path)
    for index in 1...30 { try store.send(.add(title: "Task \(index)")) }
    let steps = try store.historyStacks(limit: 100).undo.map(\.id)  // newest first
    #expect(steps.count == 30)
    for _ in 1...20 { _ = try store.undo() }
    var stacks = try store.historyStacks(limit: 4)
    #expect(stacks.undo.map(\.id) == Array(steps[20..<24]))
    #expect(stacks.redo.map(\.id) == Array(steps[16..<20].reversed()))
    #expect(stacks.undo.allSatisfy { $0.actions == ["add"] })
    #expect(try store.historyStacks(limit: 0) == HistoryStacks(undo: [], redo: []))
    _ = try RewindDatabase(path: path).redo()
    try store.reload()
    stacks = try store.historyStacks(limit: 2)
    #expect(stacks.undo.map(\.id) == Array(steps[19..<21]))
    #expect(stacks.redo.map(\.id) == [steps[18], steps[17]])
    // A new step drops the redo stack.
    try store.send(.add(title: "New"))
    stacks = try store.historyStacks(limit: 3)
    #expect(stacks.redo.isEmpty)
    #expect(stacks.undo.map(\.id) == [store.lastSeq, steps[19], steps[20]])
  }

  @Test func aCommitThatLogsNothingIsTakenWithoutReadingThePositionAgain() throws {
    let store = try storeWithEntries()
    let reloads = store.repository.history.reloads
    let seq = try RewindDatabase(path: path).snapshot(label: "by the tool")
    try store.send(.add(title: "After the snapshot"))
    #expect(store.repository.history.reloads == reloads)
    // The automatic snapshot policy counts from the tool's snapshot.
    #expect(store.repository.history.lastSnapshotSeq == seq)
    #expect(try fileState(path) == store.state)
    #expect(try RewindDatabase(path: path).verify().problems == [])
    // Undo goes on from the position the store kept.
    _ = try store.undo()
    #expect(!store.state.entries.values.contains { $0.title == "After the snapshot" })
    #expect(try fileState(path) == store.state)
  }

  @Test func aCommitThatLoggedAnEntryHasThePositionReadAgainAndFollowed() throws {
    let store = try storeWithEntries()
    let reloads = store.repository.history.reloads
    _ = try RewindDatabase(path: path).undo()
    try store.send(.add(title: "After the tool's undo"))
    #expect(store.repository.history.reloads == reloads + 1)
    #expect(!store.state.entries.values.contains { $0.title == "Entry 4" })
    #expect(try fileState(path) == store.state)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  /// Once: what the quick look read (the base moved past what the store saw, the tables were
  /// rebuilt) says the log did not only grow, so the position is not first read as if it had.
  @Test func aCompactionOrARebuildHasThePositionReadAgainOnce() throws {
    let store = try storeWithEntries()
    var reloads = store.repository.history.reloads
    _ = try RewindDatabase(path: path).compact(keep: 2)
    try store.send(.add(title: "After compaction"))
    #expect(store.repository.history.reloads == reloads + 1)
    #expect(try fileState(path) == store.state)
    #expect(try RewindDatabase(path: path).verify().problems == [])

    // Entries the store has not seen, compacted away: the state is read from the tables.
    let other = try JournalStore.journal(path: path)
    for index in 0..<3 { try other.send(.add(title: "Unseen \(index)")) }
    _ = try RewindDatabase(path: path).compact(keep: 1)
    reloads = store.repository.history.reloads
    try store.send(.add(title: "After the unseen entries' compaction"))
    #expect(store.repository.history.reloads == reloads + 1)
    #expect(store.state.entries.values.contains { $0.title == "Unseen 2" })
    #expect(try fileState(path) == store.state)

    try DatabaseQueue(path: path).write { try $0.execute(sql: "UPDATE entries SET title = 'by hand'") }
    #expect(try RewindDatabase(path: path).rebuildTables().rowCount > 0)
    reloads = store.repository.history.reloads
    try store.send(.add(title: "After the rebuild"))
    #expect(store.repository.history.reloads == reloads + 1)
    #expect(try fileState(path) == store.state)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  /// A value the quick look cannot take (the base seq written as text, by hand) has the
  /// position read again, which names it; nothing is written.
  @Test func aTamperedBaseSeqIsReportedByTheNextWriteAndNothingIsWritten() throws {
    let store = try storeWithEntries(2)
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "INSERT OR REPLACE INTO rewind_meta (key, value) VALUES ('base_seq', 'soon')")
    }
    let lastSeq = try fileLastSeq()
    #expect {
      try store.send(.add(title: "Refused"))
    } throws: { error in
      (error as? RewindError)?.code == .corruptData && "\(error)".contains("base_seq")
    }
    #expect(try fileLastSeq() == lastSeq)
  }
}
