import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// A large initial state is logged as a run of `initialize` entries of bounded size, parents
/// first, and reads back whole; the seqs partway through the run are not states to return to.
@MainActor
struct CreationInBatchesTests {
  /// 12,000 tasks in 40 projects, each in `allTasks` and its project's list, every tenth a
  /// favorite: about 37,000 rows, so four entries of at most 10,000 rows.
  static func largeState() -> TasksState {
    var state = TasksState()
    for id in Int64(1)...40 { state.projects.insert(Project(id: id, name: "Project \(id)")) }
    for id in Int64(1)...12_000 {
      let project = id % 40 + 1
      state.tasks.insert(TaskItem(id: id, title: "Task \(id)", isDone: id % 3 == 0, projectID: project))
      state.allTasks.append(id)
      state.projectTasks[project].append(id)
      if id % 10 == 0 { state.favorited.append(id) }
    }
    return state
  }

  @Test func aLargeInitialStateIsLoggedInBoundedEntriesParentsFirstAndReadsBackWhole() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("large.sqlite")
    let initial = Self.largeState()
    let store = try TasksStore(path: path, initialState: initial, reducer: TasksReducer())
    let queue = try DatabaseQueue(path: path)
    let entries = try queue.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT seq, json_array_length(changes) AS rows, json_extract(changes, '$[0].table') AS first
          FROM action_log WHERE kind = 'initialize' ORDER BY seq
          """)
    }
    let rowCounts: [Int] = entries.map { $0["rows"] }
    #expect(entries.count == 4)
    #expect(rowCounts.allSatisfy { $0 <= Repository<TasksState>.initialBatchRows })
    let tableRows = try queue.read { db in
      try Int.fetchOne(
        db,
        sql: """
          SELECT (SELECT count(*) FROM tasks) + (SELECT count(*) FROM projects)
            + (SELECT count(*) FROM list_entries) + (SELECT count(*) FROM view_state)
          """)
    }
    #expect(rowCounts.reduce(0, +) == tableRows)
    #expect(store.state.tasks == initial.tasks)
    // Projects before the tasks that refer to them, though the schema declares tasks first.
    #expect(entries.first?["first"] == "projects")
    #expect(try queue.read { try Row.fetchAll($0, sql: "PRAGMA foreign_key_check") }.isEmpty)

    let reopened = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer())
    #expect(reopened.state.tasks == initial.tasks)
    #expect(reopened.state.allTasks == initial.allTasks)
    #expect(reopened.state.favorited == initial.favorited)
    #expect(reopened.state.projectTasks == initial.projectTasks)
    // Loaded in batches, the largest id is still found: new tasks take the next one.
    #expect(reopened.state.tasks.nextID == initial.tasks.ids.max()! + 1)

    let database = try RewindDatabase(path: path)
    #expect(try database.verify().problems == [])
    let created: Int64 = entries.last!["seq"]
    #expect(try database.export(at: created) == database.export())
  }

  @Test func seqsPartwayThroughTheCreationAreRefusedWithTheReason() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("large.sqlite")
    let store = try TasksStore(path: path, initialState: Self.largeState(), reducer: TasksReducer())
    let created = store.lastSeq
    try store.send(.add(title: "After"))
    let database = try RewindDatabase(path: path)
    for seq in Int64(1)..<created {
      #expect {
        try database.export(at: seq)
      } throws: { error in
        let error = error as? RewindError
        return error?.code == .unknownSeq && error?.message.contains("partway through the file's creation") == true
      }
    }
    #expect(throws: RewindError.self) { try store.jump(to: 1) }
    #expect(store.state.tasks.count == 12_001)
    // The created state and the empty one before it are states to return to.
    try store.jump(to: created)
    #expect(store.state.tasks.count == 12_000)
    try store.jump(to: 0)
    #expect(store.state.tasks.isEmpty)
    // Compacting into the run keeps it whole.
    let compacted = try RewindDatabase(path: path).compact(keep: Int(store.lastSeq - 2))
    #expect(compacted.entriesRemoved == 0)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }
}
