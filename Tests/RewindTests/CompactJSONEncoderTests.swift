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
  }

  @Test func refusesNonFiniteNumbers() {
    #expect(throws: EncodingError.self) { try CompactJSONEncoder.encode([Double.infinity]) }
    #expect(throws: EncodingError.self) { try CompactJSONEncoder.encode(["x": Double.nan]) }
  }
}
