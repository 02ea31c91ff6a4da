import Foundation
import GRDB
import TasksExample
import Testing

@testable import Rewind

/// Each case reported in issue 10 ("History you can trust"), reproduced on the library: these
/// failed before the engine was changed.
@MainActor
struct TrustRegressionTests {
  let directory: TemporaryDirectory
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("journal.sqlite")
  }

  func verify() throws -> [String] { try RewindDatabase(path: path).verify().problems }

  // MARK: - Two writers

  @Test func twoStoresWritingOneFileLoseNothingAndNeverRefuse() throws {
    let a = try JournalStore.journal(path: path)
    let b = try JournalStore.journal(path: path)
    for index in 0..<30 {
      try a.send(.add(title: "a\(index)"))
      try b.send(.add(title: "b\(index)"))
      // Each computes on the rows as they are now: b renames a's latest note, not a stale one.
      try b.send(.rename(id: a.state.entries.nextID - 1, title: "a\(index)!"))
    }
    let titles = Set(try fileState(path).entries.values.map(\.title))
    for index in 0..<30 {
      #expect(titles.contains("a\(index)!"))
      #expect(titles.contains("b\(index)"))
    }
    #expect(try fileState(path).entries.count == 60)
    #expect(b.state == (try fileState(path)))
    #expect(try verify() == [])
  }

  @Test func aStoreCatchesUpBeforeItsReducerRuns() throws {
    let a = try JournalStore.journal(path: path)
    let b = try JournalStore.journal(path: path)
    try a.send(.add(title: "one"))
    // b has not seen note 1; its add must not reuse id 1 and overwrite it.
    try b.send(.add(title: "two"))
    #expect(b.state.entries[1]?.title == "one")
    #expect(b.state.entries[2]?.title == "two")
    #expect(try fileState(path).entries.count == 2)
    #expect(b.state == (try fileState(path)))
    #expect(try verify() == [])
  }

  // MARK: - Snapshots

  @Test func aSnapshotIsLabelledWithTheSeqOfTheStateItHolds() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "one"))
    let tool = try RewindDatabase(path: path)
    try store.send(.add(title: "two"))  // the tool's position is now stale
    _ = try tool.queue.write { db in try tool.history.takeSnapshot(kind: "automatic", label: nil, db) }
    #expect(try verify() == [])
    let export = try tool.export(at: store.lastSeq)
    #expect(export.contains("\"two\""))
  }

  // MARK: - Undo never clobbers

  @Test func undoKeepsAColumnALaterNonUndoableActionSet() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "A"))
    try store.send(.type(id: 1, text: "body"))
    try store.send(.syncRename(id: 1, title: "synced"))
    try store.undo()  // the typing
    #expect(store.state.entries[1]?.body == "")
    #expect(store.state.entries[1]?.title == "synced")
    try store.redo()
    #expect(store.state.entries[1]?.body == "body")
    #expect(store.state.entries[1]?.title == "synced")
    #expect(try verify() == [])
  }

  /// A group of typing that spans a non-undoable action: the step's entries never changed the
  /// column the non-undoable action set (found by an app written on the library, whose undo
  /// of the typing also reverted a sync counter).
  @Test func undoOfAGroupKeepsAColumnANonUndoableActionSetInsideIt() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "A"))
    try store.send(.type(id: 1, text: "a"))
    try store.send(.syncRename(id: 1, title: "synced"))
    try store.send(.type(id: 1, text: "b"))
    try store.undo()  // the typing, one step
    #expect(store.state.entries[1]?.body == "")
    #expect(store.state.entries[1]?.title == "synced")
    #expect(store.state == (try fileState(path)))
    try store.redo()
    #expect(store.state.entries[1]?.body == "ab")
    #expect(store.state.entries[1]?.title == "synced")
    #expect(try verify() == [])
  }

  /// View state an action left pointing at the entity it deleted is repaired when the next
  /// process opens the file, in the action's step: undo there gives what undo in the first
  /// process gives (the sheet back with its entity), not the repair's state.
  @Test func undoAfterReopeningGivesWhatUndoInTheSameProcessGives() throws {
    let first = try JournalStore.journal(path: path)
    try first.send(.add(title: "A"))
    try first.send(.select(id: 1))
    try first.send(.present(.edit(id: 1)))
    try first.send(.delete(id: 1))  // leaves the selection and the sheet dangling
    let copy = directory.path("copy.sqlite")
    _ = try RewindDatabase(path: path).backup(to: copy)
    try first.undo()
    let reopened = try JournalStore.journal(path: copy)
    #expect(reopened.state.view.modal == nil)  // repaired on open
    try reopened.undo()
    #expect(reopened.state == first.state)
    #expect(reopened.state.view.modal == .edit(id: 1))
    #expect(try RewindDatabase(path: copy).verify().problems == [])
  }

  @Test func undoDoesNotBringBackARowALaterActionDeleted() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "A"))
    try store.send(.rename(id: 1, title: "B"))
    try store.send(.syncDelete(id: 1))
    _ = try store.undo()
    // The note stays deleted: no note without its list entry, a state that never existed.
    #expect(store.state.entries[1] == nil)
    #expect(store.state.all.ids == [])
    #expect(store.state == (try fileState(path)))
    #expect(try verify() == [])
  }

  @Test func undoThatWouldLeaveAListEntryWithoutItsEntityIsRefused() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "A"))
    try store.send(.syncPin(id: 1))  // a list entry the add's step did not write
    let before = try dump(path)
    #expect {
      try store.undo()
    } throws: { error in
      "\(error)".contains("pinned") && "\(error)".contains("entries")
    }
    #expect(try dump(path) == before)
    #expect(store.state.entries[1]?.pinned == true)
    #expect(store.state == (try fileState(path)))
  }

  @Test func undoThenRedoReturnsExactlyWhereItStarted() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "A"))
    try store.send(.select(id: 1))
    try store.send(.present(.edit(id: 1)))
    let start = store.state
    try store.undo()  // the add: repair clears the selection and the modal
    #expect(store.state.view.selection == nil)
    #expect(store.state.view.modal == nil)
    try store.redo()
    #expect(store.state == start)
    try store.undo()
    try store.redo()
    #expect(store.state == start)
    #expect(store.state == (try fileState(path)))
  }

  // MARK: - Compaction

  @Test func compactingEverythingKeepsSeqsMonotonicAndTheFileHealthy() throws {
    let store = try JournalStore.journal(path: path)
    for index in 0..<5 { try store.send(.add(title: "n\(index)")) }
    let last = store.lastSeq
    _ = try RewindDatabase(path: path).compact(keep: 0)
    let reopened = try JournalStore.journal(path: path)
    let seq = try #require(try reopened.send(.add(title: "after")))
    #expect(seq > last)
    #expect(try verify() == [])
    let tool = try RewindDatabase(path: path)
    _ = try tool.export(at: seq)
    _ = try tool.restore(to: seq - 1)
    _ = try tool.compact(keep: 0)
    #expect(try verify() == [])
  }

  @Test func compactingAfterUndosKeepsRedoExact() throws {
    let store = try JournalStore.journal(path: path)
    for index in 0..<6 { try store.send(.add(title: "n\(index)")) }
    let full = store.state
    try store.undo()
    try store.undo()
    _ = try RewindDatabase(path: path).compact(keep: 3)
    let reopened = try JournalStore.journal(path: path)
    try reopened.redo()
    try reopened.redo()
    #expect(reopened.state.entries == full.entries)
    #expect(reopened.state.all == full.all)
    #expect(try verify() == [])
  }

  @Test func compactingAfterUndosKeepsTheRedoneStepsDescribed() throws {
    let store = try JournalStore.journal(path: path)
    for index in 0..<6 { try store.send(.add(title: "n\(index)")) }
    let undos = [try #require(try store.undo()), try #require(try store.undo())]
    let undone = try undos.map { try #require(try store.step(movedBy: $0)) }
    // Keeping one entry would fold the undone steps' own entries: their redo would still
    // work, from the undo entries, but could no longer say what it reapplies.
    _ = try RewindDatabase(path: path).compact(keep: 1)
    let reopened = try JournalStore.journal(path: path)
    let redos = [try #require(try reopened.redo()), try #require(try reopened.redo())]
    let redone = try redos.map { try reopened.step(movedBy: $0) }
    #expect(redone == [undone[1], undone[0]])
    #expect(undone.allSatisfy { $0.actions == ["add"] && $0.seqs.count == 1 })
    #expect(try verify() == [])
  }

  @Test func aGroupStaysOpenAcrossReopeningAFileCreatedInBatches() throws {
    // 6,000 entries in `all`: 12,000 rows, logged as two `initialize` entries.
    var initial = JournalState()
    for id in Int64(1)...6_000 {
      initial.entries.insert(Entry(id: id, title: "e\(id)"))
      initial.all.append(id)
    }
    let store = try JournalStore(path: path, initialState: initial, reducer: JournalReducer())
    let initializeEntries = try DatabaseQueue(path: path).read { db in
      try Int.fetchOne(db, sql: "SELECT count(*) FROM action_log WHERE kind = 'initialize'")
    }
    #expect(initializeEntries == 2)
    try store.send(.type(id: 1, text: "a"))
    try store.send(.select(id: 2))
    let reopened = try JournalStore(path: path, initialState: JournalState(), reducer: JournalReducer())
    // Reopening finds the open group among the entries after the file's creation.
    try reopened.send(.type(id: 1, text: "ab"))
    let undo = try #require(try reopened.undo())
    #expect(try reopened.step(movedBy: undo)?.actions == ["type", "type"])
    #expect(reopened.state.entries[1]?.body == "")
    #expect(try verify() == [])
  }

  @Test func aRunningStoreNoticesACompaction() throws {
    let store = try JournalStore.journal(path: path)
    for index in 0..<4 { try store.send(.add(title: "n\(index)")) }
    let early = store.lastSeq - 2
    _ = try RewindDatabase(path: path).compact(keep: 0)
    // Nothing left to undo: undo says so instead of reporting a step it cannot revert.
    #expect(try store.undo() == nil)
    #expect(throws: RewindError.self) { try store.jump(to: early) }
    #expect(store.state == (try fileState(path)))
  }

  // MARK: - Failed jumps and reload

  @Test func aJumpToTheStartSucceedsAndMemoryEqualsTheFile() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "A"))
    _ = try? store.jump(to: 0)
    #expect(store.state == (try fileState(path)))
    try store.send(.add(title: "B"))
    #expect(store.state == (try fileState(path)))
    #expect(try verify() == [])
  }

  @Test func aJumpThatFailsToDecodeLeavesMemoryEqualToTheFile() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "A"))
    let seq = store.lastSeq
    try store.send(.rename(id: 1, title: "A2"))
    try store.send(.scroll(5))
    // Damage the row the jump must restore (the rename's "before"): its title is a blob that is
    // no UTF-8 (a number would be stored as text by the TEXT column, and read back), which does
    // not decode as Entry.title, while the entry's other rows still do.
    try DatabaseQueue(path: path).write { db in
      try db.execute(
        sql:
          #"UPDATE action_log SET changes = replace(changes, '"before":{"body":"","id":1,"pinned":0,"title":"A"}', '"before":{"body":"","id":1,"pinned":0,"title":{"$blob":"//4="}}') WHERE seq = ?"#,
        arguments: [seq + 1])
      #expect(db.changesCount == 1)
    }
    #expect(throws: RewindError.self) { try store.jump(to: seq) }
    #expect(store.state == (try fileState(path)))
    try store.send(.add(title: "C"))
    #expect(store.state == (try fileState(path)))
  }

  @Test func aDamagedImageTheTableRefusesIsARewindErrorAndChangesNothing() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "A"))
    let seq = store.lastSeq
    try store.send(.rename(id: 1, title: "A2"))
    // The rename's "before" now has a NULL title, which the table's NOT NULL refuses.
    try DatabaseQueue(path: path).write { db in
      try db.execute(
        sql: #"UPDATE action_log SET changes = replace(changes, '"title":"A"}', '"title":null}') WHERE seq = ?"#,
        arguments: [seq + 1])
      #expect(db.changesCount == 1)
    }
    #expect {
      try store.jump(to: seq)
    } throws: { error in
      (error as? RewindError)?.code == .commitFailed
        && (error as? RewindError)?.message == "jump to \(seq) failed; the state is as the file holds it"
    }
    #expect(store.state == (try fileState(path)))
    #expect(store.state.entries[1]?.title == "A2")
  }

  @Test func aViewValueThatNoLongerDecodesLoadsItsDefaultAndTheFileFollows() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "A"))
    let seq = store.lastSeq
    try store.send(.add(title: "B"))
    try store.send(.scroll(5))
    // The scroll's "before" no longer decodes as JournalView.scroll (as after a type change).
    try DatabaseQueue(path: path).write { db in
      try db.execute(
        sql: #"UPDATE action_log SET changes = replace(changes, '"value":"0"', '"value":"\"x\""') WHERE seq = ?"#,
        arguments: [store.lastSeq])
      #expect(db.changesCount == 1)
    }
    try store.jump(to: seq)
    #expect(store.state.view.scroll == 0 && store.state.entries.count == 1)
    #expect(store.state == (try fileState(path)))
    try store.send(.add(title: "C"))
    #expect(store.state == (try fileState(path)))
  }

  @Test func reloadIsOpen() throws {
    let a = try JournalStore.journal(path: path)
    let b = try JournalStore.journal(path: path)
    try a.send(.add(title: "A"))
    try a.send(.select(id: 1))
    try a.send(.present(.about))
    try b.reload()
    try b.send(.present(nil))
    try b.send(.syncDelete(id: 1))
    try a.reload()
    #expect(a.state.view.modal == nil)
    #expect(a.state.view.selection == nil)
    #expect(a.state == (try fileState(path)))
  }

  @Test func anOptionalWithADefaultStaysNilAfterReopening() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.setSort(nil))
    #expect(try fileState(path).view.sort == nil)
    try store.send(.setSort("date"))
    try store.undo()
    #expect(store.state.view.sort == "date")  // view-only: skipped by undo
    #expect(try fileState(path).view.sort == "date")
  }

  // MARK: - Silent damage

  @Test func aTitleWithNULRoundTripsOrIsRefused() throws {
    let store = try JournalStore.journal(path: path)
    do {
      try store.send(.add(title: "a\u{0}b"))
      #expect(try fileState(path).entries[1]?.title == "a\u{0}b")
    } catch let error as RewindError {
      #expect(error.description.contains("NUL"))
      #expect(store.state.entries.isEmpty)
    }
    #expect(try verify() == [])
  }

  @Test func aDroppedEntityTableIsAnErrorNotARecreatedEmptyOne() throws {
    try JournalStore.journal(path: path).send(.add(title: "A"))
    try DatabaseQueue(path: path).write { db in try db.execute(sql: "DROP TABLE entries") }
    #expect {
      _ = try JournalStore.journal(path: path)
    } throws: { error in
      "\(error)".contains("entries")
    }
  }

  @Test func anEditedSnapshotIsDetected() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "A"))
    _ = try RewindDatabase(path: path).snapshot(label: "s")
    try store.send(.add(title: "B"))
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "UPDATE snapshots SET rows = replace(rows, '\"A\"', '\"Z\"')")
    }
    #expect(throws: RewindError.self) { try RewindDatabase(path: path).restore(snapshot: "s") }
    #expect(try fileState(path).entries[1]?.title == "A")
  }

  @Test func anImportTheAppCouldNotDecodeIsRefused() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "A"))
    try store.send(.select(id: 1))
    try store.send(.present(.about))
    let tool = try RewindDatabase(path: path)
    let export = try tool.export()
    let before = try dump(path)
    for (from, to) in [(#""selection": 1"#, #""selection": "one""#), (#""search": """#, #""search": 5"#)] {
      #expect(export.contains(from))
      #expect {
        try tool.importState(export.replacingOccurrences(of: from, with: to))
      } throws: { error in
        (error as? RewindError)?.code == .invalidImport && "\(error)".contains("the app would not decode it")
      }
    }
    #expect(try dump(path) == before)
    // A value of the right shape (another enum case, nil for an optional) imports.
    let other = export.replacingOccurrences(of: #""modal": {"about":{}}"#, with: #""modal": {"edit":{"id":1}}"#)
    #expect(other != export)
    #expect(try tool.importState(other) != nil)
    #expect(try fileState(path).view.modal == .edit(id: 1))
  }

  /// Found while modelling imports: keeping the position keys of members that stayed at their
  /// index, and giving the others new keys from the start, mixed the two orders.
  @Test(arguments: [[3, 2, 1], [2, 1, 3], [1, 3, 2], [3, 1, 2], [2, 3, 1]])
  func anImportedOrderIsTheOrderImported(order: [Int64]) throws {
    let store = try JournalStore.journal(path: path)
    for title in ["a", "b", "c"] { try store.send(.add(title: title)) }
    let tool = try RewindDatabase(path: path)
    let export = try tool.export()
    #expect(export.contains(#""all": [1,2,3]"#))
    let reordered = export.replacingOccurrences(
      of: #""all": [1,2,3]"#, with: #""all": [\#(order.map(String.init).joined(separator: ","))]"#)
    try tool.importState(reordered)
    #expect(try fileState(path).all.ids == order)
    #expect(try tool.export() == reordered)
  }

  // Found by review.

  @Test func theRepairAfterAToolUndoIsPartOfThatUndo() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "A"))
    try store.send(.select(id: 1))
    let before = store.state
    _ = try RewindDatabase(path: path).undo()
    try store.reload()  // the app repairs the selection the tool's undo left dangling
    #expect(store.state.view.selection == nil)
    _ = try RewindDatabase(path: path).redo()
    try store.reload()
    #expect(store.state == before)
    #expect(try verify() == [])
  }

  @Test func theLargestIdDoesNotOverflow() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "A"))
    try store.send(.add(title: "B"))
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "UPDATE entries SET id = 9223372036854775807 WHERE id = 2")
      try db.execute(sql: "UPDATE list_entries SET id = 9223372036854775807 WHERE id = 2")
    }
    let reopened = try JournalStore.journal(path: path)
    try reopened.send(.add(title: "C"))
    #expect(reopened.state.entries[2]?.title == "C")
  }

  @Test func aStepOfTheWrongTypeIsAnErrorNotASilentUndo() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "A"))
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "UPDATE action_log SET step = 'x' WHERE step IS NOT NULL")
    }
    let before = try dump(path)
    #expect {
      try store.undo()
    } throws: { error in
      (error as? RewindError)?.code == .corruptData && "\(error)".contains("action_log.step")
    }
    #expect(try dump(path) == before)
    // The tool reports the same damage, naming it, rather than reading past it.
    #expect {
      try RewindDatabase(path: path).verify()
    } throws: { error in
      "\(error)".contains("action_log.step")
    }
  }

  @Test func inMemoryAndURIPathsAreRefused() throws {
    for bad in [":memory:", "file::memory:", "", "file:journal.sqlite?mode=memory"] {
      #expect(throws: RewindError.self, "\(bad)") { _ = try JournalStore.journal(path: bad) }
    }
  }

  /// A directory given as the database is named as one (SQLite said "disk I/O error").
  @Test func aDirectoryIsRefusedAsOne() throws {
    let folder = directory.path("folder")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    for open in [{ _ = try JournalStore.journal(path: folder) }, { _ = try RewindDatabase(path: folder) }] {
      let error = #expect(throws: RewindError.self) { try open() }
      #expect(error?.code == .invalidPath)
      #expect(error?.message == "\(folder) is a directory, not a database file")
    }
  }

  @Test func aFileTruncatedByOneByteIsRefused() throws {
    try JournalStore.journal(path: path).send(.add(title: "A"))
    try DatabaseQueue(path: path).writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
    }
    let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
    #expect(truncate(path, off_t(size - 1)) == 0)
    #expect(throws: RewindError.self) { _ = try JournalStore.journal(path: path) }
  }
}

