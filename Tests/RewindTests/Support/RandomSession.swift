import Foundation
import GRDB

@testable import Rewind
@testable import TasksExample

/// Turns random integers into a session of tasks actions, undos, redos and reopens, each
/// chosen to make sense in the state at that point.
@MainActor
struct RandomSession {
  enum Operation: CustomStringConvertible {
    case send(TasksAction)
    case undo, redo, reopen

    var description: String {
      switch self {
      case .send(let action): "\(action)"
      case .undo: "undo"
      case .redo: "redo"
      case .reopen: "reopen"
      }
    }
  }

  let path: String
  var store: TasksStore

  init(path: String) throws {
    self.path = path
    store = try TasksStore.tasks(path: path)
  }

  static func operation(for code: Int, in state: TasksState) -> Operation {
    let ids = state.allTasks.ids
    let id = ids.isEmpty ? 1 : ids[(code / 17) % ids.count]
    let number = code / 17
    switch code % 17 {
    case 0, 1: return .send(.add(title: "Task \(number)"))
    case 2: return .send(.rename(id: id, title: "Renamed \(number)"))
    case 3: return .send(.append(id: id, text: "+"))
    case 4: return .send(.toggle(id: id))
    case 5: return .send(.delete(id: id))
    case 6: return .send(.move(id: id, to: number % (ids.count + 1)))
    case 7: return .send(.favorite(id: id))
    case 8: return .send(.select(id: number % 3 == 0 ? nil : id))
    case 9: return .send(.setEditing(number % 2 == 0))
    case 10: return .send(.search(number % 3 == 0 ? "" : "\(number % 10)"))
    case 11: return .send(.scroll(Double(number % 500) / 2))
    case 12: return .send(.present(number % 2 == 0 ? .settings : .newTask(draftTitle: "Draft \(number)")))
    case 13: return .send(.dismiss)
    case 14: return .undo
    case 15: return .redo
    default: return .reopen
    }
  }

  /// Performs the operation `code` stands for.
  mutating func perform(_ code: Int) throws {
    switch Self.operation(for: code, in: store.state) {
    case .send(let action): try store.send(action)
    case .undo: try store.undo()
    case .redo: try store.redo()
    case .reopen: try reopen()
    }
  }

  /// Closes the store and opens the file again in a new one.
  mutating func reopen() throws {
    store = try TasksStore.tasks(path: path)
  }

  /// The rows of the state tables as they are in the file now.
  func stateRows() throws -> [String] {
    try DatabaseQueue(path: path).read { db in
      try ["tasks", "list_entries", "view_state"].flatMap { table in
        try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1, 2").map { "\(table) \($0)" }
      }
    }
  }
}

extension TasksState {
  /// The document: entities and order lists, without the view state.
  var document: [String] {
    tasks.ids.sorted().map { "\(tasks[$0]!)" } + ["all \(allTasks.ids)", "favorites \(favorited.ids)"]
  }
}
