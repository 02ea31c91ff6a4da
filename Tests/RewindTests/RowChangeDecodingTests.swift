import Foundation
import GRDB
import Testing

@testable import Rewind

/// The log's row changes are read by a direct reader when they have the engine's own shape,
/// and through `JSONValue` otherwise: both must always give the same changes.
struct RowChangeDecodingTests {
  /// Random changes as the engine writes them: the direct reader reads every one that holds
  /// no tagged value (a blob, an infinity), and both readers give back the changes written.
  @Test func bothReadersGiveBackWhatTheEngineWrote() throws {
    var random = SplitMix64(seed: 20_261_129)
    let texts = [
      "", "plain", "quote \" and \\ backslash", "two\nlines\ttab\u{1}", "é e\u{301} 😀 עברית", "{\"json\":[1]}",
    ]
    let reals = [0.5, -2.0, 2.0, 1e300, -1e-300, 0.1, 123_456.789, -0.0]
    func value(allowingTags: Bool) -> DatabaseValue {
      random.storableValue(allowingTags: allowingTags, texts: texts, reals: reals)
    }
    let columns = ["id", "title", "b", "a_b", "é", "Z", "😀", "pos"]
    func row(allowingTags: Bool) -> RowImage {
      var row: [String: DatabaseValue] = [:]
      for _ in 0...(random.next() % 5) {
        row[columns[Int(random.next() % UInt64(columns.count))]] = value(allowingTags: allowingTags)
      }
      return RowImage(row)
    }
    var directReads = 0
    for round in 0..<400 {
      let allowingTags = round % 4 == 3
      let changes = (0..<(random.next() % 4)).map { _ in
        RowChange(
          table: ["tasks", "list_entries", "a \"quoted\" table", "t\u{e9}"][Int(random.next() % 4)],
          key: ["id": value(allowingTags: false)],
          before: random.next() % 3 == 0 ? nil : row(allowingTags: allowingTags),
          after: random.next() % 3 == 0 ? nil : row(allowingTags: allowingTags))
      }
      let json = RowChange.json(changes)
      let general = try RowChange.decodeThroughJSONValue(json)
      #expect(general == changes, "\(json)")
      #expect(try RowChange.decodeJSON(json) == changes, "\(json)")
      if let direct = RowChange.decodeEngineJSON(json) {
        #expect(direct == changes, "\(json)")
        directReads += 1
      } else {
        #expect(allowingTags, "the direct reader refused the engine's own text: \(json)")
      }
    }
    #expect(directReads >= 300)
  }

  /// Text in another shape than the engine writes (keys out of order or repeated, booleans,
  /// members in another order, whitespace, unknown members) reads as `JSONValue` reads it.
  @Test(arguments: [
    #"[{"table":"t","key":{"id":1},"before":null,"after":{"b":1,"a":2}}]"#,
    #"[{"table":"t","key":{"id":1},"before":null,"after":{"a":1,"a":2}}]"#,
    #"[{"table":"t","key":{"id":1},"after":{"done":true}}]"#,
    #"[{"after":{"x":"y"},"key":{"id":1},"table":"t"}]"#,
    " [ { \"table\" : \"t\" ,\n \"key\" : { \"id\" : 1 } , \"before\" : { } } ] ",
    #"[{"table":"t","key":{"id":1},"note":"extra"}]"#,
    #"[{"table":"t","table":"u","key":{"id":1}}]"#,
    #"[{"table":"t","key":{"id":1},"after":{"x":{"$blob":"AAE="},"y":{"$real":"-inf"}}}]"#,
    #"[]"#,
  ])
  func anotherShapeReadsAsTheGeneralReaderReadsIt(_ text: String) throws {
    #expect(try RowChange.decodeJSON(text) == RowChange.decodeThroughJSONValue(text))
  }

  /// What the direct reader leaves to the general one, it leaves whole: it never returns
  /// changes for text in another shape, nor for malformed text.
  @Test(arguments: [
    #"[{"table":"t","key":{"id":1},"before":null,"after":{"b":1,"a":2}}]"#,
    #"[{"table":"t","key":{"id":1},"after":{"done":true}}]"#,
    #"[{"table":"t","key":{"id":1},"note":"extra"}]"#,
    #"[{"table":"t","key":{}}]"#, #"[{"table":1,"key":{"id":1}}]"#, #"[{"table":"t","key":{"id":1}}] x"#,
    #"[{"table":"t","key":{"id":01}}]"#, #"[{"table":"t","key":{"id":-}}]"#, #"[{"table":"t","key":{"id":"\x"}}]"#,
  ])
  func theDirectReaderLeavesOtherShapesToTheGeneralOne(_ text: String) {
    #expect(RowChange.decodeEngineJSON(text) == nil)
  }
}
