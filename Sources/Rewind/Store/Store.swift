import Foundation
import Observation

/// The only way to change state: sends actions through a reducer and commits each result,
/// with its log entry, to SQLite before anyone sees it.
///
/// ```swift
/// let store = try Store(path: "tasks.sqlite", initialState: TasksState(), reducer: TasksReducer())
/// try store.send(.add(title: "Buy milk"))
/// try store.undo()
/// ```
///
/// Opening a database loads the last committed state from its tables. If a commit fails, the
/// store stays at the last committed state and the call throws.
///
/// ## Topics
/// ### Opening
/// - ``init(path:initialState:reducer:durability:)``
/// - ``init(inMemory:reducer:)``
/// ### Reading and changing state
/// - ``state``
/// - ``send(_:)``
/// - ``lastSeq``
/// ### History
/// - ``undo()``
/// - ``redo()``
/// - ``canUndo``
/// - ``canRedo``
/// - ``jump(to:timeline:)``
/// - ``historyStacks(limit:)``
@MainActor
public final class Store<State: PersistentState, Action: LoggedAction>: Observable {
  var current: State
  private let reducer: any Reducer<State, Action>
  let repository: Repository<State>
  let registrar = ObservationRegistrar()
  /// The running effects; their actions come back through ``send(_:)``. When the store is
  /// gone, effects still running send into nothing.
  let effects = EffectRunner<Action>()
  /// Scoped stores to refresh after each commit.
  var scopes: [WeakScope] = []
  // Key paths into a generic class are built at run time on each use: build them once.
  let stateKeyPath = \Store.state
  let historyKeyPath = \Store.lastSeq

  /// Opens the database at `path`, creating and setting it up if it does not exist.
  ///
  /// - Parameters:
  ///   - path: the SQLite file. A new file is readable by its owner only.
  ///   - initialState: the state of a new database, and the values of properties the schema
  ///     does not persist.
  ///   - reducer: the reducer that handles actions.
  ///   - durability: what a commit must survive; see ``Durability``.
  /// - Throws: ``RewindError`` if the file is not SQLite, is not a Rewind database, was
  ///   written by a newer version, or cannot be read. The file is left unchanged.
  public init(
    path: String,
    initialState: State,
    reducer: some Reducer<State, Action>,
    durability: Durability = .normal
  ) throws {
    repository = try Repository(path: path, durability: durability, initialState: initialState)
    current = try repository.load(initialState)
    self.reducer = reducer
    effects.deliver = { [weak self] action in _ = try self?.send(action) }
    try repair(after: nil)
  }

  /// Opens a new in-memory database: for tests and previews.
  public init(inMemory initialState: State, reducer: some Reducer<State, Action>) throws {
    repository = try Repository(path: nil, initialState: initialState)
    current = try repository.load(initialState)
    self.reducer = reducer
    effects.deliver = { [weak self] action in _ = try self?.send(action) }
  }

  /// The current state: always the last committed one.
  public var state: State {
    registrar.access(self, keyPath: stateKeyPath)
    return current
  }

  /// The seq of the last log entry.
  public var lastSeq: Int64 {
    registrar.access(self, keyPath: historyKeyPath)
    return repository.history.lastSeq
  }

  /// Runs the reducer for `action`, then commits the changed rows and the log entry in one
  /// transaction. Observers see the new state only after the commit; then the effect the
  /// reducer returned starts (a failed commit drops it).
  ///
  /// - Returns: the committed log entry's `seq`.
  /// - Throws: ``RewindError`` with code ``RewindError/Code/commitFailed`` if the commit
  ///   fails (or ``RewindError/Code/externalChange`` if another process wrote to the
  ///   database since it was opened); the state and the database are then as they were.
  /// - Complexity: proportional to what the action changed, not to the size of the state.
  @discardableResult
  public func send(_ action: Action) throws -> Int64 {
    let payload: String
    do {
      payload = try CompactJSONEncoder.encode(action)
    } catch {
      throw RewindError(.commitFailed, "an action of type \(Action.self) could not be encoded as JSON", underlying: error)
    }
    let name = Action.logName(customName: action.customName, payload: payload)
    // Reduce in place: no copy of the state is kept, so no collection is copied on write.
    let effect = reducer.reduce(into: &current, action: action)
    let changes: [RowChange]
    do {
      changes = try repository.schema.takeChanges(from: &current)
    } catch {
      // The changes could not be read back; the database still holds the committed state.
      current = try repository.load(current)
      throw RewindError(.commitFailed, "the changes made by \(name) could not be encoded", underlying: error)
    }
    let entry = LogEntry(
      kind: .action, action: name, payload: payload, changes: changes,
      undo: action.isUndoable ? .step(group: action.undoGroup) : .none)
    let seq: Int64
    do {
      seq = try repository.write { db, history in try history.append(entry, db) }
    } catch {
      try repository.schema.apply(changes, .backward, to: &current)
      if case RewindError.Code.externalChange = error { throw error }
      throw RewindError(.commitFailed, "committing \(name) failed; the state is unchanged", underlying: error)
    }
    didCommit()
    repository.takeAutomaticSnapshotIfDue(current)
    effects.run(effect)
    return seq
  }

  /// Reads the state and the history position from the database again.
  ///
  /// Call it after ``send(_:)`` threw ``RewindError/Code/externalChange``: another process
  /// (such as the `rewind` tool) changed the database, and the store shows its changes only
  /// once it reloads.
  public func reload() throws {
    try repository.reloadHistory()
    current = try repository.load(current)
    didCommit()
  }

  /// Tells observers that a commit moved the state and the history. (``canUndo`` and
  /// ``canRedo`` change only with a commit; they are observed through ``lastSeq``.)
  func didCommit() {
    registrar.withMutation(of: self, keyPath: stateKeyPath) {}
    registrar.withMutation(of: self, keyPath: historyKeyPath) {}
    refreshScopes()
  }

}
