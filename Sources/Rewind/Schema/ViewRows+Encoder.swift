extension ViewRows {
  /// The encoder a view state's value is walked with: its top-level members go to the rows
  /// (``ViewRows/member(_:_:at:)``), whatever is under them is encoded by
  /// ``CompactJSONEncoder``.
  struct Encoder: Swift.Encoder {
    let rows: ViewRows
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
      rows.tookKeyedContainer()
      return KeyedEncodingContainer(Members<Key>(rows: rows))
    }

    // Not an object: refused once the walk is over, so these only need to take what comes.
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
      rows.tookOtherContainer()
      return CompactJSONEncoder.NodeEncoder(node: CompactJSONEncoder.Node(), path: nil).unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
      rows.tookOtherContainer()
      return CompactJSONEncoder.NodeEncoder(node: CompactJSONEncoder.Node(), path: nil).singleValueContainer()
    }
  }

  /// The value's top-level container: each member is one row.
  struct Members<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let rows: ViewRows
    var codingPath: [any CodingKey] { [] }

    private func member<T: Encodable>(_ value: T, _ key: Key) throws {
      try rows.member(key.stringValue, value, at: CodingPath(nil, key))
    }

    private func integer<T: FixedWidthInteger>(_ value: T, _ key: Key) {
      rows.member(key.stringValue, value) { String(value) }
    }

    mutating func encodeNil(forKey key: Key) throws { rows.member(key.stringValue, text: "null") }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
      rows.member(key.stringValue, value) { value ? "true" : "false" }
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
      rows.member(key.stringValue, value) {
        var text = ""
        JSONText.appendString(value, to: &text)
        return text
      }
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
      try rows.member(key.stringValue, value) {
        try CompactJSONEncoder.Node.number(value, CodingPath(nil, key))
      }
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
      try rows.member(key.stringValue, value) {
        try CompactJSONEncoder.Node.number(value, CodingPath(nil, key))
      }
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { integer(value, key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try member(value, key) }

    mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
      filled(key.stringValue, path: CodingPath(nil, key)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
      filled(key.stringValue, path: CodingPath(nil, key)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Swift.Encoder { filled("super", path: nil) }
    mutating func superEncoder(forKey key: Key) -> any Swift.Encoder { filled(key.stringValue, path: nil) }

    /// An encoder for a member filled through a container of its own.
    private func filled(_ property: String, path: CodingPath?) -> CompactJSONEncoder.NodeEncoder {
      let node = CompactJSONEncoder.Node()
      rows.member(property, filling: node)
      return CompactJSONEncoder.NodeEncoder(node: node, path: path)
    }
  }
}
