/// Runs a reducer and records the row changes, with no database: the engine with persistence
/// off. For the benchmark's baseline; apps use ``Store``.
@_spi(Benchmarks)
public struct StateRecorder<State: PersistentState> {
  let schema: StateSchema<State>

  /// Starts recording changes made to `state` from now on.
  public init(_ state: inout State) throws {
    schema = State.schema.renewed()
    // The first call sees every view-state row as new; it primes the view parts' caches.
    _ = try schema.takeChanges(from: &state)
  }

  /// Runs `reducer` for `action` and returns how many rows it changed.
  public func reduce<R: Reducer>(_ reducer: R, _ action: R.Action, _ state: inout State) throws -> Int
  where R.State == State {
    _ = reducer.reduce(into: &state, action: action)  // the recorder runs no effects
    return try schema.takeChanges(from: &state).count
  }
}
