import Rewind

/// The example app's state: tasks by id, two order lists, and the view state.
public struct TasksState: PersistentState, Equatable {
  /// Every task, once, by id.
  public var tasks = EntityTable<TaskItem>()
  /// All tasks in the user's order.
  public var allTasks = OrderedIDList<Int64>()
  /// Favorite tasks, in the order they were favorited.
  public var favorited = OrderedIDList<Int64>()
  /// What the screen shows.
  public var view = TasksViewState()

  public init() {}

  public static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.tasks),
      .list(\.allTasks, named: "allTasks", of: TaskItem.self),
      .list(\.favorited, named: "favorited", of: TaskItem.self),
      .view(\.view)
    )
  }

  /// Clears a selection of a task that no longer exists (after undo, redo or a jump).
  public mutating func repairViewState() {
    if let selection = view.selection, !tasks.contains(id: selection) { view.selection = nil }
  }

  // MARK: - Derived state (computed, never stored)

  /// The tasks the list shows: all tasks in order, filtered by the search text.
  public var visibleTasks: [TaskItem] {
    let query = view.searchText.lowercased()
    return allTasks.compactMap { tasks[$0] }.filter {
      query.isEmpty || $0.title.lowercased().contains(query)
    }
  }

  /// The task shown in the detail pane.
  public var selectedTask: TaskItem? { view.selection.flatMap { tasks[$0] } }

  /// How many tasks are not done.
  public var remainingCount: Int { tasks.values.filter { !$0.isDone }.count }
}

/// The UI's own state, in the spirit of the view-state driven app: restoring it restores the
/// screen. Each property is one row of `view_state`.
public struct TasksViewState: Codable, Equatable, Sendable {
  /// The task shown in the detail pane, if any.
  public var selection: Int64?
  /// Whether the list is in edit mode.
  public var isEditing = false
  /// The presented modal, if any: an enum, so two modals can never be up at once.
  public var modal: ActiveModal?
  /// The list's search filter.
  public var searchText = ""
  /// The list's scroll offset, in points.
  public var scrollOffset = 0.0

  public init() {}
}

/// A modal screen.
public enum ActiveModal: Codable, Equatable, Sendable {
  /// The new-task form, with its draft title.
  case newTask(draftTitle: String)
  /// The settings screen.
  case settings
}
