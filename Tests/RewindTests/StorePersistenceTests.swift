import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

@MainActor
struct StorePersistenceTests {
  /// A session that touches every kind of part: entities, both lists, and each view property,
  /// including enum and optional values.
  static let session: [TasksAction] = [
    .add(title: "Buy milk"), .add(title: "Write report"), .add(title: "Call Alice"),
    .toggle(id: 1), .favorite(id: 2), .favorite(id: 3), .move(id: 3, to: 0),
    .rename(id: 2, title: "Write the report"), .append(id: 2, text: " by Friday"),
    .select(id: 2), .setEditing(true), .search("report"), .scroll(12.5),
    .present(.newTask(draftTitle: "Plan \"the\" trip")), .delete(id: 1),
  ]

  @Test func reopeningYieldsTheCommittedState() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    var committed = TasksState()
    do {
      let store = try TasksStore.tasks(path: path)
      for action in Self.session { try store.send(action) }
      committed = store.state
    }
    #expect(committed.allTasks.ids == [3, 2])
    #expect(committed.favorited.ids == [2, 3])
    #expect(committed.view.modal == .newTask(draftTitle: "Plan \"the\" trip"))

    let reopened = try TasksStore.tasks(path: path)
    #expect(reopened.state == committed)
    #expect(reopened.state.view == committed.view)
    #expect(reopened.lastSeq == Int64(Self.session.count) + 1)  // + the initialize entry

    // The optional and enum view values round-trip through their absence, too.
    try reopened.send(.dismiss)
    try reopened.send(.select(id: nil))
    let cleared = reopened.state
    #expect(try TasksStore.tasks(path: path).state == cleared)
  }

  @Test func openingReadsTablesWithoutReplayingTheLog() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let committed = try { () throws -> TasksState in
      let store = try TasksStore.tasks(path: path)
      for action in Self.session { try store.send(action) }
      return store.state
    }()
    // Given a log whose entries are gone, the state still loads: it comes from the tables.
    try DatabaseQueue(path: path).write { db in try db.execute(sql: "DELETE FROM action_log") }
    #expect(try TasksStore.tasks(path: path).state == committed)
  }

  @Test func aFailedCommitLeavesTheDatabaseAndTheStoreUnchanged() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    try store.send(.add(title: "Buy milk"))
    try store.send(.favorite(id: 1))
    // Given a database that refuses to log one kind of action (after its rows were written).
    try DatabaseQueue(path: path).write { db in
      try db.execute(
        sql: """
          CREATE TRIGGER refuse_delete BEFORE INSERT ON action_log WHEN NEW.action = 'delete'
          BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
          """)
    }
    let stateBefore = store.state
    let rowsBefore = try dump(path)
    let seqBefore = store.lastSeq

    #expect {
      try store.send(.delete(id: 1))
    } throws: { error in
      (error as? RewindError)?.code == .commitFailed && "\(error)".contains("refused by the test")
    }
    #expect(store.state == stateBefore)
    #expect(store.lastSeq == seqBefore)
    #expect(try dump(path) == rowsBefore)

    // The store keeps working from the committed state, and tracks changes correctly after it.
    try store.send(.rename(id: 1, title: "Buy oat milk"))
    #expect(try TasksStore.tasks(path: path).state == store.state)
    #expect(store.state.favorited.ids == [1])
  }

  @Test func writesFollowTheChangeNotTheStateSize() throws {
    let directory = try TemporaryDirectory()
    var initial = TasksState()
    for id in Int64(1)...10_000 {
      initial.tasks.insert(TaskItem(id: id, title: "Task \(id)"))
      initial.allTasks.append(id)
      if id % 10 == 0 { initial.favorited.append(id) }
    }
    let store = try TasksStore(
      path: directory.path("big.sqlite"), initialState: initial, reducer: TasksReducer())
    #expect(store.state.tasks.count == 10_000)

    func rowsWritten(by action: TasksAction) throws -> Int {
      let database = store.repository.database
      let before = database.writeWithoutTransaction { $0.totalChangesCount }
      try store.send(action)
      return database.writeWithoutTransaction { $0.totalChangesCount } - before
    }
    // One log row, one undo step row for a document change, and exactly the rows changed.
    #expect(try rowsWritten(by: .rename(id: 5_000, title: "Renamed")) == 1 + 1 + 1)
    #expect(try rowsWritten(by: .move(id: 9_999, to: 1)) == 1 + 1 + 1)
    #expect(try rowsWritten(by: .add(title: "New")) == 1 + 1 + 2)  // task, list entry
    #expect(try rowsWritten(by: .select(id: 42)) == 1 + 1)  // view only: no undo step
    #expect(try rowsWritten(by: .delete(id: 20)) == 1 + 1 + 3)  // task, two list entries
    // Undo writes the same rows back, plus its log row and the step's flag.
    let database = store.repository.database
    let before = database.writeWithoutTransaction { $0.totalChangesCount }
    try store.undo()
    #expect(database.writeWithoutTransaction { $0.totalChangesCount } - before == 1 + 1 + 3)
  }

  @Test func everyActionIsLoggedByNameWithItsRowChanges() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    for action in Self.session { try store.send(action) }
    let (names, changes) = try DatabaseQueue(path: path).read { db in
      (
        try String.fetchAll(db, sql: "SELECT action FROM action_log ORDER BY seq"),
        try String.fetchAll(db, sql: "SELECT changes FROM action_log ORDER BY seq")
      )
    }
    #expect(names == ["initialize"] + Self.session.map(\.name))
    // The rename's entry records the row before and after.
    let rename = try RowChange.decodeJSON(changes[8])
    #expect(rename.count == 1)
    #expect(rename[0].before?["title"] == "Write report".databaseValue)
    #expect(rename[0].after?["title"] == "Write the report".databaseValue)
  }

  @Test func newDatabasesUseWALAndAreReadableByTheirOwnerOnly() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    _ = try TasksStore.tasks(path: path)
    let mode = try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
    #expect(mode == "wal")
    let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    #expect(permissions == 0o600)
  }
}
