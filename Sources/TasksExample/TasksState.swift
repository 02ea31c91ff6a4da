import Rewind

/// The example app's state: tasks by id, two order lists, the app's view state, and the
/// list and settings features' states.
public struct TasksState: PersistentState, Equatable {
  /// Every task, once, by id.
  public var tasks = EntityTable<TaskItem>()
  /// All tasks in the user's order.
  public var allTasks = OrderedIDList<Int64>()
  /// Favorite tasks, in the order they were favorited.
  public var favorited = OrderedIDList<Int64>()
  /// Every project, once, by id.
  public var projects = EntityTable<Project>()
  /// Each project's tasks, in the user's order: one list per project.
  public var projectTasks = OrderedIDLists<Int64, Int64>()
  /// The app-level view state: selection, modal, import status.
  public var view = TasksViewState()
  /// The list screen's state.
  public var list = ListFeature.State()
  /// The settings screen's state.
  public var settings = SettingsFeature.State()

  public init() {}

  public static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.tasks),
      .list(\.allTasks, named: "allTasks", of: TaskItem.self),
      .list(\.favorited, named: "favorited", of: TaskItem.self),
      .entities(\.projects),
      .lists(\.projectTasks, named: "projectTasks", of: TaskItem.self, ownedBy: Project.self),
      .view(\.view),
      // Each feature persists through its own schema, under its own view-state prefix.
      .scope(\.list, viewPrefix: "list"),
      .scope(\.settings, viewPrefix: "settings")
    )
    .migrations(TaskItem.migrations)
  }

  /// Clears a selection of a task that no longer exists (after undo, redo or a jump), and
  /// fails an import the app stopped in the middle of.
  public mutating func repairViewState() {
    if let selection = view.selection, !tasks.contains(id: selection) { view.selection = nil }
    if let project = view.selectedProject, !projects.contains(id: project) { view.selectedProject = nil }
    if case .loading(let request) = view.importStatus.phase {
      view.importStatus.fail(request, message: "did not finish (the app stopped during it, or it was undone)")
    }
  }

  // MARK: - Derived state (computed, never stored)

  /// The tasks the list shows: all tasks in order, filtered by the search text and the
  /// show-completed setting.
  public var visibleTasks: [TaskItem] {
    let query = list.searchText.lowercased()
    return allTasks.compactMap { tasks[$0] }.filter {
      (query.isEmpty || $0.title.lowercased().contains(query)) && (settings.showCompleted || !$0.isDone)
    }
  }

  /// The task shown in the detail pane.
  public var selectedTask: TaskItem? { view.selection.flatMap { tasks[$0] } }

  /// How many tasks are not done.
  public var remainingCount: Int { tasks.values.filter { !$0.isDone }.count }
}

/// The app-level view state, in the spirit of the view-state driven app: restoring it restores
/// the screen. Each property is one row of `view_state`.
public struct TasksViewState: Codable, Equatable, Sendable {
  /// The task shown in the detail pane, if any.
  public var selection: Int64?
  /// The presented modal, if any: an enum, so two modals can never be up at once.
  public var modal: ActiveModal?
  /// The last import from a file: idle, loading, loaded or failed.
  public var importStatus = Loadable<TaskImport.Summary>()
  /// The project new tasks go to and `show` highlights, if any.
  public var selectedProject: Int64?

  public init() {}
}

/// The properties listed, so that a selection compares four values and encodes one, rather
/// than walking `encode(to:)` (the names are the synthesized coding keys).
extension TasksViewState: ViewStateProperties {
  public static let viewProperties: [ViewProperty<Self>] = [
    ViewProperty("selection", \.selection),
    ViewProperty("modal", \.modal),
    ViewProperty("importStatus", \.importStatus),
    ViewProperty("selectedProject", \.selectedProject),
  ]
}

/// A modal screen.
public enum ActiveModal: Codable, Equatable, Sendable {
  /// The new-task form, with its draft title.
  case newTask(draftTitle: String)
  /// The settings screen.
  case settings
}
