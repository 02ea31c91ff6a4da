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

  /// Writes the action's payload without `Codable`, or returns `false` (the default) to have it
  /// encoded by its `Codable` conformance.
  ///
  /// The store encodes every action it sends, and `Codable` costs about 14,000 instructions
  /// for an enum case nested in another (a boxed container per level): an action on a hot
  /// path may write its payload itself, as an entity may build its row. The text must be the
  /// one its `Codable` encoding gives, byte for byte, since that is what the log is read back
  /// with: the case name, then its associated values by label (`_0` for an unlabelled one),
  /// keys in ascending order, a `nil` optional left out. Debug builds check it at every send
  /// and refuse the action otherwise; a case the method does not write (it returns `false`)
  /// goes through `Codable`:
  ///
  /// ```swift
  /// func writePayload(to payload: inout JSONObjectWriter) throws -> Bool {
  ///   switch self {
  ///   case .add(let title):  // {"add":{"title":"Milk"}}
  ///     try payload.writeObject("add") { try $0.write("title", title) }
  ///   case .select(let id):  // {"select":{"id":3}}, or {"select":{}} for nil
  ///     try payload.writeObject("select") { if let id { try $0.write("id", id) } }
  ///   default:
  ///     return false
  ///   }
  ///   return true
  /// }
  /// ```
  func writePayload(to payload: inout JSONObjectWriter) throws -> Bool
}

extension LoggedAction {
  public var customName: String? { nil }
  public var undoGroup: String? { nil }
  public var isUndoable: Bool { true }
  public func writePayload(to payload: inout JSONObjectWriter) throws -> Bool { false }

  /// The action's payload as the log holds it: written by ``writePayload(to:)``, or else encoded
  /// by `Codable`.
  func payloadText() throws -> String {
    try logged().payload
  }

  /// The action's payload as the log holds it (see ``payloadText()``) and the name it is logged
  /// under (see ``name``): a written payload names its first key as it writes it, where the
  /// text of a `Codable` one is read for it.
  func logged() throws -> (payload: String, name: String) {
    var writer = JSONObjectWriter()
    let written: Bool
    do {
      written = try writePayload(to: &writer)
    } catch let error as RewindError {
      throw RewindError(error.code, "\(Self.self).writePayload(to:): \(error.message)", underlying: error.underlying)
    }
    guard written else {
      let text = try CompactJSONEncoder.encode(self)
      return (text, Self.logName(customName: customName, payload: text))
    }
    let text = writer.finish()
    #if DEBUG
      let encoded = try CompactJSONEncoder.encode(self)
      guard text == encoded else {
        throw RewindError(
          .invalidValue,
          "\(Self.self).writePayload(to:) wrote \(text), where its Codable encoding is \(encoded): the log must hold the text the action decodes from (keys in ascending order, nil optionals left out)"
        )
      }
    #endif
    return (text, customName ?? writer.firstKey ?? String(describing: Self.self))
  }

  /// The action's name in `action_log.action`: ``customName``, or else the first key of its
  /// JSON encoding (the case name of an enum with synthesized `Codable`).
  public var name: String {
    if let customName { return customName }
    return (try? logged().name) ?? String(describing: Self.self)
  }

  /// The name to log for an action with this payload. The store calls it with the payload it
  /// already encoded, so naming costs no reflection and no second encoding.
  static func logName(customName: String?, payload: String) -> String {
    customName ?? JSONObjectMembers.firstKey(payload) ?? String(describing: Self.self)
  }
}
