import Dependencies
import Foundation
import GRDB
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
/// store stays at the last committed state and the call throws. Any number of stores and
/// `rewind` processes may write one file: each write first catches up with the others.
/// Releasing a store frees its state on a background queue, not on the releasing thread (a
/// million tasks take about 0.4 s to free), unless something else still holds it, such as a
/// scoped store a view keeps; deinitializers of objects in the state run on that queue. The
/// initial state the store was given is freed where the store is released.
///
/// The reducer and the effects it starts read generated ids, the date and other
/// [dependencies](https://github.com/pointfreeco/swift-dependencies) with `@Dependency`: they
/// get those current where the store was created, changed by the init's `withDependencies`.
///
/// ## Topics
/// ### Opening
/// - ``init(path:initialState:reducer:durability:readOnly:withDependencies:)``
/// - ``init(inMemory:reducer:withDependencies:)``
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
/// - ``step(movedBy:)``
/// - ``waitForSnapshots()``
@MainActor
public final class Store<State: PersistentState, Action: LoggedAction>: Observable {
  var current: State
  /// The state the store was opened with: what persisted parts start from when loaded, and
  /// what view properties with no row default to.
  private let initialState: State
  private let reducer: any Reducer<State, Action>
  let repository: Repository<State>
  let registrar = ObservationRegistrar()
  /// The running effects; their actions come back through ``send(_:)``. They are cancelled
  /// when the store is released (see `deinit`).
  let effects = EffectRunner<Action>()
  /// Scoped stores to refresh after each commit.
  var scopes: [WeakScope] = []
  /// Whether the next write must read the whole state from the file before anything else: true
  /// until the store has loaded it once, after ``reload()`` and after a failed write that could
  /// not put memory back to what the file holds.
  private var mustReload = true
  /// Whether the next write repairs view state even when no one wrote meanwhile: a write
  /// that failed after catching up rolled back the repair it made with it, and memory was
  /// read again from the file, which still holds what the repair mended.
  private var mustRepair = false
  // Effects end with their store: the actions they would send go nowhere, and their work
  // (a request, a file read) was the store's. `deinit` is not isolated, so the runner, which
  // is, cancels them on the main actor, as soon as it runs.
  deinit {
    let effects = effects
    Task { @MainActor in effects.cancelAll() }
    // The state is freed off the releasing thread (see `BackgroundRelease`): the store's own
    // copy is replaced first, so that the queue's is the last.
    let released = current
    current = initialState
    BackgroundRelease.free(consume released)
  }

  /// The key path observers of the state and of the history are registered under. A commit
  /// moves both, so they are observed as one: one mutation to announce per commit. (Key paths
  /// into a generic class are built at run time on each use: built once.)
  let commitKeyPath = \Store.state
  /// What the reducer, and the effects it starts, read with `@Dependency`: the values current
  /// when the store was created, changed by the init's `withDependencies`. Setting them changes
  /// what later actions and effects read; running effects keep the values they started with.
  @_spi(Testing) public var dependencies: DependencyValues

  /// Opens the database at `path`, creating and setting it up if it does not exist.
  ///
  /// - Parameters:
  ///   - path: the SQLite file. A new file is readable by its owner only. `:memory:`, an
  ///     empty path and `file:` URIs are refused (see ``init(inMemory:reducer:withDependencies:)``).
  ///   - initialState: the state of a new database, and the values of properties the schema
  ///     does not persist.
  ///   - reducer: the reducer that handles actions.
  ///   - durability: what a commit must survive; see ``Durability``.
  ///   - readOnly: open an existing, set-up file for reading only, as a viewer does: it may be
  ///     read-only or sit in a read-only folder. The store shows the file exactly as it is
  ///     (view state that points at a missing entity is not repaired, as that is a write), and
  ///     every write (`send`, `undo`, `redo`, `jump`) throws ``RewindError/Code/readOnly``
  ///     with the state unchanged. ``reload()`` shows what other processes wrote.
  ///     A file of an earlier release is upgraded in a private in-memory copy (memory
  ///     proportional to the file), which shows the file as it was when opened.
  ///   - withDependencies: changes the dependencies the reducer and its effects read, such as
  ///     `$0.uuid = .incrementing`; they start as those current here.
  /// - Throws: ``RewindError`` if the file is not SQLite, is not a Rewind database, is
  ///   damaged, was written by a newer version, or cannot be read; read-only, also if it does
  ///   not exist. The file is left unchanged.
  public init(
    path: String,
    initialState: State,
    reducer: some Reducer<State, Action>,
    durability: Durability = .normal,
    readOnly: Bool = false,
    withDependencies: (inout DependencyValues) -> Void = { _ in }
  ) throws {
    repository = try Repository(path: path, durability: durability, initialState: initialState, readOnly: readOnly)
    dependencies = Self.dependencies(withDependencies)
    current = initialState
    self.initialState = initialState
    self.reducer = reducer
    effects.deliver = { [weak self] action in _ = try self?.send(action) }
    try reload()
  }

