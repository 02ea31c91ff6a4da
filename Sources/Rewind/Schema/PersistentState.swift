/// A state that Rewind can persist: it lists its persisted parts in a ``StateSchema``.
///
/// ```swift
/// struct AppState: PersistentState {
///   var tasks = EntityTable<TaskItem>()
///   var allTasks = OrderedIDList<Int64>()
///   var view = ViewState()
///
///   static var schema: StateSchema<Self> {
///     StateSchema(
///       .entities(\.tasks),
///       .list(\.allTasks, named: "allTasks", of: TaskItem.self),
///       .view(\.view)
///     )
///   }
/// }
/// ```
///
/// Feature states compose: a feature declares its own schema, and the parent includes it with
/// ``StateSchema/scope(_:viewPrefix:)``. Properties the schema does not list are not persisted:
/// derived values should be computed properties, and transient state keeps its initial value
/// when a database is opened.
public protocol PersistentState: Sendable {
  /// The persisted parts of this state.
  static var schema: StateSchema<Self> { get }

  /// Clears view state that points at entities that no longer exist, such as the selection
  /// of a deleted task.
  ///
  /// Undo, redo and jumps move rows without running reducers, and a jump of the document
  /// alone can remove an entity the view state still points at. The store calls this after
  /// each of them, after an action whose deletes the engine carried further than the reducer
  /// did (children by foreign key, list entries), when it opens a database and when it catches
  /// up with other writers, and logs what it changed as a `repair` entry. The default does
  /// nothing. A feature's state included in a parent with
  /// ``StateSchema/scope(_:viewPrefix:)`` is repaired by its own implementation too, before
  /// the parent's: the parent does not forward the call.
  mutating func repairViewState()
}

extension PersistentState {
  public mutating func repairViewState() {}
}
