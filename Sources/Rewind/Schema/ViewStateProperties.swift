/// A view state that lists its top-level properties, so that a change is found by comparing
/// each property and only the ones that changed are encoded.
///
/// Without the list, a view state that changed is walked through its `encode(to:)`: every
/// property is handed to the engine's encoder, compared with the value last written, and the
/// changed ones encoded. That walk goes through `Encoder`'s containers, which cannot be
/// specialized, and costs several thousand instructions on every action that changes the view
/// state (a selection, a search). With the list, a change compares each property with `==`
/// and encodes only those that differ, in code specialized for each property's type.
///
/// The list must name every property the value's `encode(to:)` writes, under the same name
/// (its coding key), and each property must encode as `encode(to:)` encodes it. Optionals left
/// out when `nil` (as a synthesized `encode(to:)` does, with `encodeIfPresent`) are listed
/// through the initializer that takes an optional. Opening a store checks
/// the list against the initial state's encoding and throws ``RewindError`` if they disagree;
/// debug builds check it again on every change.
///
/// The schema's `.view(_:at:)` takes the list where it names the view state with a type known
/// to conform: no conformance is looked up at run time (the first look-up for a type that does
/// not conform scans every conformance the process has, about a million instructions). In generic code
/// whose view-state type is a generic parameter, constrain the parameter to
/// `ViewStateProperties` for its list to be used; otherwise its changes are found by the walk.
///
/// ```swift
/// struct EditorViewState: Codable, Equatable, Sendable, ViewStateProperties {
///   var selection: UUID?
///   var zoom = 1.0
///
///   static let viewProperties: [ViewProperty<Self>] = [
///     ViewProperty("selection", \.selection),
///     ViewProperty("zoom", \.zoom),
///   ]
/// }
/// ```
public protocol ViewStateProperties {
  /// Every top-level property, by the name `encode(to:)` writes it under.
  static var viewProperties: [ViewProperty<Self>] { get }
}

/// One top-level property of a view state that lists them (``ViewStateProperties``).
///
/// It holds the property only through two closures, made where the property is listed, so
/// they run specialized for its type. `@unchecked Sendable`: the closures capture the
/// property's reader (a key path literal, as a function) and its name, both immutable.
public struct ViewProperty<Root>: @unchecked Sendable {
  /// The property's coding key: the last component of its `view_state` row's path.
  public let name: String
  /// Whether the property differs between two values.
  @usableFromInline let differs: (Root, Root) -> Bool
  /// The property's JSON text in a value, or `nil` when `encode(to:)` leaves it out.
  @usableFromInline let text: (Root) throws -> String?

  /// A property that is always encoded.
  ///
  /// - Parameters:
  ///   - name: the name `encode(to:)` writes it under (its coding key).
  ///   - value: the property: a key path (`\.zoom`), which the compiler makes a function
  ///     that reads the property directly, where a `KeyPath` value is projected at run time.
  @inlinable
  public init<Value: Encodable & Equatable>(_ name: String, _ value: @escaping (Root) -> Value) {
    self.name = name
    differs = { value($0) != value($1) }
    text = { try Self.text(of: value($0), named: name) }
  }

  /// An optional property, left out when it is `nil` (as a synthesized `encode(to:)` leaves it
  /// out, with `encodeIfPresent`).
  ///
  /// - Parameters:
  ///   - name: the name `encode(to:)` writes it under (its coding key).
  ///   - value: the property: a key path (`\.zoom`), which the compiler makes a function
  ///     that reads the property directly, where a `KeyPath` value is projected at run time.
  @inlinable
  public init<Wrapped: Encodable & Equatable>(_ name: String, _ value: @escaping (Root) -> Wrapped?) {
    self.name = name
    differs = { value($0) != value($1) }
    text = { root in try value(root).map { try Self.text(of: $0, named: name) } }
  }

  /// The JSON text of a property's value, as the walk of `encode(to:)` writes it.
  ///
  /// Strings, Booleans, integers and doubles are written here, as the walk's container writes
  /// them (the casts are resolved where this is specialized); anything else goes through the
  /// engine's encoder, whose generic walk costs a few thousand instructions even for a number.
  @inlinable
  static func text<Value: Encodable>(of value: Value, named name: String) throws -> String {
    if let value = value as? String { return ViewPropertyText.quoted(value) }
    if let value = value as? Bool { return value ? "true" : "false" }
    if let value = value as? Int { return String(value) }
    if let value = value as? Int64 { return String(value) }
    if let value = value as? Double { return try ViewPropertyText.number(value, named: name) }
    return try ViewPropertyText.encoded(value, named: name)
  }
}

extension ViewProperty {
  /// Whether `properties`, the list a value's type gives, encodes `value` as its `encode(to:)`
  /// does (`encoded`, one text per property): the same properties, with the same texts.
  /// Returns what disagrees, or `nil`.
  static func disagreement(of properties: [ViewProperty<Root>], with encoded: [String: String], for value: Root) throws
    -> String?
  {
    var names = Set<String>()
    for property in properties {
      guard names.insert(property.name).inserted else { return "it lists \"\(property.name)\" twice" }
      let text = try property.text(value)
      if text != encoded[property.name] {
        return
          "its property \"\(property.name)\" encodes as \(text ?? "nothing") where encode(to:) writes \(encoded[property.name] ?? "nothing")"
      }
    }
    if let missing = encoded.keys.sorted().first(where: { !names.contains($0) }) {
      return "it does not list \"\(missing)\", which encode(to:) writes"
    }
    return nil
  }
}

/// The texts of listed view-state properties, written as the walk of `encode(to:)` writes them.
@usableFromInline
enum ViewPropertyText {
  @usableFromInline
  static func quoted(_ string: String) -> String {
    var text = ""
    JSONText.appendString(string, to: &text)
    return text
  }

  @usableFromInline
  static func number(_ value: Double, named name: String) throws -> String {
    try CompactJSONEncoder.Node.number(value, CompactJSONEncoder.CodingPath(nil, NameKey(name)))
  }

  @usableFromInline
  static func encoded<Value: Encodable>(_ value: Value, named name: String) throws -> String {
    var out: [UInt8] = []
    try CompactJSONEncoder.Child.encoding(value, path: CompactJSONEncoder.CodingPath(nil, NameKey(name)))
      .write(to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// A property's name as the coding key of an encoding error's path.
  private struct NameKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }
}
