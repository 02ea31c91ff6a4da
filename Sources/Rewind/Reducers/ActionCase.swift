/// How a child feature's actions sit inside its parent's: embed one, extract one back.
///
/// ```swift
/// enum AppAction { case list(ListAction) }
///
/// extension ActionCase<AppAction, ListAction> {
///   static let list = ActionCase(embed: AppAction.list) {
///     if case .list(let action) = $0 { action } else { nil }
///   }
/// }
/// ```
public struct ActionCase<Parent, Child>: Sendable {
  /// Wraps a child action in the parent action.
  public let embed: @Sendable (Child) -> Parent
  /// The child action inside a parent action, or `nil` for other actions.
  public let extract: @Sendable (Parent) -> Child?

  /// Creates an action case from its two directions.
  public init(embed: @escaping @Sendable (Child) -> Parent, extract: @escaping @Sendable (Parent) -> Child?) {
    self.embed = embed
    self.extract = extract
  }
}
