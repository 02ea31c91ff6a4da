import GRDB

/// The `view_state` rows of one view part, one per top-level property of its value, and what
/// finds the rows a new value changes.
///
/// Each property keeps the text its row holds, the row built for that text, and the value it
/// was last encoded from. A new value is walked member by member (its `encode(to:)`, through
/// ``Encoder``): a member equal to the value remembered for it is known to encode to what the
/// file holds and is not encoded again; only the others are encoded and compared with their
/// rows. Most changes of a view state change one property, so most of a walk is a type check
/// and an `==` per property, with no JSON written and no dictionary built. Equal values are
/// taken to encode alike, as the view part already does for the whole value; those that do
/// not (strings equal under Unicode canonical equivalence, sets that iterate in another order)
/// keep the text written first, which decodes to an equal value.
///
/// The value remembered for a property always stands for what the file holds: it is set when
/// a walk's changes are taken (and the store commits them, or reads the file again), and
/// forgotten whenever the rows are replaced from elsewhere (a load, a jump, a rollback) or the
/// property goes missing from a walk.
@usableFromInline
final class ViewRows {
  /// One property: its row as the file holds it and the value it was last encoded from.
  struct Member {
    let property: String
    /// The row's key: its `path`.
    let key: RowImage
    /// The text the default value (the app's initial state) encodes this property to, if
    /// any: a property with no row loads as that.
    let defaultText: String?
    /// The row's `value`, or `nil` when the property has no row.
    var text: String?
    /// The row built for ``text``.
    var row: RowImage?
    /// The value last encoded for the property, with its text; `nil` when there is none that
    /// stands for the row (after a load, or a walk that did not encode the property).
    var remembered: Remembered?
    /// The walk that last met the property.
    var lastWalk = 0
    /// The text the current walk encoded the property to, until its changes are taken.
    var encodedText: String?
  }

  // The stored properties that a walk reads and writes are `@exclusivity(unchecked)`: they are
  // private, used by one walk at a time on the store's actor, and no access to them calls out
  // while it lasts, so the run-time exclusivity check (about 80 instructions per access, a
  // dozen accesses a walk) has nothing to catch.

  /// The members, in ascending order of property: the order changes are logged in.
  @exclusivity(unchecked) private var members: [Member]
  /// A property's row key.
  let path: (String) -> String
  private let defaults: [String: String]
  /// The current walk's count; members met in it have it as `lastWalk`.
  @exclusivity(unchecked) private var walk = 0
  /// What the current walk encoded anew, in the order it came, applied to the members only
  /// once the walk succeeded (a walk that throws leaves them as they were).
  @exclusivity(unchecked) private var encoded: [(property: String, value: Encoded)] = []
  /// Whether the current walk's value asked for a keyed container at the top, and for another
  /// kind: a view state must encode as a JSON object.
  @exclusivity(unchecked) private var wasKeyed = false
  @exclusivity(unchecked) private var wasNotKeyed = false
  /// Whether a walk of `encode(to:)` has run on these rows (see ``isWalked``).
  @exclusivity(unchecked) private var walked = false

  /// The rows `rows` (property to value text), with the properties that have a default.
  /// `path` gives a property's row key.
  init(rows: [String: String], defaults: [String: String], path: @escaping (String) -> String) {
    self.path = path
    self.defaults = defaults
    members = []  // all stored properties set, so that `newMember` may be called
    members = Set(rows.keys).union(defaults.keys).sorted().map { property in
      var member = newMember(property)
      member.setText(rows[property])
      return member
    }
  }

  /// The rows, property to value text.
  var rows: [String: String] {
    var rows: [String: String] = [:]
    for member in members { if let text = member.text { rows[member.property] = text } }
    return rows
  }

  /// How many rows there are.
  var rowCount: Int { members.reduce(0) { $0 + ($1.text == nil ? 0 : 1) } }

