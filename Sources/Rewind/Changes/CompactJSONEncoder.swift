import Foundation

/// Encodes `Encodable` values as compact JSON text with sorted keys.
///
/// Foundation's `JSONEncoder` costs tens of thousands of instructions for a two-field value on
/// Linux, and the store encodes every action's payload and every changed view state. This
/// encoder builds a small tree and writes it in one pass. Its output is what `JSONDecoder`
/// reads back: `Data` as base64, `URL` as its absolute string, integral doubles without a
/// fraction, and non-finite numbers refused, as `JSONEncoder` does by default.
enum CompactJSONEncoder {
  static func encode<T: Encodable>(_ value: T) throws -> String {
    let root = Node()
    try root.encode(value, path: nil)
    var out: [UInt8] = []
    root.write(to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// The members of `value`'s JSON object, each value's text as ``encode(_:)`` writes it, or
  /// `nil` when `value` does not encode as an object. Cheaper than splitting the object's text.
  static func encodeMembers<T: Encodable>(_ value: T) throws -> [String: String]? {
    // A scalar (`URL`, `Data`, `Decimal`, a string) is no object, whatever its `Encodable` form.
    guard try Child.leaf(value, path: nil) == nil else { return nil }
    let root = Node()
    try value.encode(to: NodeEncoder(node: root, path: nil))
    guard case .object(let members) = root.kind else { return nil }
    var out: [UInt8] = []
    var texts: [String: String] = [:]
    for member in members {
      out.removeAll(keepingCapacity: true)
      member.value.write(to: &out)
      texts[member.key] = String(decoding: out, as: UTF8.self)
    }
    return texts
  }

  /// A JSON value under construction. A class, so containers can fill it after returning.
  final class Node {
    enum Kind {
      case empty
      case literal(String)  // null, true, false, or a number, as written
      case string(String)
      case array([Child])
      /// Members in the order they were encoded; a key set again replaces its value.
      case object([(key: String, value: Child)])
    }
    var kind = Kind.empty
    /// Where each member's key is, once an object has more than ``searchedMembers``: coding
    /// keys are few, and a search beats hashing, but a dictionary is encoded as an object too,
    /// and a search per key made encoding one of 32,000 entries take 2 s.
    private var memberIndices: [String: Int]?
    static let searchedMembers = 16

    func encode<T: Encodable>(_ value: T, path: CodingPath?) throws {
      if let leaf = try Child.leaf(value, path: path) {
        kind = leaf.kind
      } else if let unordered = value as? any UnorderedEncodable, let ordered = try unordered.canonicallyOrdered() {
        // A set in one order, whatever its hash order: a view state holding it reads back,
        // and is written again, as the same text.
        try ordered.encode(to: NodeEncoder(node: self, path: path))
      } else {
        try value.encode(to: NodeEncoder(node: self, path: path))
      }
    }

    func set(_ key: String, _ child: Child) {
      guard case .object(var members) = kind else {
        kind = .object([(key, child)])
        memberIndices = nil
        return
      }
      kind = .empty  // release the storage so the array is mutated in place
      if let index = memberIndices.map({ $0[key] }) ?? members.firstIndex(where: { $0.key == key }) {
        members[index].value = child
      } else {
        memberIndices?[key] = members.count
        members.append((key, child))
        if memberIndices == nil, members.count > Self.searchedMembers {
          memberIndices = Dictionary(uniqueKeysWithValues: zip(members.lazy.map(\.key), members.indices))
        }
      }
      kind = .object(members)
    }

    func append(_ child: Child) {
      guard case .array(var items) = kind else {
        kind = .array([child])
        return
      }
      kind = .empty
      items.append(child)
      kind = .array(items)
    }

    func write(to out: inout [UInt8]) {
      switch kind {
      case .empty: out.append(contentsOf: "{}".utf8)  // a value that encoded nothing, like JSONEncoder
      case .literal(let text): JSONText.appendRaw(text, to: &out)
      case .string(let string): JSONText.appendString(string, to: &out)
      case .array(let items):
        out.append(UInt8(ascii: "["))
        for index in items.indices {
          if index > 0 { out.append(UInt8(ascii: ",")) }
          items[index].write(to: &out)
        }
        out.append(UInt8(ascii: "]"))
      case .object(let members):
        out.append(UInt8(ascii: "{"))
        // Keys are usually encoded in order already (declaration order often is): sorting a
        // copy is paid only when they are not. (By index: a zip or `enumerated()` copies each
        // member, retaining its key and value.)
        let isSorted = members.indices.dropFirst().allSatisfy { members[$0 - 1].key < members[$0].key }
        let ordered = isSorted ? members : members.sorted(by: { $0.key < $1.key })
        for index in ordered.indices {
          if index > 0 { out.append(UInt8(ascii: ",")) }
          JSONText.appendString(ordered[index].key, to: &out)
          out.append(UInt8(ascii: ":"))
          ordered[index].value.write(to: &out)
        }
        out.append(UInt8(ascii: "}"))
      }
    }

    static func number<F: BinaryFloatingPoint & LosslessStringConvertible>(
      _ value: F, _ path: @autoclosure () -> CodingPath?
    ) throws -> String {
      guard value.isFinite else {
        throw EncodingError.invalidValue(
          value, .init(codingPath: path()?.keys ?? [], debugDescription: "\(value) is not a valid JSON number"))
      }
      // Negative zero keeps its sign (`Int64(-0.0)` is 0): a view state or payload holding it
      // reads back as it was written.
      if value == 0, value.sign == .minus { return "-0.0" }
      if value == value.rounded(), abs(Double(value)) < 9_007_199_254_740_992 { return String(Int64(value)) }
      return String(value)
    }
  }

  /// A coding path as a chain of keys, made into an array only when asked for (an error, a
  /// `codingPath` read): a nested container costs a small object rather than a copy of its
  /// parent's array.
  final class CodingPath {
    let parent: CodingPath?
    let key: any CodingKey

    init(_ parent: CodingPath?, _ key: any CodingKey) {
      self.parent = parent
      self.key = key
    }

    var keys: [any CodingKey] {
      var keys: [any CodingKey] = []
      var node: CodingPath? = self
      while let current = node {
        keys.append(current.key)
        node = current.parent
      }
      return keys.reversed()
    }
  }

  /// An array item's key in a coding path.
  struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
  }

  /// A member of an object or an item of an array: a scalar held inline (most members are
  /// scalars, and a node per scalar would be an allocation each), or a node a container fills.
  enum Child {
    case literal(String)
    case string(String)
    case node(Node)

    var kind: Node.Kind {
      switch self {
      case .literal(let text): .literal(text)
      case .string(let string): .string(string)
      case .node(let node): node.kind
      }
    }

    /// The scalar `value` encodes as, for the types whose JSON is not their `Encodable` form
    /// (`Data`, `URL`, `Decimal`, as `JSONEncoder` writes them) and for strings; `nil` for
    /// the others. Checked by type, which costs less than a dynamic cast.
    static func leaf<T: Encodable>(_ value: T, path: @autoclosure () -> CodingPath?) throws -> Child? {
      if T.self == String.self { return .string(value as! String) }
      if T.self == Data.self { return .string((value as! Data).base64EncodedString()) }
      if T.self == URL.self { return .string((value as! URL).absoluteString) }
      if T.self == Decimal.self {
        let decimal = value as! Decimal
        // `Decimal.nan` describes itself as "NaN", which no JSON reader takes.
        guard !decimal.isNaN else {
          throw EncodingError.invalidValue(
            value, .init(codingPath: path()?.keys ?? [], debugDescription: "NaN is not a valid JSON number"))
        }
        return .literal(decimal.description)
      }
      return nil
    }

    /// A member that encodes `value`: inline when it is a scalar.
    static func encoding<T: Encodable>(_ value: T, path: @autoclosure () -> CodingPath?) throws -> Child {
      if let leaf = try leaf(value, path: path()) { return leaf }
      let node = Node()
      try node.encode(value, path: path())
      // A value that encoded one scalar (an enum with a raw value, a wrapper) is held inline.
      switch node.kind {
      case .literal(let text): return .literal(text)
      case .string(let string): return .string(string)
      default: return .node(node)
      }
    }

    func write(to out: inout [UInt8]) {
      switch self {
      case .literal(let text): JSONText.appendRaw(text, to: &out)
      case .string(let string): JSONText.appendString(string, to: &out)
      case .node(let node): node.write(to: &out)
      }
    }
  }

  struct NodeEncoder: Encoder {
    let node: Node
    let path: CodingPath?
    var codingPath: [any CodingKey] { path?.keys ?? [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
      if case .object = node.kind {} else { node.kind = .object([]) }
      return KeyedEncodingContainer(Keyed<Key>(node: node, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
      if case .array = node.kind {} else { node.kind = .array([]) }
      return Unkeyed(node: node, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
      Single(node: node, path: path)
    }
  }

  struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let path: CodingPath?
    var codingPath: [any CodingKey] { path?.keys ?? [] }

    private func child(_ key: Key, _ child: Child) {
      node.set(key.stringValue, child)
    }

    mutating func encodeNil(forKey key: Key) throws { child(key, .literal("null")) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { child(key, .literal(value ? "true" : "false")) }
    mutating func encode(_ value: String, forKey key: Key) throws { child(key, .string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
      child(key, .literal(try Node.number(value, CodingPath(path, key))))
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
      child(key, .literal(try Node.number(value, CodingPath(path, key))))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { child(key, .literal(String(value))) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { child(key, .literal(String(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { child(key, .literal(String(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { child(key, .literal(String(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { child(key, .literal(String(value))) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { child(key, .literal(String(value))) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { child(key, .literal(String(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { child(key, .literal(String(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { child(key, .literal(String(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { child(key, .literal(String(value))) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
      node.set(key.stringValue, try Child.encoding(value, path: CodingPath(path, key)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
      let child = Node()
      node.set(key.stringValue, .node(child))
      return NodeEncoder(node: child, path: CodingPath(path, key)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
      let child = Node()
      node.set(key.stringValue, .node(child))
      return NodeEncoder(node: child, path: CodingPath(path, key)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: "super") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue) }

    private func superEncoder(named name: String) -> any Encoder {
      let child = Node()
      node.set(name, .node(child))
      return NodeEncoder(node: child, path: path)
    }
  }

  struct Unkeyed: UnkeyedEncodingContainer {
    let node: Node
    let path: CodingPath?
    var codingPath: [any CodingKey] { path?.keys ?? [] }
    var count: Int {
      if case .array(let items) = node.kind { return items.count }
      return 0
    }

    private func child(_ child: Child) {
      node.append(child)
    }

    /// The path of the next item: its index is part of it, as in `JSONEncoder`'s errors.
    private var next: CodingPath { CodingPath(path, IndexKey(intValue: count)) }

    mutating func encodeNil() throws { child(.literal("null")) }
    mutating func encode(_ value: Bool) throws { child(.literal(value ? "true" : "false")) }
    mutating func encode(_ value: String) throws { child(.string(value)) }
    mutating func encode(_ value: Double) throws { child(.literal(try Node.number(value, next))) }
    mutating func encode(_ value: Float) throws { child(.literal(try Node.number(value, next))) }
    mutating func encode(_ value: Int) throws { child(.literal(String(value))) }
    mutating func encode(_ value: Int64) throws { child(.literal(String(value))) }
    mutating func encode(_ value: UInt64) throws { child(.literal(String(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws {
      node.append(try Child.encoding(value, path: next))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
      NestedKey
    > {
      let path = next
      let child = Node()
      node.append(.node(child))
      return NodeEncoder(node: child, path: path).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
      let path = next
      let child = Node()
      node.append(.node(child))
      return NodeEncoder(node: child, path: path).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
      let path = next
      let child = Node()
      node.append(.node(child))
      return NodeEncoder(node: child, path: path)
    }
  }

  struct Single: SingleValueEncodingContainer {
    let node: Node
    let path: CodingPath?
    var codingPath: [any CodingKey] { path?.keys ?? [] }

    mutating func encodeNil() throws { node.kind = .literal("null") }
    mutating func encode(_ value: Bool) throws { node.kind = .literal(value ? "true" : "false") }
    mutating func encode(_ value: String) throws { node.kind = .string(value) }
    mutating func encode(_ value: Double) throws { node.kind = .literal(try Node.number(value, path)) }
    mutating func encode(_ value: Float) throws { node.kind = .literal(try Node.number(value, path)) }
    mutating func encode(_ value: Int) throws { node.kind = .literal(String(value)) }
    mutating func encode(_ value: Int8) throws { node.kind = .literal(String(value)) }
    mutating func encode(_ value: Int16) throws { node.kind = .literal(String(value)) }
    mutating func encode(_ value: Int32) throws { node.kind = .literal(String(value)) }
    mutating func encode(_ value: Int64) throws { node.kind = .literal(String(value)) }
    mutating func encode(_ value: UInt) throws { node.kind = .literal(String(value)) }
    mutating func encode(_ value: UInt8) throws { node.kind = .literal(String(value)) }
    mutating func encode(_ value: UInt16) throws { node.kind = .literal(String(value)) }
    mutating func encode(_ value: UInt32) throws { node.kind = .literal(String(value)) }
    mutating func encode(_ value: UInt64) throws { node.kind = .literal(String(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try node.encode(value, path: path) }
  }
}
