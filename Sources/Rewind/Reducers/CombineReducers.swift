/// Runs several reducers on the same state and action, in order, and merges their effects.
///
/// ```swift
/// CombineReducers {
///   Scope(state: \.list, action: .list) { ListFeature() }
///   AppCore()
/// }
/// ```
public struct CombineReducers<State, Action: Sendable>: Reducer {
  let reducers: [any Reducer<State, Action>]

  /// Combines the reducers the builder lists.
  public init(@ReducerBuilder<State, Action> _ build: () -> [any Reducer<State, Action>]) {
    reducers = build()
  }

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    var effects: [Effect<Action>] = []
    for reducer in reducers { effects.append(reducer.reduce(into: &state, action: action)) }
    return .merge(effects)
  }
}

/// Builds the list of reducers for ``CombineReducers``.
@resultBuilder
public enum ReducerBuilder<State, Action: Sendable> {
  public static func buildExpression(_ reducer: some Reducer<State, Action>) -> [any Reducer<State, Action>] {
    [reducer]
  }
  public static func buildBlock(_ parts: [any Reducer<State, Action>]...) -> [any Reducer<State, Action>] {
    parts.flatMap { $0 }
  }
  public static func buildOptional(_ part: [any Reducer<State, Action>]?) -> [any Reducer<State, Action>] { part ?? [] }
  public static func buildEither(first: [any Reducer<State, Action>]) -> [any Reducer<State, Action>] { first }
  public static func buildEither(second: [any Reducer<State, Action>]) -> [any Reducer<State, Action>] { second }
}
