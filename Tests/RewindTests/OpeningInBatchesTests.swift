import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// Opening reads each table and list in batches and builds it on a queue of its own while the
/// next batch is read (`BackgroundBuild`): every row must arrive, in the order read, wherever
/// the batches fall; members a file put out of order in a late batch are placed where they
/// belong; and a bad row read after batches went to the queue still refuses the file, leaving
/// it as it was.
@MainActor
struct OpeningInBatchesTests {
  /// Three full batches and a part of one.
  static let taskCount = 3 * BackgroundBuild<EntityTable<TaskItem>, TaskItem>.batchSize + 300

  /// A file of `taskCount` tasks, in both lists and split between two projects' lists.
  func makeFile(_ path: String) throws -> TasksState {
    var state = TasksState()
    state.projects.insert(Project(id: 1, name: "Home"))
    state.projects.insert(Project(id: 2, name: "Work"))
    for id in Int64(1)...Int64(Self.taskCount) {
      let project = id % 3 == 0 ? nil : id % 3
      state.tasks.insert(TaskItem(id: id, title: "Task \(id) é", isDone: id % 2 == 0, projectID: project))
      state.allTasks.append(id)
      if id % 5 == 0 { state.favorited.append(id) }
      if let project { state.projectTasks[project].append(id) }
    }
    let store = try TasksStore(path: path, initialState: state, reducer: TasksReducer())
    try store.send(.move(id: 7, to: Self.taskCount - 2))
    return store.state
  }

  /// The ids of `list` (and `owner`) as the file orders them: by position, then id.
  func idsInFileOrder(_ path: String, list: String, owner: Int64? = nil) throws -> [Int64] {
    try DatabaseQueue(path: path).read { db in
      try Int64.fetchAll(
        db, sql: "SELECT id FROM list_entries WHERE list = ? AND owner IS ? ORDER BY position, id",
        arguments: [list, owner])
    }
  }

  @Test func everyRowArrivesInOrderWhereverTheBatchesFall() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let written = try makeFile(path)
    let opened = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer()).state
    #expect(opened.tasks == written.tasks)
    #expect(opened.tasks.count == Self.taskCount)
    #expect(opened.allTasks.ids == written.allTasks.ids)
    #expect(opened.allTasks.ids == (try idsInFileOrder(path, list: "allTasks")))
    #expect(opened.favorited.ids == written.favorited.ids)
    #expect(opened.projectTasks == written.projectTasks)
    for owner: Int64 in [1, 2] {
      #expect(opened.projectTasks[owner].ids == (try idsInFileOrder(path, list: "projectTasks", owner: owner)))
    }
    // Ids continue after the largest loaded, whichever batch it was in.
    #expect(opened.tasks.nextID == Int64(Self.taskCount) + 1)
  }

  /// Members of the last batches given the keys of members read earlier (as an import or a
  /// hand edit may): the loader appends in one pass until then, and places the rest.
  @Test func membersOutOfOrderInALateBatchArePlacedWhereTheyBelong() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    _ = try makeFile(path)
    try DatabaseQueue(path: path).write { db in
      // Every member from the third batch on takes the key of one in the first.
      for list in ["allTasks", "projectTasks"] {
        let keys = try String.fetchAll(
          db, sql: "SELECT position FROM list_entries WHERE list = ? ORDER BY owner, position LIMIT 200",
          arguments: [list])
        let late = try Int64.fetchAll(
          db, sql: "SELECT id FROM list_entries WHERE list = ? ORDER BY owner, position LIMIT -1 OFFSET 2100",
          arguments: [list])
        for (index, id) in late.enumerated() {
          try db.execute(
            sql: "UPDATE list_entries SET position = ? WHERE list = ? AND id = ?",
            arguments: [keys[index % keys.count], list, id])
        }
      }
    }
    let opened = try TasksStore.tasks(path: path, readOnly: true).state
    let fileOrder = try idsInFileOrder(path, list: "allTasks")
    #expect(opened.allTasks.ids == fileOrder)
    #expect(opened.allTasks.ids[1] > 2_100)  // a late member, now beside the one whose key it took
    for owner: Int64 in [1, 2] {
      #expect(opened.projectTasks[owner].ids == (try idsInFileOrder(path, list: "projectTasks", owner: owner)))
    }
    #expect(opened.allTasks.count == Self.taskCount)
  }

  /// A row that does not decode, in the last batch of the table and of the list.
  @Test(arguments: ["tasks", "list_entries"])
  func aBadRowAfterBatchesWentToTheQueueRefusesTheFile(table: String) throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    _ = try makeFile(path)
    let last = Int64(Self.taskCount - 1)
    // SQLite keeps NULL out of a task's title: the edit lifts that first, as a hand edit can.
    try DatabaseQueue(path: path).writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA writable_schema = ON")
      try db.execute(sql: "UPDATE sqlite_master SET sql = replace(sql, 'NOT NULL', '') WHERE name = 'tasks'")
    }
    try DatabaseQueue(path: path).write { db in
      if table == "tasks" {
        try db.execute(sql: "UPDATE tasks SET title = NULL WHERE id = ?", arguments: [last])
      } else {
        try db.execute(
          sql: "UPDATE list_entries SET position = 'not a key!' WHERE list = 'allTasks' AND id = ?",
          arguments: [last])
      }
    }
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect {
      _ = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer())
    } throws: { error in
      guard let error = error as? RewindError, error.code == .corruptData else { return false }
      return table == "tasks"
        ? error.message.contains(#"a row of tasks does not decode as TaskItem: the row keyed {"id":\#(last)}"#)
        : error.message.contains("list allTasks has an invalid entry: id \(last), position \"not a key!\"")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
  }
}
