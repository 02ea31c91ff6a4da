/// An action the store can send and log.
///
/// Actions are `Codable` so that each one is written to `action_log` with its payload as JSON.
/// An enum gets everything it needs from its synthesized `Codable` conformance:
///
/// ```swift
/// enum AppAction: LoggedAction {
///   case add(title: String)
///   case select(id: Int64?)
/// }
/// ```
public protocol LoggedAction: Codable, Sendable {
  /// The action's name in `action_log.action`. By default, the enum case's name.
  var name: String { get }

  /// Consecutive actions with the same group key form one undo step, like typing into one
  /// field. `nil` (the default) makes each action its own step.
  var undoGroup: String? { get }

  /// Whether undo steps through this action. `true` by default; an action that returns
  /// `false` is still logged, and jumps and restores still see it, but undo skips it.
  ///
  /// Actions that change only view state are skipped by undo whatever this returns.
  var isUndoable: Bool { get }
}

extension LoggedAction {
  public var undoGroup: String? { nil }
  public var isUndoable: Bool { true }

  public var name: String {
    // An enum case with associated values reflects as one child labelled with the case name;
    // a case without them describes itself as its name.
    if let label = Mirror(reflecting: self).children.first?.label, Mirror(reflecting: self).displayStyle == .enum {
      return label
    }
    return String(describing: self)
  }
}
