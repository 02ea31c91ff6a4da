import Foundation
import GRDB
import Testing

@testable import Rewind

// A view part's rows find what a new value changes by skipping the members equal to the values
// they remember. These tests hold them to a plain model of the rows (a dictionary of property
// to JSON text, changed as the rules say) over random walks, reloads, jumps to other rows and
// walks that fail, and count which members were encoded again.

private final class Counter: @unchecked Sendable { var encodes = 0 }

/// A member that counts its encodings.
private struct Counted: Encodable, Equatable {
  var value: Int
  let counter: Counter
  func encode(to encoder: any Encoder) throws {
    counter.encodes += 1
    var container = encoder.singleValueContainer()
    try container.encode(value)
  }
  static func == (lhs: Self, rhs: Self) -> Bool { lhs.value == rhs.value }
}

private enum Mode: Codable, Equatable {
  case plain
  case labelled(name: String, count: Int)
}

private struct Screen: Encodable, Equatable {
  var tree: JSONValue = .null
  /// `nil` at first, so it has no default: its row goes when it is `nil` again.
  var optional: [String: Int]?
  var modes: [Mode] = [.plain]
  var counted: Counted
  var title = "t"
  /// Not finite: the walk fails.
  var ratio = 0.5
  /// Not `nil` at first: `nil` is written as `null`.
  var withDefault: Int? = 1
}

struct ViewRowsTests {
  private static func path(_ property: String) -> String { "screen." + property }

  /// The rows the model holds after `value`, and the properties whose rows change, in order.
  private static func modelWalk(
    _ rows: inout [String: String], to value: Screen, defaults: [String: String]
  ) throws -> [(property: String, before: String?, after: String?)] {
    var encoded = try #require(try CompactJSONEncoder.encodeMembers(value))
    for property in defaults.keys where encoded[property] == nil { encoded[property] = "null" }
    var changes: [(property: String, before: String?, after: String?)] = []
    for property in Set(rows.keys).union(encoded.keys).sorted() {
      let (before, after) = (rows[property], encoded[property])
      if before == after || (before == nil && after == defaults[property]) { continue }
      changes.append((property, before, after))
      rows[property] = after
    }
    return changes
  }

  @Test(arguments: 0..<4) func changesAreTheModelsAndOnlyChangedMembersAreEncoded(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let counter = Counter()
    let initial = Screen(counted: Counted(value: 0, counter: counter))
    let defaults = try #require(try CompactJSONEncoder.encodeMembers(initial))
    var model: [String: String] = [:]
    var rows = ViewRows(rows: model, defaults: defaults, path: Self.path)
    var screen = initial
    /// The counted value as last walked with the memo standing, or `nil` once it was forgotten.
    var remembered: Int? = nil
    var earlier: [[String: String]] = [model]
    for step in 0..<400 {
      switch random.next() % 10 {
      case 0:
        // A load: the same rows, nothing remembered.
        rows = ViewRows(rows: rows.rows, defaults: defaults, path: Self.path)
        remembered = nil
      case 1:
        // A jump: rows the file held earlier, nothing remembered.
        model = earlier[Int(random.next() % UInt64(earlier.count))]
        rows = ViewRows(rows: model, defaults: defaults, path: Self.path)
        remembered = nil
      case 2:
        // A walk that fails: the rows and what they remember are as they were.
        var failing = screen
        failing.ratio = .nan
        if random.next() % 2 == 0 { failing.title = "changed before the failure \(step)" }
        var changes: [RowChange] = []
        #expect(throws: EncodingError.self) { try rows.takeChanges(to: failing, into: &changes) }
        #expect(changes.isEmpty)
        #expect(rows.rows == model)
      default:
        if random.next() % 2 == 0 {
          screen.tree = [.null, .integer(Int64(random.next() % 3)), .string("s")].randomElement(using: &random)!
        }
        if random.next() % 3 == 0 { screen.optional = random.next() % 2 == 0 ? nil : ["a": Int(random.next() % 3)] }
        if random.next() % 3 == 0 {
          screen.modes = random.next() % 2 == 0 ? [] : [.labelled(name: "n", count: 1), .plain]
        }
        if random.next() % 4 == 0 { screen.counted.value = Int(random.next() % 3) }
        if random.next() % 4 == 0 { screen.title = "t\(random.next() % 3)" }
        if random.next() % 4 == 0 { screen.withDefault = random.next() % 2 == 0 ? nil : Int(random.next() % 2) }
        let encodesBefore = counter.encodes
        var changes: [RowChange] = []
        try rows.takeChanges(to: screen, into: &changes)
        let encodes = counter.encodes - encodesBefore
        let expected = try Self.modelWalk(&model, to: screen, defaults: defaults)
        #expect(changes.map { $0.key["path"] } == expected.map { Self.path($0.property).databaseValue })
        #expect(changes.map { $0.before?["value"] } == expected.map { $0.before?.databaseValue })
        #expect(changes.map { $0.after?["value"] } == expected.map { $0.after?.databaseValue })
        #expect(changes.allSatisfy { $0.table == "view_state" && ($0.after ?? $0.before)?["path"] == $0.key["path"] })
        #expect(rows.rows == model)
        #expect(rows.rowCount == model.count)
        // The counted member is encoded again only when it changed, or was forgotten.
        #expect(encodes == (remembered == screen.counted.value ? 0 : 1))
        remembered = screen.counted.value
        earlier.append(model)
      }
    }
  }