  /// Appends the changes that make the rows hold `value` to `changes`, in property order, and
  /// takes them as the rows (the caller commits them, or reads the file again).
  ///
  /// A property `value` does not encode (an optional that is `nil`) is written as `null` when
  /// it has a default, so that it loads as `nil`; without one its row goes. A property with no
  /// row whose text is its default gets no row: it loads as that anyway (a property added by a
  /// newer version of the app gets a row when it changes, not as a phantom insert).
  func takeChanges<V: Encodable>(to value: V, into changes: inout [RowChange]) throws {
    // A scalar (`URL`, `Data`, `Decimal`, a string) is no object, whatever its `Encodable` form.
    guard try CompactJSONEncoder.Child.leaf(value, path: nil) == nil else { throw notAnObject(V.self) }
    walk &+= 1
    if !encoded.isEmpty { encoded.removeAll(keepingCapacity: true) }
    (wasKeyed, wasNotKeyed) = (false, false)
    try value.encode(to: Encoder(rows: self))
    guard wasKeyed, !wasNotKeyed else { throw notAnObject(V.self) }
    for (property, value) in encoded {
      let index = try self.index(of: property) ?? insert(Self.checked(property, of: V.self))
      members[index].lastWalk = walk
      switch value {
      case .text(let text, let remembered):
        members[index].encodedText = text
        members[index].remembered = remembered
      case .filled(let node):
        var out: [UInt8] = []
        node.write(to: &out)
        members[index].encodedText = String(decoding: out, as: UTF8.self)
        members[index].remembered = nil
      }
    }
    // Worked on out of the instance: one exclusive access, not one per member touched.
    var members: [Member] = []
    swap(&members, &self.members)
    defer { swap(&members, &self.members) }
    for index in members.indices {
      let after: String?
      if let text = members[index].encodedText {
        after = text
        members[index].encodedText = nil
      } else if members[index].lastWalk == walk {
        continue  // equal to the value remembered: its row holds its text already
      } else {
        // Not encoded: whatever it was, the row no longer stands for a remembered value.
        members[index].remembered = nil
        after = members[index].defaultText == nil ? nil : "null"
      }
      if let change = members[index].change(to: after) { changes.append(change) }
    }
    walked = true
  }

  /// Whether a walk of `encode(to:)` has run on these rows, so that changes may be taken from
  /// a value's listed properties (``takeListedChanges(_:into:)``): rows the file holds for
  /// properties the value no longer has (written by an older version of the app) go only
  /// through a walk, which meets every property.
  @usableFromInline
  var isWalked: Bool { walked }

  /// Appends the changes that make the rows hold `texts` to `changes`, as
  /// ``takeChanges(to:into:)`` does for a value: `texts` are the properties a value lists
  /// (``ViewStateProperties``) that differ from the value the rows hold, each with its text
  /// (`nil`: left out), in ascending order of name. Properties not given are taken to be as
  /// their rows hold them.
  @usableFromInline
  func takeListedChanges(_ texts: [(name: String, text: String?)], into changes: inout [RowChange]) {
    for (property, text) in texts {
      // Left out with no row: nothing to write, as in a walk.
      guard let member = index(of: property) ?? (text == nil ? nil : insert(property)) else { continue }
      members[member].remembered = nil  // a walk of these rows encodes it again
      let after = text ?? (members[member].defaultText == nil ? nil : "null")
      if let change = members[member].change(to: after) { changes.append(change) }
    }
  }

  /// Whether a property's row holding `a` and one holding `b` (`nil`: no row) load as the
  /// same value: a property with no row loads as its default, whose text is `defaultText`.
  static func loadAlike(_ a: String?, _ b: String?, defaultText: String?) -> Bool {
    (a ?? defaultText) == (b ?? defaultText)
  }

  /// The change that inserts the row of `property` holding `text`.
  func insertion(_ property: String, _ text: String) -> RowChange {
    var member = newMember(property)
    member.setText(text)
    return RowChange(table: EngineTable.viewState.name, key: member.key, before: nil, after: member.row)
  }

  /// `property`, unless its name holds a `.`: a row's path joins a view state's prefix and its
  /// property's name with one, so such a row would load as no property (a dictionary's key:
  /// written, then lost on reopen, while memory kept it).
  static func checked(_ property: String, of type: Any.Type) throws -> String {
    guard property.utf8.contains(UInt8(ascii: ".")) else { return property }
    var quoted = ""
    JSONText.appendString(property, to: &quoted)
    throw RewindError(
      .invalidValue,
      "view state \(type) has a property named \(quoted) (a dictionary's key?): a view-state row's path joins names with \".\", so a property's name cannot hold one; use keys without \".\", or keep the dictionary in a property of a struct (one row); nothing was written"
    )
  }

  private func notAnObject(_ type: Any.Type) -> RewindError {
    RewindError(.schemaMismatch, "view state \(type) does not encode as a JSON object")
  }

