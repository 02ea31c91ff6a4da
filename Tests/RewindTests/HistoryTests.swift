import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

@MainActor
struct HistoryTests {
  let directory: TemporaryDirectory
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("tasks.sqlite")
  }

  func open() throws -> TasksStore { try TasksStore.tasks(path: path) }

  func log() throws -> [String] {
    try DatabaseQueue(path: path).read { db in
      try Row.fetchAll(db, sql: "SELECT kind, action, step FROM action_log ORDER BY seq").map {
        "\($0["kind"] as String) \($0["action"] as String) \(($0["step"] as Int64?).map(String.init) ?? "-")"
      }
    }
  }

  @Test func undoRevertsTheDeleteAcrossProcessesAndRedoReappliesIt() throws {
    try open().send(.add(title: "A"))
    try open().send(.add(title: "B"))
    try open().send(.select(id: 2))
    try open().send(.delete(id: 1))
    #expect(try open().undo() != nil)
    #expect(try open().state.tasks[1]?.title == "A")
    #expect(try open().state.allTasks.ids == [1, 2])
    #expect(try open().redo() != nil)
    #expect(try open().state.tasks[1] == nil)
    #expect(try open().state.view.selection == 2)
  }

  @Test func undoSkipsViewOnlyActions() throws {
    let store = try open()
    try store.send(.add(title: "X"))
    try store.send(.rename(id: 1, title: "Y"))
    try store.send(.select(id: 1))
    try store.send(.search("Y"))
    try store.send(.setEditing(true))
    try store.undo()
    #expect(store.state.tasks[1]?.title == "X")
    // The view-only actions after it are kept.
    #expect(store.state.list.searchText == "Y")
    #expect(store.state.list.isEditing)
    #expect(store.state.view.selection == 1)
  }

  @Test func undoRevertsTheViewStatePartOfAnAction() throws {
    let store = try open()
    try store.send(.add(title: "A"))
    try store.send(.select(id: 1))
    try store.send(.delete(id: 1))  // also clears the selection
    #expect(store.state.view.selection == nil)
    try store.undo()
    #expect(store.state.view.selection == 1)
  }

  /// No view-state row loads as the property's default, so undo counts a row the step left
  /// holding the default, and removed since (a view-only jump to seq 0 removes every row),
  /// as still what the step left: the value it replaced comes back. Found by helper-29's
  /// playlist app (its model test).
  @Test func undoRestoresAViewValueTheStepSetToTheDefaultWhoseRowWasRemovedSince() throws {
    let journal = try JournalStore.journal(path: directory.path("journal.sqlite"))
    try journal.send(.add(title: "One"))
    try journal.send(.select(id: 1))  // so that the jump to seq 0 below changes what shows
    try journal.send(.scroll(5))
    try journal.send(.scroll(0))  // a row holding the default
    let one = journal.lastSeq
    try journal.send(.scroll(21))
    try journal.send(.add(title: "Two"))
    try journal.jump(to: one)  // an undoable step: the second entry goes, the scroll's row holds 0
    #expect(journal.state.view.scroll == 0)
    // Not a step; it removes every view row, and the scroll shows 0 before and after.
    #expect(try journal.jump(to: 0, timeline: .view) != nil)
    #expect(journal.state.view.scroll == 0 && journal.state.view.selection == nil)
    try journal.undo()
    #expect(journal.state.entries.count == 2)
    #expect(journal.state.view.scroll == 21)
    #expect(journal.state.view.selection == nil, "the selection the jump to seq 0 cleared is not the step's")
    #expect(try fileState(directory.path("journal.sqlite")) == journal.state)
    try journal.redo()
    #expect(journal.state.entries.count == 1)
    #expect(journal.state.view.scroll == 0)
    #expect(try fileState(directory.path("journal.sqlite")) == journal.state)
  }

  @Test func consecutiveAppendsAreOneStepEvenAcrossRelaunch() throws {
    try open().send(.add(title: "X"))
    try open().send(.add(title: "T"))
    for text in ["a", "b", "c"] { try open().send(.append(id: 2, text: text)) }
    #expect(try open().state.tasks[2]?.title == "Tabc")
    try open().undo()
    #expect(try open().state.tasks[2]?.title == "T")
    #expect(try open().state.tasks[1]?.title == "X")
    let stacks = try open().historyStacks()
    #expect(stacks.redo.first?.actions == ["append", "append", "append"])
    #expect(stacks.redo.first?.groupKey == "typing-2")
  }

  @Test func aDifferentActionOrAnUndoEndsAGroup() throws {
    let store = try open()
    try store.send(.add(title: "T"))
    try store.send(.append(id: 1, text: "a"))
    try store.send(.toggle(id: 1))
    try store.send(.append(id: 1, text: "b"))
    try store.send(.append(id: 1, text: "c"))
    try store.undo()  // "bc"
    #expect(store.state.tasks[1]?.title == "Ta")
    try store.redo()
    try store.undo()
    try store.send(.append(id: 1, text: "d"))  // a new step, not joined to the undone one
    try store.undo()
    #expect(store.state.tasks[1]?.title == "Ta")
    #expect(store.state.tasks[1]?.isDone == true)
  }

  @Test func typingIntoAnotherTaskIsAnotherStep() throws {
    let store = try open()
    try store.send(.add(title: "A"))
    try store.send(.add(title: "B"))
    try store.send(.append(id: 1, text: "1"))
    try store.send(.append(id: 2, text: "2"))
    try store.undo()
    #expect(store.state.tasks[1]?.title == "A1")
    #expect(store.state.tasks[2]?.title == "B")
  }

  @Test func aNewActionAfterUndoDropsTheRedoPathButKeepsItsEntries() throws {
    let store = try open()
    try store.send(.add(title: "A"))
    try store.send(.add(title: "B"))
    try store.undo()
    #expect(store.canRedo)
    try store.send(.add(title: "C"))
    #expect(!store.canRedo)
    #expect(try store.redo() == nil)
    #expect(store.state.visibleTasks.map(\.title) == ["A", "C"])
    // The undone add is still in the log, and still reachable by a jump.
    #expect(try log().filter { $0.hasPrefix("action add") }.count == 3)
    try store.jump(to: 3)
    #expect(store.state.visibleTasks.map(\.title) == ["A", "B"])
  }

  @Test func undoAndRedoAreLogEntriesAndAJumpCanBeUndone() throws {
    let store = try open()
    try store.send(.add(title: "A"))
    try store.send(.add(title: "B"))
    try store.jump(to: 2)
    #expect(store.state.tasks.count == 1)
    try store.undo()  // undoes the jump
    #expect(store.state.tasks.count == 2)
    try store.redo()
    #expect(store.state.tasks.count == 1)
    #expect(
      try log() == [
        "initialize initialize -", "action add 2", "action add 3", "jump jump 4", "undo undo -", "redo redo -",
      ])
  }

  @Test func aDocumentJumpRepairsADanglingSelectionAndLogsTheRepair() throws {
    let store = try open()
    try store.send(.add(title: "A"))  // seq 2
    try store.send(.add(title: "B"))
    try store.send(.select(id: 2))
    try store.send(.search("B"))
    try store.jump(to: 2, timeline: .document)
    #expect(store.state.tasks.ids.sorted() == [1])
    #expect(store.state.view.selection == nil)  // repaired
    #expect(store.state.list.searchText == "B")  // the rest of the view state stays
    #expect(try log().suffix(2) == ["jump jump 6", "repair repair 6"])
    // Undoing the jump brings back the task and the selection: the repair is part of the step.
    try store.undo()
    #expect(store.state.tasks.ids.sorted() == [1, 2])
    #expect(store.state.view.selection == 2)
    #expect(try open().state == store.state)
  }

  @Test func aViewJumpLeavesTheDocument() throws {
    let store = try open()
    try store.send(.add(title: "A"))
    try store.send(.scroll(50))  // seq 3
    try store.send(.present(.settings))
    try store.send(.add(title: "B"))
    try store.jump(to: 3, timeline: .view)
    #expect(store.state.list.scrollOffset == 50)
    #expect(store.state.view.modal == nil)
    #expect(store.state.tasks.count == 2)
    // A view-only jump changes no document: undo skips it and reverts the add.
    try store.undo()
    #expect(store.state.tasks.count == 1)
    #expect(store.state.list.scrollOffset == 50)
  }

  /// Seq 0 is before the initial state's view-state rows were written: a jump there deletes
  /// them, and the view state loads as its defaults. A jump to seq 1 from there writes the
  /// defaults' rows back, which changes the file but not the state: it is a jump that changes
  /// nothing, so it is not logged, and it does not come between an undo and the jump it reverts.
  @Test func aJumpThatOnlyWritesViewStateDefaultsBackChangesNothing() throws {
    let store = try open()
    try store.send(.add(title: "A"))
    try store.send(.scroll(50))
    try store.jump(to: 0)
    #expect(store.state.tasks.isEmpty)
    #expect(store.state.list.scrollOffset == 0)
    let entries = try log()
    #expect(try store.jump(to: 1) == nil)
    #expect(try log() == entries)
    try store.undo()  // reverts the jump to 0, view state included
    #expect(store.state.tasks.count == 1)
    #expect(store.state.list.scrollOffset == 50)
    #expect(try open().state == store.state)
    // A jump that changes the state as well still writes every row, defaults included.
    try store.jump(to: 0)
    try store.send(.add(title: "B"))
    #expect(try store.jump(to: 1) != nil)
    #expect(store.state.tasks.isEmpty)
    #expect(try open().state == store.state)
    #expect(try RewindDatabase(path: path).verify().isHealthy)
  }

  @Test func jumpingToASeqThatIsNotInTheLogIsAnErrorThatChangesNothing() throws {
    let store = try open()
    try store.send(.add(title: "A"))
    let rows = try dump(path)
    for seq: Int64 in [-1, 99] {
      #expect { try store.jump(to: seq) } throws: { ($0 as? RewindError)?.code == .unknownSeq }
    }
    #expect(try dump(path) == rows)
    #expect(store.state.tasks.count == 1)
  }

  @Test func aStoreDoesNotOverwriteWhatAnotherProcessWrote() throws {
    let first = try open()
    let second = try open()
    try first.send(.add(title: "From the first"))
    // The second store catches up inside its transaction, then adds on top: a new id.
    #expect(try second.send(.add(title: "From the second")) != nil)
    #expect(second.state.tasks[1]?.title == "From the first")
    #expect(second.state.tasks[2]?.title == "From the second")
    #expect(try open().state == second.state)
    #expect(try RewindDatabase(path: path).verify().isHealthy)
  }

  @Test func canUndoAndCanRedoFollowTheStacks() throws {
    let store = try open()
    #expect(!store.canUndo && !store.canRedo)
    try store.send(.select(id: nil))
    #expect(!store.canUndo)  // view-only
    try store.send(.add(title: "A"))
    #expect(store.canUndo && !store.canRedo)
    try store.undo()
    #expect(!store.canUndo && store.canRedo)
    #expect(try open().canRedo)
  }
}

