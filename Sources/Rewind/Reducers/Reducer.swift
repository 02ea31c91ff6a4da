/// Changes a state in response to an action, and says what async work to run next.
///
/// Reducers are the only place state changes. They mutate the state in place, which is what
/// lets ``EntityTable`` and ``OrderedIDList`` record exactly what changed.
///
/// ```swift
/// struct Counter: Reducer {
///   func reduce(into state: inout CounterState, action: CounterAction) -> Effect<CounterAction> {
///     switch action {
///     case .increment:
///       state.count += 1
///       return .none
///     }
///   }
/// }
/// ```
///
/// Reducers compose: ``Scope`` runs a child reducer on a child state, ``Reducer/ifLet(_:action:child:)``
/// on an optional one, ``Reducer/forEach(_:action:child:)`` on each entity of a table, and
/// ``CombineReducers`` runs several in turn.
public protocol Reducer<State, Action> {
  /// The state the reducer changes.
  associatedtype State
  /// The actions it responds to.
  associatedtype Action: Sendable

  /// Applies `action` to `state` and returns the work to run after it commits.
  func reduce(into state: inout State, action: Action) -> Effect<Action>
}

/// A reducer made from a closure.
///
/// ```swift
/// let reducer = Reduce<CounterState, CounterAction> { state, action in
///   state.count += 1
///   return .none
/// }
/// ```
public struct Reduce<State, Action: Sendable>: Reducer {
  @usableFromInline let body: (inout State, Action) -> Effect<Action>

  /// Creates a reducer that runs `body`.
  public init(_ body: @escaping (inout State, Action) -> Effect<Action>) { self.body = body }

  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> { body(&state, action) }
}
