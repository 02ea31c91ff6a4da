import Foundation
import GRDB
import PropertyBased
import Testing

@testable import Rewind

struct RowChangeJSONTests {
  @Test func roundTripsEveryKindOfValue() throws {
    let changes = [
      RowChange(
        table: "tasks", key: ["id": 1.databaseValue],
        before: nil,
        after: [
          "id": 1.databaseValue, "title": "quote \" backslash \\ newline \n tab \t bell \u{7} é".databaseValue,
          "score": 2.5.databaseValue, "blob": Data([0, 1, 255]).databaseValue, "none": .null,
          "inf": Double.infinity.databaseValue,
        ]),
      RowChange(
        table: "list_entries", key: ["list": "allTasks".databaseValue, "id": 7.databaseValue],
        before: ["list": "allTasks".databaseValue, "id": 7.databaseValue, "position": "a0".databaseValue],
        after: nil),
    ]
    let json = RowChange.json(changes)
    #expect(try RowChange.decodeJSON(json) == changes)
    // Valid JSON that SQLite agrees with.
    let queue = try DatabaseQueue()
    #expect(try queue.read { try Bool.fetchOne($0, sql: "SELECT json_valid(?)", arguments: [json]) } == true)
  }

  @Test func isDeterministic() {
    let change = RowChange(
      table: "t", key: ["b": 1.databaseValue, "a": 2.databaseValue],
      before: nil, after: ["b": 1.databaseValue, "a": 2.databaseValue, "c": "x".databaseValue])
    #expect(
      RowChange.json([change]) == #"[{"table":"t","key":{"a":2,"b":1},"before":null,"after":{"a":2,"b":1,"c":"x"}}]"#)
  }

  /// Rows are written to the log in key order, which row images keep their columns in: it
  /// must be `sorted()`'s order for any columns, a handful or many, however they were declared.
  @Test func rowsAreWrittenInSortedKeyOrder() async {
    // Names that share prefixes, differ in case, or are not ASCII, as columns may; enough of
    // them for rows wider than the walk sorts in place.
    let names = Gen.element(
      of: ["a", "ab", "aB", "B", "b", "id", "_x", "é", "e\u{301}", "z9", "z10", "😀", ""] + (0..<30).map { "c\($0)" })
    await checkProperty(count: 300, input: names.array(of: 0...40)) { picked in
      var row: [String: DatabaseValue] = [:]
      for (index, name) in picked.compactMap({ $0 }).enumerated() { row[name] = index.databaseValue }
      // The same row from a dictionary and from columns declared in the order first picked.
      let declared = Array(row.keys)
      let images = [RowImage(row), RowImage(RowImage.Columns(declared), declared.map { row[$0]! })]
      for image in images {
        #expect(image.keys == row.keys.sorted())
        #expect(image.allSatisfy { row[$0.key] == $0.value })
        #expect(image.dictionary == row)
      }
      #expect(images[0] == images[1] && images[0].hashValue == images[1].hashValue)
      let json = RowChange.json([RowChange(table: "t", key: ["id": 1.databaseValue], before: nil, after: images[1])])
      let members = row.keys.sorted().map { column in
        var text = ""
        JSONText.appendString(column, to: &text)
        text += ":"
        JSONText.appendValue(row[column]!, to: &text)
        return text
      }
      #expect(json.hasSuffix(#""after":{"# + members.joined(separator: ",") + "}}]"), "\(json)")
    }
  }

  /// Strings are escaped byte for byte as a plain per-byte escaper does, wherever the bytes
  /// that need escaping fall (first, last, in a row, alone), and read back as themselves.
  @Test func escapesStringsAsAPerByteEscaperDoes() async {
    func reference(_ string: String) -> String {
      var out = Array("\"".utf8)
      for byte in string.utf8 {
        switch byte {
        case UInt8(ascii: "\""): out += #"\""#.utf8
        case UInt8(ascii: "\\"): out += #"\\"#.utf8
        case UInt8(ascii: "\n"): out += #"\n"#.utf8
        case UInt8(ascii: "\r"): out += #"\r"#.utf8
        case UInt8(ascii: "\t"): out += #"\t"#.utf8
        case ..<0x20: out += String(format: "\\u%04x", byte).utf8
        default: out.append(byte)
        }
      }
      return String(decoding: out + Array("\"".utf8), as: UTF8.self)
    }
    // Bytes beside those that need escaping (a space, `!`, `#`, `[`, `]`) must not be taken
    // for them, in runs long enough to be scanned eight bytes at a time.
    let pieces = Gen.element(of: [
      "a", "xyz", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "😀", "{\"id\":1}",
      " ", "!", "#", "[", "]", "abcdefgh",
    ])
    await checkProperty(count: 500, input: pieces.array(of: 0...24)) { picked in
      let string = picked.compactMap { $0 }.joined()
      var text = ""
      JSONText.appendString(string, to: &text)
      #expect(text == reference(string))
      #expect((try? JSONDecoder().decode([String].self, from: Data("[\(text)]".utf8))) == [string])
    }
  }

  /// The escape scan jumps to the lowest byte an eight-byte word flags: it must be the first
  /// byte that needs escaping, whatever the bytes before (that need none) and after it are.
  @Test func theFirstByteFlaggedInAWordIsTheFirstThatNeedsEscaping() {
    func needsEscaping(_ byte: UInt8) -> Bool {
      byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
    var random = SystemRandomNumberGenerator()
    for position in 0..<8 {
      for byte in UInt8.min...UInt8.max {
        for _ in 0..<16 {
          var bytes = (0..<8).map { _ in UInt8.random(in: 0...255, using: &random) }
          for before in 0..<position {
            while needsEscaping(bytes[before]) { bytes[before] = UInt8.random(in: 0...255, using: &random) }
          }
          bytes[position] = byte
          let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
          let first = bytes.firstIndex(where: needsEscaping)
          let flags = JSONText.escapeFlags(word)
          #expect((flags == 0 ? nil : flags.trailingZeroBitCount / 8) == first, "\(bytes)")
        }
      }
    }
  }

  @Test(arguments: [0, 7, -1, 10, -10, 1_234_567_890, Int64.max, Int64.min, Int64.min + 1])
  func writesIntegersAsSwiftDoes(_ value: Int64) throws {
    let change = RowChange(table: "t", key: ["id": value.databaseValue], before: nil, after: nil)
    #expect(
      RowChange.json([change]) == #"[{"table":"t","key":{"id":"# + String(value) + #"},"before":null,"after":null}]"#)
    #expect(try RowChange.decodeJSON(RowChange.json([change])) == [change])
  }

  @Test(arguments: [
    "not json", "{}", #"[{"key":{"id":1}}]"#, #"[{"table":"t"}]"#, #"[{"table":"t","key":{"id":[1]}}]"#,
    #"[{"table":"t","key":{"id":1},"after":{"x":{"$what":1}}}]"#,
  ])
  func malformedJSONIsACorruptDataError(_ text: String) {
    #expect(throws: RewindError.self) {
      do { _ = try RowChange.decodeJSON(text) } catch let error as RewindError {
        #expect(error.code == .corruptData)
        throw error
      }
    }
  }
}
