import Rewind

/// Everything the example app can do. Each case is logged by name with its payload.
public enum TasksAction: LoggedAction, Equatable {
  // Document actions.
  case add(title: String)
  case rename(id: Int64, title: String)
  /// Typing at the end of a title.
  case append(id: Int64, text: String)
  case toggle(id: Int64)
  case delete(id: Int64)
  case move(id: Int64, to: Int)
  /// Adds the task to favorites, or removes it if it is one.
  case favorite(id: Int64)
  // View-state actions.
  case select(id: Int64?)
  case setEditing(Bool)
  case search(String)
  case scroll(Double)
  case present(ActiveModal)
  case dismiss
}

extension TasksAction {
  /// Typing into one task's title is one undo step, however many `append`s it took.
  public var undoGroup: String? {
    if case .append(let id, _) = self { return "typing-\(id)" }
    return nil
  }
}
