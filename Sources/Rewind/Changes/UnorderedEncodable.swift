import Foundation

/// A collection whose `Encodable` form lists its elements in an order of its own: a `Set` in
/// its hash order, a dictionary whose keys are not strings or integers as an array of keys and
/// values in that order. The order changes from one process to the next (Swift seeds its
/// hashes per process) and with a value's history, so the same value encoded twice can give two
/// texts: a row the log recorded as one text would be read back, and written again, as another.
///
/// ``canonicallyOrdered()`` gives a value that encodes as the collection does, its elements
/// sorted by their own JSON text (as ``CompactJSONEncoder`` writes it, sets in it ordered
/// alike): one text for equal values, whichever encoder then writes them.
protocol UnorderedEncodable {
  /// A value encoding as this collection, its elements (a dictionary's keys) in the order of
  /// their JSON text; `nil` when the collection's order cannot vary (fewer than two elements,
  /// or a dictionary that encodes as a JSON object, whose keys the encoders sort).
  func canonicallyOrdered() throws -> (any Encodable)?
}

extension UnorderedEncodable {
  /// The text elements are sorted by.
  fileprivate static func sortText(_ element: some Encodable) throws -> [UInt8] {
    Array(try CompactJSONEncoder.encode(element).utf8)
  }
}

extension Set: UnorderedEncodable where Element: Encodable {
  func canonicallyOrdered() throws -> (any Encodable)? {
    guard count > 1 else { return nil }
    // An array of the elements encodes as the set does: an unkeyed container, element by element.
    return try map { (text: try Self.sortText($0), element: $0) }.sorted { $0.text.lexicographicallyPrecedes($1.text) }
      .map(\.element)
  }
}

extension Dictionary: UnorderedEncodable where Key: Encodable, Value: Encodable {
  func canonicallyOrdered() throws -> (any Encodable)? {
    // Keys that encode as an object's member names (as `Dictionary`'s `Encodable` form decides).
    guard count > 1, Key.self != String.self, Key.self != Int.self, !(Key.self is any CodingKeyRepresentable.Type)
    else { return nil }
    let pairs = try map { (text: try Self.sortText($0.key), key: $0.key, value: $0.value) }
      .sorted { $0.text.lexicographicallyPrecedes($1.text) }
    return KeyValuePairs(pairs: pairs.map { ($0.key, $0.value) })
  }

  /// Keys and values, alternating in one unkeyed container, as `Dictionary` encodes itself
  /// when its keys are not strings or integers.
  private struct KeyValuePairs: Encodable {
    let pairs: [(Key, Value)]

    func encode(to encoder: any Encoder) throws {
      var container = encoder.unkeyedContainer()
      for (key, value) in pairs {
        try container.encode(key)
        try container.encode(value)
      }
    }
  }
}
