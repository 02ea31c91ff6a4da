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
  /// The slice from the root store; `nil` once the root store is gone.
  private let read: @MainActor () -> State?
  /// Sends to the root store; `nil` once the root store is gone.
  private let forward: @MainActor (Action) throws -> Int64??
  private var cached: State
  private let registrar = ObservationRegistrar()
  private let stateKeyPath = \ScopedStore.state

  init(
    initial: State, read: @escaping @MainActor () -> State?,
    send: @escaping @MainActor (Action) throws -> Int64??
  ) {
    self.read = read
    self.forward = send
    cached = initial
  }

  /// The slice, as of the last commit (the last one seen, once the root store is gone).
  public var state: State {
    registrar.access(self, keyPath: stateKeyPath)
    return cached
  }

  /// Sends `action` to the root store (embedded in a root action).
  ///
  /// - Returns: the committed seq, or `nil` when the action changed nothing.
  /// - Throws: what the root store's ``Store/send(_:)`` throws, or
  ///   ``RewindError/Code/storeReleased`` when the root store is gone.
  @discardableResult
  public func send(_ action: Action) throws -> Int64? {
    guard let result = try forward(action) else {
      throw RewindError(.storeReleased, "the store this scoped store sends to was released; the action was not sent")
    }
    return result
  }

  /// Takes the slice from the root; notifies observers only if it changed.
  func refresh() {
    guard let new = read(), new != cached else { return }
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
    register(
      ScopedStore(
        initial: current[keyPath: keyPath], read: { [weak self] in self?.current[keyPath: keyPath] },
        send: { [weak self] child in
          guard let self else { return nil }
          return .some(try send(child))
        }))
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
        initial: current[keyPath: keyPath], read: { [weak self] in self?.current[keyPath: keyPath] },
        send: { [weak self] child in
          guard let self else { return nil }
          return .some(try send(action.embed(child)))
        }))
  }

  private func register<Child, ChildAction>(_ scope: ScopedStore<Child, ChildAction>) -> ScopedStore<Child, ChildAction>
  {
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
