import Rewind

/// Everything the example app can do. Each is logged under the name of what it does
/// (`rename`, `search`, ...), with its payload.
public enum TasksAction: LoggedAction, Equatable {
  // Document actions.
  /// Adds a task at the end of the list, and of its project's list when it has one.
  case add(title: String, project: Int64? = nil)
  case delete(id: Int64)
  /// Moves a task within its project's list, or within the whole list when it has none.
  case move(id: Int64, to: Int)
  case addProject(name: String)
  /// Deletes a project; the engine deletes its tasks with it (the relation cascades).
  case deleteProject(id: Int64)
  /// Adds the task to favorites, or removes it if it is one.
  case favorite(id: Int64)
  /// An action on one task, run by the `TaskRow` feature.
  case row(id: Int64, action: TaskRow.Action)
  // View-state actions.
  case select(id: Int64?)
  case selectProject(id: Int64?)
  case present(ActiveModal)
  case dismiss
  case list(ListFeature.Action)
  case settings(SettingsFeature.Action)
  case form(NewTaskForm.Action)
  // The import effect: requested, then finished or failed.
  case importFile(path: String)
  case importFinished(request: Int64, file: String, items: [TaskImport.Item])
  case importFailed(request: Int64, message: String)

  public var customName: String? {
    switch self {
    case .row(_, let action): action.name
    case .list(let action): action.name
    case .settings(let action): action.name
    case .form(let action): action.name
    default: nil
    }
  }

  /// Typing into one task's title is one undo step, however many `append`s it took.
  public var undoGroup: String? {
    if case .row(let id, .append) = self { return "typing-\(id)" }
    return nil
  }

  // Shorthands for the features' actions.
  public static func rename(id: Int64, title: String) -> Self { .row(id: id, action: .rename(title)) }
  public static func append(id: Int64, text: String) -> Self { .row(id: id, action: .append(text)) }
  public static func toggle(id: Int64) -> Self { .row(id: id, action: .toggle) }
  public static func note(id: Int64, notes: String) -> Self { .row(id: id, action: .note(notes)) }
  public static func search(_ text: String) -> Self { .list(.search(text)) }
  public static func scroll(_ offset: Double) -> Self { .list(.scroll(offset)) }
  public static func setEditing(_ isEditing: Bool) -> Self { .list(.setEditing(isEditing)) }
}

extension ActionCase<TasksAction, ListFeature.Action> {
  static let list = ActionCase(embed: TasksAction.list) { if case .list(let action) = $0 { action } else { nil } }
}

extension ActionCase<TasksAction, SettingsFeature.Action> {
  static let settings = ActionCase(embed: TasksAction.settings) {
    if case .settings(let action) = $0 { action } else { nil }
  }
}

extension ActionCase<TasksAction, NewTaskForm.Action> {
  static let form = ActionCase(embed: TasksAction.form) { if case .form(let action) = $0 { action } else { nil } }
}

extension ActionCase<TasksAction, (id: Int64, action: TaskRow.Action)> {
  static let row = ActionCase(
    embed: { TasksAction.row(id: $0.id, action: $0.action) },
    extract: { if case .row(let id, let action) = $0 { (id, action) } else { nil } }
  )
}