/// A repair logged when a store catches up with another process's step mends what that step
/// left: it joins the step whatever logged it (an action, or the tool's restore, undo, redo or
/// import), so that undoing the step in any process gives the same state. Before, only a
/// repair after an action joined: undoing a tool's restore brought the deleted task back
/// but not its selection, which the store's repair had cleared as a step of its own.
@MainActor
struct RepairAfterToolStepTests {
  @Test func aRepairAfterAToolsRestoreJoinsTheRestoresStep() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer())
    try store.send(.add(title: "kept"))
    let early = store.lastSeq
    try store.send(.add(title: "restored away"))
    let id = try #require(store.state.allTasks.ids.last)
    try store.send(.select(id: id))
    let selected = store.state

    try RewindDatabase(path: path).restore(to: early, timeline: .document)
    try store.reload()  // catches up: the task is gone, and the repair clears its selection
    #expect(store.state.tasks[id] == nil)
    #expect(store.state.view.selection == nil)

    // Undoing the restore brings back the task and its selection, as in a process that did
    // not run in between.
    try store.undo()
    #expect(store.state.tasks[id] != nil)
    #expect(store.state.view.selection == id)
    #expect(store.state == selected)
    #expect(try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer()).state == selected)
    #expect(try RewindDatabase(path: path).verify().problems == [])

    // Redone, the task goes again and its selection with it.
    try store.redo()
    #expect(store.state.tasks[id] == nil)
    #expect(store.state.view.selection == nil)
  }
}
