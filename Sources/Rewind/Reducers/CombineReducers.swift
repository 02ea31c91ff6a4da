/// Runs several reducers on the same state and action, in order, and merges their effects.
///
/// ```swift
/// let body = CombineReducers<AppState, AppAction, _> {
///   Scope(state: \.list, action: .list) { ListFeature() }
///   AppCore()
/// }
/// ```
///
/// The builder composes the reducers as concrete types (a ``_Sequence`` of each one and the
/// next), not as an array of existentials: the app's module sees the whole composition, and
/// the compiler specializes and inlines it into one function, as it would hand-written code.
public struct CombineReducers<State, Action: Sendable, Reducers: Reducer>: Reducer
where Reducers.State == State, Reducers.Action == Action {
  @usableFromInline let reducers: Reducers

  /// Combines the reducers the builder lists.
  @inlinable
  public init(@ReducerBuilder<State, Action> _ build: () -> Reducers) {
    reducers = build()
  }

  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    reducers.reduce(into: &state, action: action)
  }
}

/// Builds the composition of reducers for ``CombineReducers``, as concrete types.
@resultBuilder
public enum ReducerBuilder<State, Action: Sendable> {
  @inlinable
  public static func buildExpression<R: Reducer>(_ reducer: R) -> R
  where R.State == State, R.Action == Action {
    reducer
  }

  @inlinable
  public static func buildBlock() -> EmptyReducer<State, Action> { EmptyReducer() }

  @inlinable
  public static func buildPartialBlock<R: Reducer>(first: R) -> R where R.State == State, R.Action == Action {
    first
  }

  @inlinable
  public static func buildPartialBlock<R0: Reducer, R1: Reducer>(
    accumulated: R0, next: R1
  ) -> _Sequence<R0, R1> where R0.State == State, R0.Action == Action {
    _Sequence(first: accumulated, second: next)
  }

  @inlinable
  public static func buildOptional<R: Reducer>(_ reducer: R?) -> _Optional<R>
  where R.State == State, R.Action == Action {
    _Optional(wrapped: reducer)
  }

  @inlinable
  public static func buildEither<First: Reducer, Second: Reducer>(first: First) -> _Conditional<First, Second>
  where First.State == State, First.Action == Action {
    .first(first)
  }

  @inlinable
  public static func buildEither<First: Reducer, Second: Reducer>(second: Second) -> _Conditional<First, Second>
  where Second.State == State, Second.Action == Action {
    .second(second)
  }
}

/// A reducer that changes nothing: what an empty ``CombineReducers`` builds.
public struct EmptyReducer<State, Action: Sendable>: Reducer {
  /// Creates the reducer.
  @inlinable
  public init() {}

  @inlinable
  public func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
}

/// Two reducers run in turn: what ``ReducerBuilder`` builds from consecutive lines.
public struct _Sequence<R0: Reducer, R1: Reducer>: Reducer where R0.State == R1.State, R0.Action == R1.Action {
  @usableFromInline let first: R0
  @usableFromInline let second: R1

  @inlinable
  init(first: R0, second: R1) {
    self.first = first
    self.second = second
  }

  @inlinable
  public func reduce(into state: inout R0.State, action: R0.Action) -> Effect<R0.Action> {
    let effect = first.reduce(into: &state, action: action)
    return .pair(effect, second.reduce(into: &state, action: action))
  }
}

/// A reducer that may be absent: what ``ReducerBuilder`` builds from an `if` without `else`.
public struct _Optional<Wrapped: Reducer>: Reducer {
  @usableFromInline let wrapped: Wrapped?

  @inlinable
  init(wrapped: Wrapped?) { self.wrapped = wrapped }

  @inlinable
  public func reduce(into state: inout Wrapped.State, action: Wrapped.Action) -> Effect<Wrapped.Action> {
    wrapped?.reduce(into: &state, action: action) ?? .none
  }
}

/// One of two reducers: what ``ReducerBuilder`` builds from `if`-`else` and `switch`.
public enum _Conditional<First: Reducer, Second: Reducer>: Reducer
where First.State == Second.State, First.Action == Second.Action {
  case first(First)
  case second(Second)

  @inlinable
  public func reduce(into state: inout First.State, action: First.Action) -> Effect<First.Action> {
    switch self {
    case .first(let reducer): reducer.reduce(into: &state, action: action)
    case .second(let reducer): reducer.reduce(into: &state, action: action)
    }
  }
}
