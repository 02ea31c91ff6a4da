import Rewind

/// The example app's reducer.
///
/// Actions that name a missing task do nothing: the front end checks ids first and reports
/// them, and a stale action replayed from elsewhere must not crash.
public struct TasksReducer: Reducer {
  public init() {}

  public func reduce(into state: inout TasksState, action: TasksAction) {
    switch action {
    case .add(let title):
      let id = state.tasks.nextID
      state.tasks.insert(TaskItem(id: id, title: title))
      state.allTasks.append(id)
      if case .newTask? = state.view.modal { state.view.modal = nil }

    case .rename(let id, let title):
      state.tasks[id]?.title = title

    case .append(let id, let text):
      state.tasks[id]?.title += text

    case .toggle(let id):
      state.tasks[id]?.isDone.toggle()

    case .delete(let id):
      guard state.tasks.remove(id: id) != nil else { return }
      state.allTasks.remove(id)
      state.favorited.remove(id)
      if state.view.selection == id { state.view.selection = nil }

    case .move(let id, let offset):
      state.allTasks.move(id, to: offset)

    case .favorite(let id):
      guard state.tasks.contains(id: id) else { return }
      if !state.favorited.remove(id) { state.favorited.append(id) }

    case .select(let id):
      state.view.selection = id.flatMap { state.tasks.contains(id: $0) ? $0 : nil }

    case .setEditing(let isEditing):
      state.view.isEditing = isEditing

    case .search(let text):
      state.view.searchText = text

    case .scroll(let offset):
      state.view.scrollOffset = offset

    case .present(let modal):
      state.view.modal = modal

    case .dismiss:
      state.view.modal = nil
    }
  }
}