  /// Opens a new in-memory database: for tests and previews.
  ///
  /// - Parameters:
  ///   - initialState: the state of the new database.
  ///   - reducer: the reducer that handles actions.
  ///   - withDependencies: changes the dependencies the reducer and its effects read, such as
  ///     `$0.uuid = .incrementing`; they start as those current here.
  public init(
    inMemory initialState: State, reducer: some Reducer<State, Action>,
    withDependencies: (inout DependencyValues) -> Void = { _ in }
  ) throws {
    repository = try Repository(path: nil, initialState: initialState)
    dependencies = Self.dependencies(withDependencies)
    current = initialState
    self.initialState = initialState
    self.reducer = reducer
    effects.deliver = { [weak self] action in _ = try self?.send(action) }
    try reload()
  }

  /// The current state: always the last committed one.
  public var state: State {
    registrar.access(self, keyPath: commitKeyPath)
    return current
  }

  /// Whether the store was opened read-only; see
  /// ``init(path:initialState:reducer:durability:readOnly:withDependencies:)``.
  public var isReadOnly: Bool { repository.isReadOnly }

  /// The seq of the last log entry.
  public var lastSeq: Int64 {
    registrar.access(self, keyPath: commitKeyPath)
    return repository.history.lastSeq
  }

  /// Runs the reducer for `action`, then commits the changed rows and the log entry in one
  /// transaction. Observers see the new state only after the commit; then the effect the
  /// reducer returned starts (a failed commit drops it).
  ///
  /// Other stores and the `rewind` tool may write the same file. Inside its transaction, the
  /// store first applies the entries they committed since it last looked (in time proportional
  /// to what they changed), so the reducer always runs on the current state and nothing they
  /// wrote is overwritten.
  ///
  /// - Returns: the committed log entry's `seq`, or `nil` when the action changed nothing: it
  ///   is then not logged (its effect still runs).
  /// - Throws: ``RewindError`` with code ``RewindError/Code/commitFailed`` if the commit
  ///   fails (or ``RewindError/Code/invalidValue`` for a value SQLite cannot hold, a value the
  ///   log's JSON cannot hold in the action's payload or in view state, such as a NaN, or a
  ///   payload ``LoggedAction/writePayload(to:)`` writes out of order or unlike `Codable`); the
  ///   state and the database are then as the file holds them.
  /// - Complexity: proportional to what the action changed, not to the size of the state.
  @discardableResult
  public func send(_ action: Action) throws -> Int64? {
    let (payload, name): (String, String)
    do {
      (payload, name) = try action.logged()
    } catch let error as RewindError {
      throw error
    } catch {
      // A value JSON cannot hold (a NaN, an infinity), or an `encode(to:)` that throws.
      throw RewindError(
        .invalidValue, "an action of type \(Action.self) could not be encoded as JSON; nothing was written",
        underlying: error)
    }
    var effect = Effect<Action>.none
    // What memory holds beyond the file while the transaction runs: nothing, the reducer's
    // untaken changes, or the changes taken for the entry.
    var pending: [RowChange]?
    var reduced = false
    // Set inside rather than returned: a write's result passes through GRDB's and Dispatch's
    // generic code, which looked up the metadata of `Optional<Int64?>` on every send.
    var seq: Int64?
    do {
      try write(
        { db, history in
          // Reduce in place: no copy of the state is kept, so no collection is copied on write.
          // The reducer reads the store's dependencies, whatever scope `send` was called in.
          // (Set directly: `withDependencies` would first read and merge the current values.)
          effect = Self.reduce(&current, action, with: reducer, dependencies)
          reduced = true
          let changes = try repository.schema.takeChanges(from: &current)
          pending = changes
          guard !changes.isEmpty else { return }
          let entry = LogEntry(
            kind: .action, action: name, payload: payload, changes: changes,
            undo: action.isUndoable ? .step(group: action.undoGroup) : .none)
          let (committed, cascaded) = try history.commit(entry, db)
          seq = committed
          if !cascaded.isEmpty {
            // Rows the engine removed or changed with what the action deleted (children, list
            // entries): memory follows, and view state pointing at them is repaired in the
            // same step, as after an undo. A failed commit then reads the file back.
            pending = nil
            try repository.schema.apply(cascaded, .forward, to: &current)
            try repair(after: committed, db, &history)
          }
        },
        rollingBack: { if reduced { rollBack(pending) } })
    } catch {
      if let error = error as? RewindError { throw error }
      throw RewindError(
        .commitFailed, "committing \(name) failed; the state is as the file holds it", underlying: error)
    }
    didCommit()
    if seq != nil { repository.takeAutomaticSnapshotIfDue(rows: repository.schema.rowCount(of: current)) }
    effects.run(effect, dependencies: dependencies)
    return seq
  }

