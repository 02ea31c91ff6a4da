import Foundation
import Testing

@testable import Rewind
@testable import TasksExample

struct CompactJSONEncoderTests {
  private struct Everything: Codable, Equatable {
    enum Mode: Codable, Equatable {
      case plain
      case labelled(name: String, count: Int)
      case unlabelled(Double, [Int8])
    }
    var string = "quote \" backslash \\ newline \n é 😀"
    var int = -42
    var uint: UInt64 = .max
    var double = 12.5
    var integralDouble = 120.0
    var tiny = 1e-7
    var float: Float = 0.25
    var bool = true
    var optional: String? = nil
    var present: Int? = 7
    var array = [1, 2, 3]
    var nested = [["a": 1], ["b": 2]]
    var dictionary = ["z": 1, "a": 2, "m": 3]
    var data = Data([0, 1, 2, 255])
    var url = URL(string: "https://example.com/a?b=c")!
    var date = Date(timeIntervalSinceReferenceDate: 1234.5)
    var modes: [Mode] = [.plain, .labelled(name: "x", count: 2), .unlabelled(0.5, [1, -1])]
  }

  @Test func decodesBackWithJSONDecoder() throws {
    let value = Everything()
    let text = try CompactJSONEncoder.encode(value)
    #expect(try JSONDecoder().decode(Everything.self, from: Data(text.utf8)) == value)
    #expect((try JSONSerialization.jsonObject(with: Data(text.utf8))) is [String: Any])
  }

  @Test func negativeZeroKeepsItsSign() throws {
    #expect(try CompactJSONEncoder.encode([-0.0, 0.0, -0.5]) == "[-0.0,0,-0.5]")
    #expect(try CompactJSONEncoder.encode(Float(-0.0)) == "-0.0")
    let decoded = try JSONDecoder().decode([Double].self, from: Data(try CompactJSONEncoder.encode([-0.0]).utf8))
    #expect(decoded.first?.sign == .minus)
  }

