import Observation

/// A store of one slice of the state: what a view of that slice gets.
///
/// Its observers are notified only when its slice changes: a change elsewhere in the state
/// does not invalidate them. The slice is compared with `==` after each commit, so a row view
/// scoped to one task is not redrawn when the search text changes.
///
/// ```swift
/// let row = store.scope(state: \.tasks[id])              // TaskItem?
/// let search = store.scope(state: \.view.list.searchText, action: .list)
/// ```
@MainActor
public final class ScopedStore<State: Equatable, Action>: Observable {
  private let read: @MainActor () -> State
  private let forward: @MainActor (Action) throws -> Int64
  private var cached: State
  private let registrar = ObservationRegistrar()
  private let stateKeyPath = \ScopedStore.state

  init(read: @escaping @MainActor () -> State, send: @escaping @MainActor (Action) throws -> Int64) {
    self.read = read
    self.forward = send
    cached = read()
  }

  /// The slice, as of the last commit.
  public var state: State {
    registrar.access(self, keyPath: stateKeyPath)
    return cached
  }

  /// Sends `action` to the root store (embedded in a root action). Returns the committed seq.
  @discardableResult
  public func send(_ action: Action) throws -> Int64 { try forward(action) }

  /// Takes the slice from the root; notifies observers only if it changed.
  func refresh() {
    let new = read()
    guard new != cached else { return }
    registrar.withMutation(of: self, keyPath: stateKeyPath) { cached = new }
  }
}

/// A scoped store the root refreshes while something holds it.
@MainActor
struct WeakScope {
  weak var scope: AnyObject?
  let refresh: @MainActor () -> Void
}

extension Store {
  /// A store of the slice at `keyPath`, whose actions are root actions.
  ///
  /// - Parameter keyPath: the slice; observers are notified only when it changes.
  public func scope<Child: Equatable>(state keyPath: KeyPath<State, Child>) -> ScopedStore<Child, Action> {
    register(ScopedStore(read: { [unowned self] in current[keyPath: keyPath] }, send: { [unowned self] in try send($0) }))
  }

  /// A store of the slice at `keyPath`, whose actions are a child feature's.
  ///
  /// - Parameters:
  ///   - keyPath: the slice; observers are notified only when it changes.
  ///   - action: how the child's actions embed into the root's.
  public func scope<Child: Equatable, ChildAction>(
    state keyPath: KeyPath<State, Child>, action: ActionCase<Action, ChildAction>
  ) -> ScopedStore<Child, ChildAction> {
    register(
      ScopedStore(
        read: { [unowned self] in current[keyPath: keyPath] },
        send: { [unowned self] in try send(action.embed($0)) }))
  }

  private func register<Child, ChildAction>(_ scope: ScopedStore<Child, ChildAction>) -> ScopedStore<Child, ChildAction> {
    scopes.append(WeakScope(scope: scope, refresh: { [weak scope] in scope?.refresh() }))
    return scope
  }

  /// Refreshes the live scoped stores and forgets released ones. O(scoped stores) per commit.
  func refreshScopes() {
    guard !scopes.isEmpty else { return }
    scopes.removeAll { $0.scope == nil }
    for scope in scopes { scope.refresh() }
  }
}