  /// Blocks until the automatic snapshot being taken in the background, if any, is stored.
  ///
  /// Every so many entries (as many as the state has rows, at least 1,000) the store copies the
  /// state into a snapshot, so that jumps and restores far back stay fast. It does that on a
  /// connection of its own, off the main actor, while `send` goes on. A short-lived process
  /// (a command-line tool that sends one action) calls this before it exits, or the snapshot
  /// is dropped; nothing else is lost either way (committed actions are in the log). A store
  /// released with a snapshot under way stops it within milliseconds and drops it, so nothing
  /// writes the file once the store is gone.
  public func waitForSnapshots() {
    repository.worker?.wait()
  }

  /// Entries between automatic snapshots instead of the policy's: for benchmarks.
  @_spi(Benchmarks) public var automaticSnapshotSpacing: Int64? {
    get { repository.snapshotSpacing }
    set { repository.snapshotSpacing = newValue }
  }

  /// The most bytes of an automatic snapshot's text written in one transaction (64 KiB), for
  /// tests that want small states stored in parts; 0 for a store with no file.
  @_spi(Benchmarks) public var automaticSnapshotPartBytes: Int {
    get { repository.worker?.partBytes ?? 0 }
    set { repository.worker?.partBytes = newValue }
  }

  /// Whether an automatic snapshot is being taken in the background, for benchmarks that tell
  /// the sends it overlapped from the others.
  @_spi(Benchmarks) public var isTakingSnapshot: Bool { repository.worker?.isRunning ?? false }

  /// How many WAL checkpoints ran on the store's checkpointer (off the caller's thread) and
  /// in its own commits, for benchmarks; zeros for a store with no file.
  @_spi(Benchmarks) public var walCheckpoints: (background: Int, inCommits: Int) {
    let counts = repository.checkpointer?.checkpoints ?? .init()
    return (counts.background, counts.inline)
  }

  /// Reads the state and the history position from the database again, and repairs view
  /// state that points at entities that no longer exist: exactly what opening does.
  ///
  /// A store follows other writers by itself whenever it writes; call this to show their
  /// changes before then. When the state needs no repair, nothing is written and no write lock
  /// is taken, so a store opens on a read-only file.
  public func reload() throws {
    // Opening and reloading are the way a write catches up when entries it has not seen are
    // gone: read the tables, then repair.
    mustReload = true
    if try !loadWithoutWriting() { try write { _, _ in } }
    didCommit()
  }

  /// Reads the state and the position in one read transaction and keeps them if the repair
  /// has nothing to change; returns `false`, with memory untouched, when it has (the repair
  /// must be logged, in a write).
  private func loadWithoutWriting() throws -> Bool {
    var (history, loaded) = try readFile()
    // A read-only store shows the file as it is: logging a repair would be a write.
    if !repository.isReadOnly {
      repository.schema.repairViewState(of: &loaded)
      guard try repository.schema.takeChanges(from: &loaded).isEmpty else { return false }
    }
    current = loaded
    repository.history = history
    mustReload = false
    return true
  }

  // MARK: - Writing

