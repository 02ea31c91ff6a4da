import Rewind

/// What can happen to one task: a reducer run per entity with `forEach`, on that task alone.
public struct TaskRow: Reducer {
  public enum Action: Codable, Equatable, Sendable {
    case rename(String)
    /// Typing at the end of the title.
    case append(String)
    case toggle
    /// Replaces the task's notes.
    case note(String)

    var name: String {
      switch self {
      case .rename: "rename"
      case .append: "append"
      case .toggle: "toggle"
      case .note: "note"
      }
    }
  }

  public init() {}

  public func reduce(into task: inout TaskItem, action: Action) -> Effect<Action> {
    switch action {
    case .rename(let title): task.title = title
    case .append(let text): task.title += text
    case .toggle: task.isDone.toggle()
    case .note(let notes): task.notes = notes
    }
    return .none
  }
}
