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
}
