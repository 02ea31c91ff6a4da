import Foundation

/// A collection whose `Encodable` form lists its elements in an order of its own: a `Set` in
/// its hash order, a dictionary whose keys are not strings or integers as an array of keys and
/// values in that order. The order changes from one process to the next (Swift seeds its
/// hashes per process) and with a value's history, so the same value encoded twice can give two
/// texts: a row the log recorded as one text would be read back, and written again, as another.
///
/// ``canonicallyOrdered(by:)`` gives a value that encodes as the collection does, its elements
/// sorted by their own JSON text: one text for equal values.
protocol UnorderedEncodable {
  /// A value encoding as this collection, in the order of `text` of each element (of each key,
  /// for a dictionary); `nil` when the collection's order cannot vary (fewer than two elements,
  /// or a dictionary that encodes as a JSON object, whose keys the encoders sort).
  func canonicallyOrdered(by text: (any Encodable) throws -> String) throws -> (any Encodable)?
}

extension Set: UnorderedEncodable where Element: Encodable {
  func canonicallyOrdered(by text: (any Encodable) throws -> String) throws -> (any Encodable)? {
    guard count > 1 else { return nil }
    // An array of the elements encodes as the set does: an unkeyed container, element by element.
    return try map { (text: try text($0), element: $0) }.sorted { $0.text.utf8.lexicographicallyPrecedes($1.text.utf8) }
      .map(\.element)
  }
}

extension Dictionary: UnorderedEncodable where Key: Encodable, Value: Encodable {
  func canonicallyOrdered(by text: (any Encodable) throws -> String) throws -> (any Encodable)? {
    // Keys that encode as an object's member names (as `Dictionary`'s `Encodable` form decides).
    guard count > 1, Key.self != String.self, Key.self != Int.self, !(Key.self is any CodingKeyRepresentable.Type)
    else { return nil }
    let pairs = try map { (text: try text($0.key), key: $0.key, value: $0.value) }
      .sorted { $0.text.utf8.lexicographicallyPrecedes($1.text.utf8) }
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
