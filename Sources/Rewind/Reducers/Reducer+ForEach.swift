extension Reducer {
  /// Runs `child` on one entity of a table, for actions that name the entity's id: a row
  /// feature per task.
  ///
  /// The child mutates the entity in place through the table, so only that entity's row is
  /// written. Actions for an id the table does not hold are ignored. The child runs first,
  /// then this reducer.
  ///
  /// ```swift
  /// AppCore().forEach(\.tasks, action: .row) { TaskRow() }
  /// ```
  public func forEach<E: Entity, Child: Reducer>(
    _ table: WritableKeyPath<State, EntityTable<E>>,
    action: ActionCase<Action, (id: E.ID, action: Child.Action)>,
    child: () -> Child
  ) -> _ForEachReducer<Self, E, Child> where Child.State == E {
    _ForEachReducer(parent: self, table: table, action: action, child: child())
  }
}

/// The reducer ``Reducer/forEach(_:action:child:)`` returns.
public struct _ForEachReducer<Parent: Reducer, E: Entity, Child: Reducer>: Reducer where Child.State == E {
  @usableFromInline let parent: Parent
  @usableFromInline let table: WritableKeyPath<Parent.State, EntityTable<E>>
  @usableFromInline let action: ActionCase<Parent.Action, (id: E.ID, action: Child.Action)>
  @usableFromInline let child: Child

  @inlinable
  public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
    var childEffect = Effect<Parent.Action>.none
    if let (id, childAction) = self.action.extract(action), state[keyPath: table].contains(id: id) {
      let embed = self.action.embed
      childEffect = child.reduce(into: &state[keyPath: table][id]!, action: childAction).map { embed((id, $0)) }
    }
    return .pair(childEffect, parent.reduce(into: &state, action: action))
  }
}
