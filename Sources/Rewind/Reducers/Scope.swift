/// Runs a child reducer on a child state, for the parent actions that carry a child action.
///
/// ```swift
/// CombineReducers {
///   Scope(state: \.settings, action: .settings) { SettingsFeature() }
///   AppCore()
/// }
/// ```
///
/// The child mutates its slice of the parent's state in place, so change tracking sees only
/// the rows it touched. Its effects' actions are embedded back into parent actions.
public struct Scope<ParentState, ParentAction: Sendable, Child: Reducer>: Reducer {
  @usableFromInline let state: WritableKeyPath<ParentState, Child.State>
  @usableFromInline let action: ActionCase<ParentAction, Child.Action>
  @usableFromInline let child: Child

  /// Scopes `child` to the state at `state` and the actions of `action`.
  public init(
    state: WritableKeyPath<ParentState, Child.State>,
    action: ActionCase<ParentAction, Child.Action>,
    child: () -> Child
  ) {
    self.state = state
    self.action = action
    self.child = child()
  }

  @inlinable
  public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
    guard let childAction = self.action.extract(action) else { return .none }
    return child.reduce(into: &state[keyPath: self.state], action: childAction).map(self.action.embed)
  }
}