  /// A value of another type under a property (an enum's payload, a generic member) is encoded,
  /// even where the two hold the same bytes: only a value of the remembered one's type and
  /// equal to it keeps its text.
  @Test func aMemberOfAnotherTypeIsEncodedAgain() throws {
    struct Holder<Value: Encodable & Equatable>: Encodable { var member: Value }
    enum First: String, Encodable { case only = "first" }
    enum Second: String, Encodable { case only = "second" }
    let rows = ViewRows(rows: [:], defaults: [:], path: Self.path)
    func walk<Value: Encodable & Equatable>(_ value: Value) throws -> String? {
      var changes: [RowChange] = []
      try rows.takeChanges(to: Holder(member: value), into: &changes)
      return rows.rows["member"]
    }
    // Equal bytes: the bit pattern of 1.5 as an integer, then 1.5.
    let bits = Int64(bitPattern: 1.5.bitPattern)
    #expect(try walk(bits) == "\(bits)")
    #expect(try walk(1.5) == "1.5")
    // No bytes at all: any two values of these types would compare equal as the other type.
    #expect(try walk(First.only) == #""first""#)
    #expect(try walk(Second.only) == #""second""#)
    #expect(try walk(Second.only) == #""second""#)
    #expect(try walk([2]) == "[2]")
  }

  /// What is not a JSON object (a scalar, an array, a URL whose `Encodable` form is keyed) is
  /// refused with an error naming the type, and leaves the rows as they were.
  @Test func aValueThatIsNoObjectIsRefused() throws {
    struct Nothing: Encodable { func encode(to encoder: any Encoder) throws {} }
    let rows = ViewRows(rows: ["a": "1"], defaults: [:], path: Self.path)
    func refusal<V: Encodable>(_ value: V) -> String? {
      var changes: [RowChange] = []
      do {
        try rows.takeChanges(to: value, into: &changes)
        return nil
      } catch let error as RewindError {
        #expect(error.code == .schemaMismatch)
        #expect(changes.isEmpty)
        return "\(error)"
      } catch {
        return "\(error)"
      }
    }
    #expect(refusal(URL(string: "https://example.com")!)?.contains("URL does not encode as a JSON object") == true)
    #expect(refusal(Decimal(1.5))?.contains("Decimal") == true)
    #expect(refusal([1, 2])?.contains("Array<Int>") == true)
    #expect(refusal("text")?.contains("String") == true)
    #expect(refusal(Nothing())?.contains("Nothing") == true)
    #expect(rows.rows == ["a": "1"])
  }

  /// A key set twice keeps the last value, remembered or not, and members filled through
  /// nested containers after later members are written as filled: as `CompactJSONEncoder`
  /// writes the whole value.
  @Test func membersAreWhatTheWholeValueEncodesTo() throws {
    struct Twice: Encodable {
      var first: Int
      var last: Int
      enum CodingKeys: String, CodingKey { case twice, list, inner, replaced }
      enum Inner: String, CodingKey { case y, x }
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        var inner = container.nestedContainer(keyedBy: Inner.self, forKey: .inner)
        try container.encode(first, forKey: .twice)
        try container.encode(last, forKey: .twice)
        try inner.encode(first, forKey: .y)
        try list.encode("one")
        try inner.encode(last, forKey: .x)
        // A container, then a value, under one key: the value.
        var replaced = container.nestedUnkeyedContainer(forKey: .replaced)
        try replaced.encode(first)
        try container.encode(last, forKey: .replaced)
      }
    }
    let rows = ViewRows(rows: [:], defaults: [:], path: Self.path)
    for (first, last) in [(1, 2), (2, 2), (2, 1), (1, 2), (1, 1)] {
      var changes: [RowChange] = []
      try rows.takeChanges(to: Twice(first: first, last: last), into: &changes)
      #expect(rows.rows == (try CompactJSONEncoder.encodeMembers(Twice(first: first, last: last))))
      #expect(rows.rows["twice"] == "\(last)" && rows.rows["replaced"] == "\(last)")
    }
  }

  /// A view part of many properties (a dictionary stored a row per key): each walk's changes
  /// are the keys that changed, were added or went, as the model finds them, either side of
  /// where properties stop being searched one by one. (A search per property met made a walk
  /// of 8,000 take 110 ms.)
  @Test(arguments: [10, 16, 17, 300])
  func aViewOfManyPropertiesChangesTheRowsOfTheKeysThatChanged(keys: Int) throws {
    var random = SplitMix64(seed: UInt64(keys))
    var value = Dictionary(uniqueKeysWithValues: (0..<keys).map { ("p\($0)", Int(random.next() % 10)) })
    let rows = ViewRows(rows: [:], defaults: [:], path: Self.path)
    var changes: [RowChange] = []
    try rows.takeChanges(to: value, into: &changes)
    #expect(changes.count == keys)
    for _ in 0..<20 {
      var changed: Set<String> = []
      for _ in 0..<(1 + Int(random.next() % 4)) {
        let key = "p\(random.next() % UInt64(keys + 5))"
        switch random.next() % 3 {
        case 0: value[key] = nil
        default: value[key] = Int(random.next() % 10)
        }
        changed.insert(key)
      }
      let before = rows.rows
      changes = []
      try rows.takeChanges(to: value, into: &changes)
      let expected = try #require(try CompactJSONEncoder.encodeMembers(value))
      #expect(rows.rows == expected)
      let written = changes.map { ($0.after ?? $0.before)?["path"] }
      let differing = changed.filter { before[$0] != expected[$0] }.sorted()
      #expect(written == differing.map { Self.path($0).databaseValue }, "changed \(changed.sorted())")
    }
  }
}
