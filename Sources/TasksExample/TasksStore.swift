import Rewind

/// The example app's store.
public typealias TasksStore = Store<TasksState, TasksAction>

extension Store where State == TasksState, Action == TasksAction {
  /// Opens the example app's database at `path`; read-only, an existing one for viewing.
  public static func tasks(path: String, durability: Durability = .normal, readOnly: Bool = false) throws
    -> TasksStore
  {
    try TasksStore(
      path: path, initialState: TasksState(), reducer: TasksReducer(), durability: durability, readOnly: readOnly)
  }
}