  @Test func writesCompactSortedKeysLikeJSONEncoder() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var view = TasksViewState()
    view.selection = 3
    view.modal = .newTask(draftTitle: "Plan \"the\" trip")
    _ = view.importStatus.begin()
    var list = ListFeature.State()
    list.scrollOffset = 120
    #expect(try CompactJSONEncoder.encode(list) == String(decoding: try encoder.encode(list), as: UTF8.self))
    for value in [view, TasksViewState()] {
      #expect(try CompactJSONEncoder.encode(value) == String(decoding: try encoder.encode(value), as: UTF8.self))
    }
    let action = TasksAction.rename(id: 5, title: "Milk")
    #expect(try CompactJSONEncoder.encode(action) == String(decoding: try encoder.encode(action), as: UTF8.self))
    #expect(try CompactJSONEncoder.encode(["b": 1, "a": 2]) == #"{"a":2,"b":1}"#)
  }

  /// A dictionary is an object of as many members as it has entries (an action's payload, a
  /// view-state property): written as JSONEncoder writes it, at sizes either side of where the
  /// members' keys stop being searched one by one, with a key encoded twice keeping its last
  /// value there too. (A search per key made encoding 32,000 entries take 2 s.)
  @Test(arguments: [3, 16, 17, 40, 5_000])
  func aDictionaryIsWrittenAsJSONEncoderWritesIt(entries: Int) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var random = SplitMix64(seed: UInt64(entries))
    let dictionary = Dictionary(uniqueKeysWithValues: (0..<entries).map { ("key \($0)", Int(random.next() % 1_000)) })
    #expect(
      try CompactJSONEncoder.encode(dictionary) == String(decoding: try encoder.encode(dictionary), as: UTF8.self))
    struct Repeated: Encodable {
      let keys: Int
      struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
      }
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for index in 0..<keys { try container.encode(index, forKey: Key(stringValue: "k\(index)")) }
        try container.encode(-1, forKey: Key(stringValue: "k0"))
        try container.encode(-2, forKey: Key(stringValue: "k\(keys - 1)"))
      }
    }
    let members = try #require(try CompactJSONEncoder.encodeMembers(Repeated(keys: entries)))
    #expect(members.count == entries)
    #expect(members["k0"] == "-1" && members["k\(entries - 1)"] == "-2")
    if entries > 2 { #expect(members["k1"] == "1") }
  }

  @Test func membersAreTheObjectsValueTexts() throws {
    struct Keyed: Encodable {
      enum CodingKeys: String, CodingKey {
        case quoted = "quo\"te"
        case nested, absent, twice
      }
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("v", forKey: .quoted)
        try container.encode(["a": [1], "b": []], forKey: .nested)
        try container.encodeIfPresent(Int?.none, forKey: .absent)
        try container.encode(1, forKey: .twice)
        try container.encode(2, forKey: .twice)  // the last value set wins, as in JSONEncoder
      }
    }
    let members = try CompactJSONEncoder.encodeMembers(Keyed())
    #expect(members == ["quo\"te": #""v""#, "nested": #"{"a":[1],"b":[]}"#, "twice": "2"])
    #expect(try CompactJSONEncoder.encode(Keyed()) == #"{"nested":{"a":[1],"b":[]},"quo\"te":"v","twice":2}"#)
    let everything = Everything()
    let text = try CompactJSONEncoder.encode(everything)
    let whole = try #require(try CompactJSONEncoder.encodeMembers(everything))
    #expect(whole["string"] == (try CompactJSONEncoder.encode(everything.string)))
    #expect(whole["modes"] == (try CompactJSONEncoder.encode(everything.modes)))
    #expect(whole.count == (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?.count)
    #expect(try CompactJSONEncoder.encodeMembers([1, 2]) == nil)
    #expect(try CompactJSONEncoder.encodeMembers("text") == nil)
    // Scalars whose `Encodable` form is a keyed container are no objects.
    #expect(try CompactJSONEncoder.encodeMembers(URL(string: "https://example.com")!) == nil)
    #expect(try CompactJSONEncoder.encodeMembers(Decimal(1.5)) == nil)
  }

  /// Random trees of objects, arrays and scalars, with keys that need escaping, keys outside
  /// ASCII (ordered as `String` orders them) and deep nesting: byte for byte what
  /// `JSONEncoder` writes with sorted keys.
  @Test(arguments: 0..<4) func randomValuesAreWrittenAsJSONEncoderWritesThem(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let keys = ["a", "b", "B", "id", "a b", "quo\"te", "back\\slash", "new\nline", "tab\t", "é", "z", "😀", "ab", "a0"]
    func value(depth: Int) -> JSONValue {
      switch Int(random.next() % (depth > 3 ? 4 : 6)) {
      case 0: return .integer(Int64(bitPattern: random.next()) >> Int(random.next() % 64))
      case 1: return .string(keys[Int(random.next() % UInt64(keys.count))] + "\(random.next() % 100)")
      case 2: return random.next() % 2 == 0 ? .bool(random.next() % 2 == 0) : .null
      case 3: return .real(Double(random.next() % 1_000) / 8)
      case 4: return .array((0..<Int(random.next() % 4)).map { _ in value(depth: depth + 1) })
      default:
        var object: [String: JSONValue] = [:]
        for _ in 0..<Int(random.next() % 6) {
          object[keys[Int(random.next() % UInt64(keys.count))]] = value(depth: depth + 1)
        }
        return .object(object)
      }
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    for _ in 0..<200 {
      let tree = value(depth: 0)
      #expect(try CompactJSONEncoder.encode(tree) == String(decoding: try encoder.encode(tree), as: UTF8.self))
    }
  }

  /// Nested containers are filled after their parent's later members, as a type's
  /// `encode(to:)` may do, and a container asked for twice keeps what it holds.
  @Test func containersFilledLaterLandWhereTheyWereMade() throws {
    struct Deferred: Encodable {
      enum CodingKeys: String, CodingKey { case list, inner, last }
      enum Inner: String, CodingKey { case y, x }
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        var inner = container.nestedContainer(keyedBy: Inner.self, forKey: .inner)
        try container.encode(true, forKey: .last)
        try inner.encode(2, forKey: .y)
        try list.encode("one")
        var again = encoder.container(keyedBy: CodingKeys.self)
        try again.encode(false, forKey: .last)
        try inner.encode(1, forKey: .x)
        try list.encode("two")
        #expect(list.count == 2)
      }
    }
    #expect(try CompactJSONEncoder.encode(Deferred()) == #"{"inner":{"x":1,"y":2},"last":false,"list":["one","two"]}"#)
  }

  /// The error names where the value is, as `JSONEncoder`'s does: through keyed, unkeyed and
  /// nested containers.
  @Test func aRefusedNumberIsNamedByItsCodingPath() {
    struct Inner: Encodable { var values: [Double] }
    struct Outer: Encodable {
      var name = "x"
      var inner: Inner
      var scores: [String: Double]
    }
    func path(_ body: () throws -> Void) -> [String]? {
      do {
        try body()
        return nil
      } catch EncodingError.invalidValue(_, let context) {
        return context.codingPath.map { $0.intValue.map { "\($0)" } ?? $0.stringValue }
      } catch {
        return nil
      }
    }
    let values = [
      Outer(inner: Inner(values: [1, .nan]), scores: [:]), Outer(inner: Inner(values: []), scores: ["a": .infinity]),
    ]
    for value in values {
      let ours = path { _ = try CompactJSONEncoder.encode(value) }
      #expect(ours != nil)
      #expect(ours == path { _ = try JSONEncoder().encode(value) })
    }
    #expect(path { _ = try CompactJSONEncoder.encode(values[0]) } == ["inner", "values", "1"])
  }

  @Test func refusesNonFiniteNumbers() {
    #expect(throws: EncodingError.self) { try CompactJSONEncoder.encode([Double.infinity]) }
    #expect(throws: EncodingError.self) { try CompactJSONEncoder.encode(["x": Double.nan]) }
  }
}