  /// Runs `body` in one write transaction, after applying to memory what other writers
  /// committed (and repairing what they left dangling). If anything throws, memory is made what
  /// the file holds: by `rollBack` when only `body` moved it, by reading the file again when
  /// the catch-up's repair (rolled back with the transaction) did too.
  func write<T>(
    _ body: (Database, inout HistoryLog) throws -> T, rollingBack rollBack: () -> Void = {}
  ) throws -> T {
    var following = false
    var repaired = false
    do {
      return try repository.write(
        following: { db, sync, history in
          following = true
          // Beyond what the sync did, only a forced reload moves the position.
          let reloading = mustReload
          repaired = try follow(sync, db, &history)
          following = false
          return reloading
        }, body)
    } catch {
      if following || repaired {
        resync()
        mustRepair = true
      } else {
        rollBack()
      }
      throw error
    }
  }

  /// Brings memory along with the entries other writers committed, and repairs view state
  /// they left pointing at entities that no longer exist (the `rewind` tool cannot). Returns
  /// whether it logged a repair.
  private func follow(_ sync: HistoryLog.Sync, _ db: Database, _ history: inout HistoryLog) throws -> Bool {
    switch mustReload ? .reload : sync {
    case .current:
      guard mustRepair else { return false }
    case .missed(let changes):
      // Changes the app cannot decode (another app version's, a damaged entry) are not
      // guessed at: the tables are read instead.
      if let prepared = try? repository.schema.prepare(changes, .forward) {
        prepared.apply(to: &current)
      } else {
        current = try repository.schema.loaded(db, onto: current)
      }
    case .reload:
      // `sync` read the position when it found entries gone; a forced reload has not.
      if mustReload { try history.reload(db) }
      current = try repository.schema.loaded(db, onto: current)
    }
    mustReload = false
    mustRepair = false
    let seq = history.lastSeq
    try repair(after: nil, db, &history)
    return history.lastSeq != seq
  }

  /// Puts memory back to the file after a failed send: reverts the changes taken for the
  /// entry, or reads the state again when they could not be taken or reverted.
  private func rollBack(_ changes: [RowChange]?) {
    if let changes, (try? repository.schema.apply(changes, .backward, to: &current)) != nil { return }
    resync()
  }

  /// Reads the state and the position from the file, after a write that failed once memory
  /// had moved. If the file cannot be read now, the next write reads it first.
  func resync() {
    do {
      let (history, loaded) = try readFile()
      current = loaded
      repository.history = history
    } catch {
      mustReload = true
    }
  }

  /// The position and the whole state as the file holds them, read in one read transaction.
  private func readFile() throws -> (HistoryLog, State) {
    try repository.database.read { db in
      let history = try HistoryLog(db)
      try repository.checkAppSchema(version: history.tables.appSchema.version)
      return (history, try repository.schema.loaded(db, onto: current))
    }
  }

  /// The dependencies current here, changed by `update`: what a new store keeps.
  private static func dependencies(_ update: (inout DependencyValues) -> Void) -> DependencyValues {
    // As a `withDependencies` scope, so that setting a value with no live implementation is
    // not reported as reading it.
    Dependencies.withDependencies(update) { DependencyValues._current }
  }

  /// Tells observers that a commit moved the state and the history. (``lastSeq``, ``canUndo``
  /// and ``canRedo`` change only with a commit; they are observed with the state.)
  func didCommit() {
    registrar.withMutation(of: self, keyPath: commitKeyPath, Self.noMutation)
    refreshScopes()
  }

  /// What ``didCommit()`` runs as the mutation, the commit being done: nonisolated, as a
  /// closure written in the store would be the main actor's, and checked to run on it each
  /// time it is called from `Observation` (about 200 instructions a send).
  private nonisolated static func noMutation() {}

  /// Runs `reducer` on `state` with the store's dependencies current. Nonisolated for the same
  /// reason: the closure `withValue` calls is no main-actor closure to check at every send.
  /// (The effect is assigned inside: returned through `withValue`'s generic result, its type's
  /// metadata was looked up on every send.)
  private nonisolated static func reduce(
    _ state: inout State, _ action: Action, with reducer: any Reducer<State, Action>,
    _ dependencies: DependencyValues
  ) -> Effect<Action> {
    var effect = Effect<Action>.none
    DependencyValues.$_current.withValue(dependencies) {
      effect = reducer.reduce(into: &state, action: action)
    }
    return effect
  }
}
