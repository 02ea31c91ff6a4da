/// Changes a state in response to an action.
///
/// Reducers are the only place state changes. They mutate the state in place, which is what
/// lets ``EntityTable`` and ``OrderedIDList`` record exactly what changed.
///
/// ```swift
/// struct Counter: Reducer {
///   func reduce(into state: inout CounterState, action: CounterAction) {
///     switch action {
///     case .increment: state.count += 1
///     }
///   }
/// }
/// ```
public protocol Reducer<State, Action> {
  /// The state the reducer changes.
  associatedtype State
  /// The actions it responds to.
  associatedtype Action

  /// Applies `action` to `state`.
  func reduce(into state: inout State, action: Action)
}

/// A reducer made from a closure.
///
/// ```swift
/// let reducer = Reduce<CounterState, CounterAction> { state, action in
///   state.count += 1
/// }
/// ```
public struct Reduce<State, Action>: Reducer {
  let body: (inout State, Action) -> Void

  /// Creates a reducer that runs `body`.
  public init(_ body: @escaping (inout State, Action) -> Void) { self.body = body }

  public func reduce(into state: inout State, action: Action) { body(&state, action) }
}
