import Rewind

/// The example app's reducer: the list and settings features scoped to their states, a row
/// feature per task, the new-task form while it is presented, and the app's own logic.
public struct TasksReducer: Reducer {
  // Built once, as concrete types the compiler specializes here: this runs on every action.
  private let body = CombineReducers<TasksState, TasksAction, _> {
    Scope(state: \.list, action: .list) { ListFeature() }
    Scope(state: \.settings, action: .settings) { SettingsFeature() }
    TasksCore()
      .forEach(\.tasks, action: .row) { TaskRow() }
      .ifLet(\.view.modal, action: .form) { NewTaskForm() }
  }

  public init() {}

  public func reduce(into state: inout TasksState, action: TasksAction) -> Effect<TasksAction> {
    body.reduce(into: &state, action: action)
  }
}

/// What is the app's own: adding, deleting, ordering and selecting tasks, modals, the import.
///
/// Actions that name a missing task do nothing: the front end checks ids first and reports
/// them, and a stale action replayed from elsewhere must not crash.
struct TasksCore: Reducer {
  func reduce(into state: inout TasksState, action: TasksAction) -> Effect<TasksAction> {
    switch action {
    case .add(let title, let project):
      add(title, done: false, project: project, to: &state)
      if case .newTask? = state.view.modal { state.view.modal = nil }

    case .delete(let id):
      guard state.tasks.remove(id: id) != nil else { return .none }
      state.allTasks.remove(id)
      state.favorited.remove(id)
      if state.view.selection == id { state.view.selection = nil }

    case .move(let id, let offset):
      if let project = state.tasks[id]?.projectID {
        state.projectTasks[project].move(id, to: offset)
      } else {
        state.allTasks.move(id, to: offset)
      }

    case .addProject(let name):
      state.projects.insert(Project(id: state.projects.nextID, name: name))

    case .deleteProject(let id):
      // Only the project: its tasks, their list entries and its list go with it, done by the
      // engine (`tasks.projectId` cascades), logged in this action's entry.
      guard state.projects.remove(id: id) != nil else { return .none }
      if state.view.selectedProject == id { state.view.selectedProject = nil }
      if let selection = state.view.selection, state.tasks[selection]?.projectID == id { state.view.selection = nil }

    case .favorite(let id):
      guard state.tasks.contains(id: id) else { return .none }
      if !state.favorited.remove(id) { state.favorited.append(id) }

    case .select(let id):
      state.view.selection = id.flatMap { state.tasks.contains(id: $0) ? $0 : nil }

    case .selectProject(let id):
      state.view.selectedProject = id.flatMap { state.projects.contains(id: $0) ? $0 : nil }

    case .present(let modal):
      state.view.modal = modal

    case .dismiss:
      state.view.modal = nil

    case .importFile(let path):
      let request = state.view.importStatus.begin()
      return .run { send in
        let items = try await TaskImport.read(path)
        try await send(.importFinished(request: request, file: path, items: items))
      } catch: { error, send in
        try? await send(.importFailed(request: request, message: "\(error)"))
      }
      .cancellable(id: TaskImport.ID(), cancelInFlight: true)

    case .importFinished(let request, let file, let items):
      // A result for a superseded or abandoned request is dropped here.
      guard state.view.importStatus.succeed(request, with: .init(file: file, count: items.count)) else {
        return .none
      }
      for item in items { add(item.title, done: item.done ?? false, project: nil, to: &state) }

    case .importFailed(let request, let message):
      state.view.importStatus.fail(request, message: message)

    case .row, .list, .settings, .form:
      break  // handled by the features
    }
    return .none
  }

  private func add(_ title: String, done: Bool, project: Int64?, to state: inout TasksState) {
    let id = state.tasks.nextID
    let project = project.flatMap { state.projects.contains(id: $0) ? $0 : nil }
    state.tasks.insert(TaskItem(id: id, title: title, isDone: done, projectID: project))
    state.allTasks.append(id)
    if let project { state.projectTasks[project].append(id) }
  }
}
