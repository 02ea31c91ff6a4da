import Foundation

/// The JSON encoder of an entity's nested values (GRDB's `databaseJSONEncoder(for:)`, which
/// ``Entity`` gives by default): GRDB's own settings, with sets, and dictionaries whose keys
/// are not strings or integers, written in one order (see ``UnorderedEncodable``).
///
/// A `Set<String>` of tags in a column was written in its hash order, and read back into a
/// set with another; the row's next change logged the set as memory encoded it, in a third
/// order, so the log's image of the row before the change was not what the table held, and
/// `verify`, `compact` and `rebuild-tables` refused the file. Values holding no such collection
/// encode exactly as GRDB's encoder writes them: this one only reorders.
final class CanonicalJSONEncoder: JSONEncoder, @unchecked Sendable {
  /// An encoder set up as GRDB's default for an entity's column.
  override init() {
    super.init()
    dataEncodingStrategy = .base64
    dateEncodingStrategy = .millisecondsSince1970
    nonConformingFloatEncodingStrategy = .throw
    outputFormatting = .sortedKeys
  }

  /// The column the encoder writes, named first in the coding path of a value it refuses (a
  /// NaN in a nested struct), so that the error says where the value was.
  var column: String?

  /// What the values encoded see as their encoder's `userInfo` (GRDB's
  /// `databaseEncodingUserInfo`, which it declares `[CodingUserInfoKey: Any]`, where
  /// `JSONEncoder`'s own holds `Sendable` values only): handed to them by ``OrderingEncoder``.
  var valuesUserInfo: [CodingUserInfoKey: Any] = [:]

  override func encode<T: Encodable>(_ value: T) throws -> Data {
    do {
      return try encodeOrdered(value)
    } catch EncodingError.invalidValue(let refused, let context) where column != nil {
      throw EncodingError.invalidValue(
        refused,
        .init(
          codingPath: [ColumnKey(stringValue: column!)] + context.codingPath,
          debugDescription: context.debugDescription, underlyingError: context.underlyingError))
    }
  }

  private func encodeOrdered<T: Encodable>(_ value: T) throws -> Data {
    try super.encode(Self.ordering(value, userInfo: valuesUserInfo))
  }

  private struct ColumnKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// `value`, to be encoded with its unordered collections ordered: itself when it has none
  /// to hold (a scalar, or a type `JSONEncoder` writes in a form of its own, such as `Date`).
  fileprivate static func ordering<T: Encodable>(_ value: T, userInfo: [CodingUserInfoKey: Any]) -> any Encodable {
    if T.self == String.self || T.self == Int.self || T.self == Int64.self || T.self == Double.self
      || T.self == Bool.self || T.self == Date.self || T.self == Data.self || T.self == URL.self
      || T.self == Decimal.self || T.self == UUID.self
    {
      return value
    }
    return Ordered(value: value, userInfo: userInfo)
  }

  /// A value encoded through ``OrderingEncoder``, after its own order is made canonical.
  private struct Ordered<Value: Encodable>: Encodable {
    let value: Value
    let userInfo: [CodingUserInfoKey: Any]

    func encode(to encoder: any Encoder) throws {
      let ordering = OrderingEncoder(base: encoder, userInfo: userInfo)
      if let unordered = value as? any UnorderedEncodable, let ordered = try unordered.canonicallyOrdered() {
        try ordered.encode(to: ordering)
      } else {
        try value.encode(to: ordering)
      }
    }
  }
}

/// An encoder that passes everything to `base`, with each nested value made canonical first
/// (see ``CanonicalJSONEncoder/ordering(_:)``).
private struct OrderingEncoder: Encoder {
  let base: any Encoder
  let userInfo: [CodingUserInfoKey: Any]

