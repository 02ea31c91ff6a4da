import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// Opening reads each owner's list in index order, one pass, and places members a file gave
/// equal position keys (an import, a hand edit) by id, as a list with one owner does.
@MainActor
struct KeyedListLoadingTests {
  @Test func equalKeysInAnOwnersListLoadInIdOrder() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    var store = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer())
    try store.send(.addProject(name: "Home"))
    try store.send(.addProject(name: "Work"))
    for (title, project) in [("a", 1), ("b", 2), ("c", 1), ("d", 1), ("e", 2)] as [(String, Int64)] {
      try store.send(.add(title: title, project: project))
    }
    try store.send(.move(id: 4, to: 0))
    #expect(store.state.projectTasks[1].ids == [4, 1, 3])
    #expect(store.state.projectTasks[2].ids == [2, 5])
    // Reopened as written, then with every key of project 1 made equal.
    store = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer())
    #expect(store.state.projectTasks[1].ids == [4, 1, 3] && store.state.projectTasks[2].ids == [2, 5])
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "UPDATE list_entries SET position = 'a5' WHERE list = 'projectTasks' AND owner = 1")
    }
    store = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer())
    #expect(store.state.projectTasks[1].ids == [1, 3, 4])
    #expect(store.state.projectTasks[2].ids == [2, 5])
    #expect(store.state.projectTasks.owner(of: 3) == 1 && store.state.projectTasks.count == 5)
    // A member can still be moved among equal keys (there is no key between two of them, so it
    // goes after their run).
    #expect(try store.send(.move(id: 1, to: 2)) != nil)
    #expect(store.state.projectTasks[1].ids == [3, 4, 1])
  }
}
