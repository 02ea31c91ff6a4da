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
    // Scalars whose `Encodable` form is a keyed container are no objects, with a memo or not.
    let url = URL(string: "https://example.com")!
    #expect(try CompactJSONEncoder.encodeMembers(url) == nil)
    #expect(try CompactJSONEncoder.encodeMembers(url, memo: CompactJSONEncoder.MemberMemo()) == nil)
    #expect(try CompactJSONEncoder.encodeMembers(Decimal(1.5), memo: CompactJSONEncoder.MemberMemo()) == nil)
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

  /// A memo gives the members the encoder gives without one, over random changes of some
  /// members at a time, and encodes again only the members that changed.
  @Test(arguments: 0..<3) func aMemoReusesTheTextOfEqualMembersOnly(seed: UInt64) throws {
    final class Counter: @unchecked Sendable { var encodes = 0 }
    struct Counted: Encodable, Equatable {
      var value: Int
      let counter: Counter
      func encode(to encoder: any Encoder) throws {
        counter.encodes += 1
        var container = encoder.singleValueContainer()
        try container.encode(value)
      }
      static func == (lhs: Self, rhs: Self) -> Bool { lhs.value == rhs.value }
    }
    struct Screen: Encodable, Equatable {
      var tree: JSONValue
      var optional: [String: Int]?
      var modes: [Everything.Mode]
      var counted: Counted
      var title: String
    }
    var random = SplitMix64(seed: seed)
    let counter = Counter()
    func tree() -> JSONValue {
      switch random.next() % 4 {
      case 0: .integer(Int64(random.next() % 5))
      case 1: .array([.string("s\(random.next() % 3)"), .null])
      case 2: .object(["k\(random.next() % 3)": .bool(random.next() % 2 == 0)])
      default: .real(Double(random.next() % 8) / 4)
      }
    }
    var screen = Screen(
      tree: .null, optional: nil, modes: [.plain], counted: Counted(value: 0, counter: counter), title: "t")
    let memo = CompactJSONEncoder.MemberMemo()
    _ = try CompactJSONEncoder.encodeMembers(screen, memo: memo)
    #expect(counter.encodes == 1)
    for _ in 0..<300 {
      let countedBefore = screen.counted.value
      if random.next() % 2 == 0 { screen.tree = tree() }
      if random.next() % 3 == 0 { screen.optional = random.next() % 2 == 0 ? nil : ["a": Int(random.next() % 3)] }
      if random.next() % 3 == 0 {
        screen.modes = random.next() % 2 == 0 ? [] : [.labelled(name: "n\(random.next() % 2)", count: 1), .plain]
      }
      if random.next() % 4 == 0 { screen.counted.value = Int(random.next() % 3) }
      if random.next() % 4 == 0 { screen.title = "t\(random.next() % 3)" }
      let encodesBefore = counter.encodes
      let remembered = try CompactJSONEncoder.encodeMembers(screen, memo: memo)
      #expect(counter.encodes - encodesBefore == (screen.counted.value == countedBefore ? 0 : 1))
      #expect(remembered == (try CompactJSONEncoder.encodeMembers(screen)))
    }
  }

  /// The memo compares a member with the value remembered under its key only when both are of
  /// one type: a value of another type under that key (an enum's payload, a type-erased
  /// member) is encoded, even where the two hold the same bytes.
  @Test func aMemoNeverReusesTheTextOfAnotherType() throws {
    struct Holder<Value: Encodable>: Encodable { var member: Value }
    enum First: String, Encodable { case only = "first" }
    enum Second: String, Encodable { case only = "second" }
    let memo = CompactJSONEncoder.MemberMemo()
    // Equal bytes: the bit pattern of 1.5 as an integer, then 1.5.
    let bits = Int64(bitPattern: 1.5.bitPattern)
    #expect(try CompactJSONEncoder.encodeMembers(Holder(member: bits), memo: memo) == ["member": "\(bits)"])
    #expect(try CompactJSONEncoder.encodeMembers(Holder(member: 1.5), memo: memo) == ["member": "1.5"])
    // No bytes at all: any two values of these types would compare equal as the other type.
    #expect(try CompactJSONEncoder.encodeMembers(Holder(member: First.only), memo: memo) == ["member": #""first""#])
    #expect(try CompactJSONEncoder.encodeMembers(Holder(member: Second.only), memo: memo) == ["member": #""second""#])
    // And an equal value of the same type reuses the text, as before.
    #expect(try CompactJSONEncoder.encodeMembers(Holder(member: Second.only), memo: memo) == ["member": #""second""#])
    #expect(try CompactJSONEncoder.encodeMembers(Holder(member: [2]), memo: memo) == ["member": "[2]"])
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