  private func index(of property: String) -> Int? {
    // A handful of properties: a search beats halving. A view part of many (a dictionary
    // stored a row per key) is halved: a search per property met made a walk of 8,000 take
    // 110 ms.
    guard members.count > Self.searchedMembers else { return members.firstIndex { $0.property == property } }
    let index = place(of: property)
    return index < members.endIndex && members[index].property == property ? index : nil
  }

  private func insert(_ property: String) -> Int {
    let index = place(of: property)
    members.insert(newMember(property), at: index)
    return index
  }

  /// Up to how many members a property is searched for one by one.
  private static let searchedMembers = 16

  /// The index of the first member whose property is not below `property` (the members are
  /// in ascending order of property).
  private func place(of property: String) -> Int {
    members.partitioningIndex { $0.property >= property }
  }

  /// The member of `property`, with no row yet.
  private func newMember(_ property: String) -> Member {
    Member(
      property: property, key: RowImage(EngineTable.viewStateKey, [path(property).databaseValue]),
      defaultText: defaults[property])
  }

  // MARK: - The walk, called by the encoder

  typealias CodingPath = CompactJSONEncoder.CodingPath

  /// A member of the walked value: encoded unless it equals the value remembered for it.
  func member<T: Encodable>(_ property: String, _ value: T, at path: @autoclosure () -> CodingPath) throws {
    if isRemembered(property, value) { return }
    var out: [UInt8] = []
    try CompactJSONEncoder.Child.encoding(value, path: path()).write(to: &out)
    let text = String(decoding: out, as: UTF8.self)
    // Cast once, when the text changes, not at every comparison.
    encoded.append((property, .text(text, remembered: (value as? any Equatable).map { Remembered.typed($0, text) })))
  }

  /// A member of a type the container names (a number, a string, a Boolean): written as
  /// `text()` unless it equals the value remembered for it, and remembered with no cast.
  func member<T: Equatable>(_ property: String, _ value: T, text: () throws -> String) rethrows {
    if isRemembered(property, value) { return }
    let text = try text()
    encoded.append((property, .text(text, remembered: Remembered.typed(value, text))))
  }

  /// Whether `value` equals the value remembered for `property`: its row holds its text.
  private func isRemembered<T>(_ property: String, _ value: T) -> Bool {
    guard let index = index(of: property) else { return false }
    let metBefore = members[index].lastWalk == walk
    members[index].lastWalk = walk
    guard let remembered = members[index].remembered, remembered.matches(value) else { return false }
    // A key encoded twice keeps the last value, as in `JSONEncoder`. (Only then: a search of
    // what the walk encoded, for each property it did not, would be quadratic.)
    if metBefore { encoded.removeAll { $0.property == property } }
    return true
  }

  /// A member given as JSON text (`null`), never remembered.
  func member(_ property: String, text: String) {
    meet(property)
    encoded.append((property, .text(text, remembered: nil)))
  }

  /// A member a nested container or a super encoder fills: `node` is written once the walk is
  /// over (a container may be filled after its parent's later members).
  func member(_ property: String, filling node: CompactJSONEncoder.Node) {
    meet(property)
    encoded.append((property, .filled(node)))
  }

  /// Notes that the walk met `property`, so that the same key encoded again as the remembered
  /// value replaces what was encoded here (``isRemembered(_:_:)``).
  private func meet(_ property: String) {
    if let index = index(of: property) { members[index].lastWalk = walk }
  }

  func tookKeyedContainer() { wasKeyed = true }
  func tookOtherContainer() { wasNotKeyed = true }
}

extension ViewRows {
  /// A member a walk encoded anew.
  private enum Encoded {
    /// Its text, and the value it was encoded from when that is `Equatable`.
    case text(String, remembered: Remembered?)
    /// Filled through a container of its own: its text is written once the walk is over, and
    /// it is never remembered.
    case filled(CompactJSONEncoder.Node)
  }
}

extension ViewRows.Member {
  fileprivate mutating func setText(_ text: String?) {
    self.text = text
    row = text.map { RowImage(EngineTable.viewStateColumns, [key.values[0], $0.databaseValue]) }
  }

  /// Makes the row hold `after` (`nil`: no row), returning the change; `nil` when the file
  /// needs none: the row holds it already, or there is no row and `after` is the default,
  /// which a property with no row loads as anyway.
  fileprivate mutating func change(to after: String?) -> RowChange? {
    let before = text
    if ViewRows.loadAlike(before, after, defaultText: defaultText) { return nil }
    let beforeRow = row
    setText(after)
    return RowChange(table: EngineTable.viewState.name, key: key, before: beforeRow, after: row)
  }
}