// MARK: - Opting out of undo

/// A second app, to show an action opting out of undo.
private struct Memo: Entity {
  static let databaseTableName = "memos"
  var id: Int64
  var text: String
  var savedAt: Int64
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("text", .text).notNull()
      t.column("savedAt", .integer).notNull()
    }
  }
}

private struct MemosState: PersistentState, Equatable {
  var memos = EntityTable<Memo>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.memos)) }
}

private enum MemosAction: LoggedAction {
  case write(id: Int64, text: String)
  /// Bookkeeping the user did not do: not undoable.
  case stamp(id: Int64, time: Int64)
  var isUndoable: Bool {
    if case .stamp = self { return false }
    return true
  }
}

private struct MemosReducer: Reducer {
  func reduce(into state: inout MemosState, action: MemosAction) -> Effect<MemosAction> {
    switch action {
    case .write(let id, let text):
      state.memos[id] = Memo(id: id, text: text, savedAt: state.memos[id]?.savedAt ?? 0)
    case .stamp(let id, let time):
      state.memos[id]?.savedAt = time
    }
    return .none
  }
}

@MainActor
struct UndoOptOutTests {
  @Test func anActionThatOptsOutIsLoggedButSkippedByUndo() throws {
    let store = try Store(inMemory: MemosState(), reducer: MemosReducer())
    try store.send(.write(id: 1, text: "first"))
    try store.send(.stamp(id: 1, time: 100))
    #expect(store.canUndo)
    try store.undo()
    #expect(store.state.memos[1] == nil)
    #expect(!store.canUndo)
    try store.redo()
    // Redo reverts exactly what the undo did: the undo deleted the memo the step had inserted,
    // with the stamp a non-undoable action gave it since, and redo brings back that row.
    #expect(store.state.memos[1]?.text == "first")
    #expect(store.state.memos[1]?.savedAt == 100)
    let stacks = try store.historyStacks()
    #expect(stacks.undo.map(\.actions) == [["write"]])
  }
}
