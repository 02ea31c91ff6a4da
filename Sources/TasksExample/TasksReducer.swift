import Rewind

/// The example app's reducer: the list and settings features scoped to their states, a row
/// feature per task, the new-task form while it is presented, and the app's own logic.
public struct TasksReducer: Reducer {
  // Built once: composing reducers allocates, and this runs on every action.
  private let body = CombineReducers<TasksState, TasksAction> {
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
    case .add(let title):
      add(title, done: false, to: &state)
      if case .newTask? = state.view.modal { state.view.modal = nil }

    case .delete(let id):
      guard state.tasks.remove(id: id) != nil else { return .none }
      state.allTasks.remove(id)
      state.favorited.remove(id)
      if state.view.selection == id { state.view.selection = nil }

    case .move(let id, let offset):
      state.allTasks.move(id, to: offset)

    case .favorite(let id):
      guard state.tasks.contains(id: id) else { return .none }
      if !state.favorited.remove(id) { state.favorited.append(id) }

    case .select(let id):
      state.view.selection = id.flatMap { state.tasks.contains(id: $0) ? $0 : nil }

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
      for item in items { add(item.title, done: item.done ?? false, to: &state) }

    case .importFailed(let request, let message):
      state.view.importStatus.fail(request, message: message)

    case .row, .list, .settings, .form:
      break  // handled by the features
    }
    return .none
  }

  private func add(_ title: String, done: Bool, to state: inout TasksState) {
    let id = state.tasks.nextID
    state.tasks.insert(TaskItem(id: id, title: title, isDone: done))
    state.allTasks.append(id)
  }
}
