extension Reducer {
  /// Runs `child` on an optional child state, when it is present: a screen that may be absent.
  ///
  /// The child runs first, then this reducer, so the parent can dismiss the child (set it to
  /// `nil`) in response to the child's own action. Child actions that arrive while the state
  /// is `nil` are ignored.
  ///
  /// ```swift
  /// AppCore().ifLet(\.view.modal, action: .modal) { ModalFeature() }
  /// ```
  public func ifLet<Child: Reducer>(
    _ state: WritableKeyPath<State, Child.State?>,
    action: ActionCase<Action, Child.Action>,
    child: () -> Child
  ) -> _IfLetReducer<Self, Child> {
    _IfLetReducer(parent: self, state: state, action: action, child: child())
  }
}

/// The reducer ``Reducer/ifLet(_:action:child:)`` returns.
public struct _IfLetReducer<Parent: Reducer, Child: Reducer>: Reducer {
  @usableFromInline let parent: Parent
  @usableFromInline let state: WritableKeyPath<Parent.State, Child.State?>
  @usableFromInline let action: ActionCase<Parent.Action, Child.Action>
  @usableFromInline let child: Child

  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    var childEffect = Effect<Parent.Action>.none
    if let childAction = self.action.extract(action), state[keyPath: self.state] != nil {
      childEffect = child.reduce(into: &state[keyPath: self.state]!, action: childAction).map(self.action.embed)
    }
    return .pair(childEffect, parent.reduce(into: &state, action: action))
  }
}
