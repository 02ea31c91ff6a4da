import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// `list_entries` has one index besides its primary key, (list, owner, position, id) (engine
/// schema 11): it covers the queries that read lists in order (loading, the export's scan), so
/// they read it alone, and each write of a member updates one index.
@MainActor
struct ListEntriesIndexTests {
  @Test func theQueriesThatReadListsInOrderReadTheOneIndexAloneWithNoSort() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    _ = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer())
    try DatabaseQueue(path: path).read { db in
      let indexes = try String.fetchAll(
        db, sql: "SELECT name FROM pragma_index_list('list_entries') WHERE origin = 'c'")
      #expect(indexes == ["list_entries_by_owner"])
      let columns = try String.fetchAll(
        db, sql: "SELECT name FROM pragma_index_info('list_entries_by_owner') ORDER BY seqno")
      #expect(columns == ["list", "owner", "position", "id"])
      for sql in [
        ListPart<TasksState, Int64>.loadingSQL, KeyedListPart<TasksState, Int64, Int64>.loadingSQL,
        TableScanExport.listMembersSQL,
      ] {
        let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(sql)", arguments: ["x"])
          .map { $0["detail"] as String }.joined(separator: "; ")
        #expect(plan.contains("COVERING INDEX list_entries_by_owner"), "\(sql): \(plan)")
        #expect(!plan.contains("TEMP B-TREE"), "\(sql): \(plan)")
      }
      // An export at a seq finds each changed member's place by a seek in the same index.
      let following: [(String, StatementArguments)] = [
        (TableScanExport.MembersThen.fixedFollowingSQL, ["x", "a0", 1]),
        (TableScanExport.MembersThen.keyedFollowingSQL, ["x", 1, "a0", 1]),
      ]
      for (sql, arguments) in following {
        let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(sql)", arguments: arguments)
          .map { $0["detail"] as String }.joined(separator: "; ")
        #expect(plan.contains("SEARCH list_entries USING COVERING INDEX list_entries_by_owner"), "\(sql): \(plan)")
        #expect(plan.contains(">"), "\(sql): \(plan)")
        #expect(!plan.contains("TEMP B-TREE"), "\(sql): \(plan)")
      }
    }
  }

  @Test func aFixedListsRowsGivenAnOwnerByHandStillLoadInPositionOrder() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    var store = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer())
    for title in ["a", "b", "c", "d", "e"] { try store.send(.add(title: title)) }
    try store.send(.move(id: 5, to: 1))
    try store.send(.move(id: 1, to: 4))
    let order = store.state.allTasks.ids
    #expect(order == [5, 2, 3, 4, 1])
    let export = try RewindDatabase(path: path).export()
    // Loading orders by owner first: owners set out of position order would read the members
    // out of order, and the list must be rebuilt by position.
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "UPDATE list_entries SET owner = 9 - id WHERE list = 'allTasks' AND id IN (1, 2, 3)")
    }
    // The export ignores a fixed list's owner: its scan of the index stops at the first member
    // out of order, and the export is built another way, the same.
    #expect(try RewindDatabase(path: path).export() == export)
    store = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer())
    #expect(store.state.allTasks.ids == order)
    #expect(try store.send(.move(id: 2, to: 4)) != nil)
    #expect(store.state.allTasks.ids == [5, 3, 4, 1, 2])
  }
}