  var codingPath: [any CodingKey] { base.codingPath }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(KeyedContainer(base: base.container(keyedBy: type), userInfo: userInfo))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    UnkeyedContainer(base: base.unkeyedContainer(), userInfo: userInfo)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleValueContainer(base: base.singleValueContainer(), userInfo: userInfo)
  }

  struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    var base: KeyedEncodingContainer<Key>
    let userInfo: [CodingUserInfoKey: Any]

    var codingPath: [any CodingKey] { base.codingPath }
    mutating func encodeNil(forKey key: Key) throws { try base.encodeNil(forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try base.encode(value, forKey: key) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws { try base.encode(value, forKey: key) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws { try base.encode(value, forKey: key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
      try base.encode(CanonicalJSONEncoder.ordering(value, userInfo: userInfo), forKey: key)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
      KeyedEncodingContainer(
        KeyedContainer<NestedKey>(base: base.nestedContainer(keyedBy: keyType, forKey: key), userInfo: userInfo))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
      UnkeyedContainer(base: base.nestedUnkeyedContainer(forKey: key), userInfo: userInfo)
    }
    mutating func superEncoder() -> any Encoder { OrderingEncoder(base: base.superEncoder(), userInfo: userInfo) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
      OrderingEncoder(base: base.superEncoder(forKey: key), userInfo: userInfo)
    }
  }

  struct UnkeyedContainer: UnkeyedEncodingContainer {
    var base: any UnkeyedEncodingContainer
    let userInfo: [CodingUserInfoKey: Any]

    var codingPath: [any CodingKey] { base.codingPath }
    var count: Int { base.count }
    mutating func encodeNil() throws { try base.encodeNil() }
    mutating func encode(_ value: Bool) throws { try base.encode(value) }
    mutating func encode(_ value: String) throws { try base.encode(value) }
    mutating func encode(_ value: Double) throws { try base.encode(value) }
    mutating func encode(_ value: Float) throws { try base.encode(value) }
    mutating func encode(_ value: Int) throws { try base.encode(value) }
    mutating func encode(_ value: Int8) throws { try base.encode(value) }
    mutating func encode(_ value: Int16) throws { try base.encode(value) }
    mutating func encode(_ value: Int32) throws { try base.encode(value) }
    mutating func encode(_ value: Int64) throws { try base.encode(value) }
    mutating func encode(_ value: UInt) throws { try base.encode(value) }
    mutating func encode(_ value: UInt8) throws { try base.encode(value) }
    mutating func encode(_ value: UInt16) throws { try base.encode(value) }
    mutating func encode(_ value: UInt32) throws { try base.encode(value) }
    mutating func encode(_ value: UInt64) throws { try base.encode(value) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws { try base.encode(value) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws { try base.encode(value) }
    mutating func encode<T: Encodable>(_ value: T) throws {
      try base.encode(CanonicalJSONEncoder.ordering(value, userInfo: userInfo))
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
      NestedKey
    > {
      KeyedEncodingContainer(
        KeyedContainer<NestedKey>(base: base.nestedContainer(keyedBy: keyType), userInfo: userInfo))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
      UnkeyedContainer(base: base.nestedUnkeyedContainer(), userInfo: userInfo)
    }
    mutating func superEncoder() -> any Encoder { OrderingEncoder(base: base.superEncoder(), userInfo: userInfo) }
  }

  struct SingleValueContainer: SingleValueEncodingContainer {
    var base: any SingleValueEncodingContainer
    let userInfo: [CodingUserInfoKey: Any]

    var codingPath: [any CodingKey] { base.codingPath }
    mutating func encodeNil() throws { try base.encodeNil() }
    mutating func encode(_ value: Bool) throws { try base.encode(value) }
    mutating func encode(_ value: String) throws { try base.encode(value) }
    mutating func encode(_ value: Double) throws { try base.encode(value) }
    mutating func encode(_ value: Float) throws { try base.encode(value) }
    mutating func encode(_ value: Int) throws { try base.encode(value) }
    mutating func encode(_ value: Int8) throws { try base.encode(value) }
    mutating func encode(_ value: Int16) throws { try base.encode(value) }
    mutating func encode(_ value: Int32) throws { try base.encode(value) }
    mutating func encode(_ value: Int64) throws { try base.encode(value) }
    mutating func encode(_ value: UInt) throws { try base.encode(value) }
    mutating func encode(_ value: UInt8) throws { try base.encode(value) }
    mutating func encode(_ value: UInt16) throws { try base.encode(value) }
    mutating func encode(_ value: UInt32) throws { try base.encode(value) }
    mutating func encode(_ value: UInt64) throws { try base.encode(value) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: Int128) throws { try base.encode(value) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encode(_ value: UInt128) throws { try base.encode(value) }
    mutating func encode<T: Encodable>(_ value: T) throws {
      try base.encode(CanonicalJSONEncoder.ordering(value, userInfo: userInfo))
    }
  }
}
