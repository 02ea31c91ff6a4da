import Foundation

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
  /// A name for `action_log.action` other than the default, or `nil` (the default).
  ///
  /// By default an action is logged under the first key of its JSON payload, which for an
  /// enum with synthesized `Codable` is the case name: `.add(title:)` is logged as `add`.
  var customName: String? { get }

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
  public var customName: String? { nil }
  public var undoGroup: String? { nil }
  public var isUndoable: Bool { true }

  /// The action's name in `action_log.action`: ``customName``, or else the first key of its
  /// JSON encoding (the case name of an enum with synthesized `Codable`).
  public var name: String {
    if let customName { return customName }
    let payload = (try? CompactJSONEncoder.encode(self)) ?? ""
    return Self.logName(customName: nil, payload: payload)
  }

  /// The name to log for an action with this payload. The store calls it with the payload it
  /// already encoded, so naming costs no reflection and no second encoding.
  static func logName(customName: String?, payload: String) -> String {
    customName ?? JSONObjectMembers.firstKey(payload) ?? String(describing: Self.self)
  }
}
