import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

// Dragging tasks again and again to one spot (below the first) on a real file: the rows keep
// short position keys, undo puts every respaced row back, and the file verifies and reopens
// as the store holds it.
@MainActor
struct PositionRespacingTests {
  @Test func movesIntoOneSpotKeepTheFilesKeysShortAndUndoExact() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    for index in 1...40 { try store.send(.add(title: "task \(index)")) }
    var orders: [[Int64]] = [store.state.allTasks.ids]
    for step in 0..<400 {
      let id = store.state.allTasks.ids[step % 2 == 0 ? 39 : 20]
      try store.send(.move(id: id, to: 1))
      orders.append(store.state.allTasks.ids)
    }
    let longest = try DatabaseQueue(path: path).read { db in
      try Int.fetchOne(db, sql: "SELECT max(length(position)) FROM list_entries")
    }
    #expect(longest.map { $0 <= 12 } == true, "keys of up to \(longest ?? 0) bytes")
    #expect(try TasksStore.tasks(path: path).state == store.state)
    // Undo walks back through the moves, respaced ones included.
    for expected in orders.reversed().dropFirst().prefix(120) {
      try store.undo()
      #expect(store.state.allTasks.ids == expected)
    }
    #expect(try TasksStore.tasks(path: path).state == store.state)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }
}
