import Foundation
import PropertyBased
import Testing

@testable import Rewind

struct JSONParsingTests {
  @Test(arguments: [
    #"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
    #"  [ -0 , 1.5 , 1E-2 , 9223372036854775807 , 9223372036854775808 ]  "#,
    #""quote \" backslash \\ slash \/ \b\f\n\r\t \u00e9 \ud83d\ude00 é 😀""#,
    "[]", "{}", "\"\"", "0", "-1", "null",
  ])
  func agreesWithJSONDecoder(_ text: String) throws {
    let expected = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    #expect(try JSONValue.parse(text) == expected)
  }

  /// Long strings that mix escapes with plain, accented and astral characters (a title of
  /// many lines, quoted text) read as JSONDecoder reads them, written by the log's own writer
  /// as each change's text is. (They took time quadratic in their length until the parser
  /// gathered their bytes: 1.5 s for 400,000 characters.)
  @Test(arguments: ["abcde\n", "😀\"", "é\"", "\\\t", "plain "])
  func longStringsWithEscapesAgreeWithJSONDecoder(_ piece: String) throws {
    let text = String(repeating: piece, count: 40_000) + "end"
    let change = RowChange(table: "t", key: ["id": 1.databaseValue], before: nil, after: ["title": text.databaseValue])
    let json = RowChange.json([change])
    let expected = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
    #expect(try JSONValue.parse(json) == expected)
    let decoded = try RowChange.decodeJSON(json)
    #expect(decoded.first?.after?["title"] == text.databaseValue)
    // A control character after the first escape is still refused, at its byte.
    let broken = "[\"\\n" + String(repeating: "a", count: 1_000) + "\u{1}\"]"
    #expect {
      try JSONValue.parse(broken)
    } throws: { error in
      (error as? RewindError)?.message == "invalid JSON at byte 1004: a control character in a string"
    }
  }

  @Test func anIntegralRealStaysARealSoLoggedRowsReadBackAsStored() throws {
    #expect(try JSONValue.parse("[2.0,-2e3,2]") == .array([.real(2), .real(-2000), .integer(2)]))
    let change = RowChange(table: "t", key: ["id": 1.databaseValue], before: nil, after: ["w": 2.0.databaseValue])
    let decoded = try RowChange.decodeJSON(RowChange.json([change]))
    guard case .double(2.0)? = decoded.first?.after?["w"]?.storage else {
      Issue.record("2.0 read back as \(String(describing: decoded.first?.after?["w"]))")
      return
    }
  }

  @Test(arguments: [
    "", " ", "{", "}", "[1,]", "[1 2]", #"{"a"}"#, #"{"a":}"#, #"{a:1}"#, "01", "1.", ".5", "-", "1e", "tru", "nul",
    #""unterminated"#, #""bad \q escape""#, #""\ud800 lone""#, "\"tab\tinside\"", "[1] extra",
    String(repeating: "[", count: 600),
  ])
  func rejectsMalformedJSON(_ text: String) {
    #expect(throws: RewindError.self) { try JSONValue.parse(text) }
  }

  /// `value` as Foundation's JSONDecoder reads numbers: an integral real that fits is an integer.
  static func integralRealsAsIntegers(_ value: JSONValue) -> JSONValue {
    switch value {
    case .real(let real) where real == real.rounded() && abs(real) < 9.2e18: .integer(Int64(real))
    case .array(let items): .array(items.map(integralRealsAsIntegers))
    case .object(let members): .object(members.mapValues(integralRealsAsIntegers))
    default: value
    }
  }

  /// Bounded fuzzing in CI; set REWIND_FUZZ_COUNT for a longer run.
  static let fuzzCount = ProcessInfo.processInfo.environment["REWIND_FUZZ_COUNT"].flatMap(Int.init) ?? 400

  @Test func arbitraryTextNeverCrashesTheParserOrTheLogDecoder() async {
    let alphabet = Gen.element(of: Array(#"{}[],:"\ 0123456789.-+eEtruefalsnl/ubé😀"#).map(String.init))
    await checkProperty(count: Self.fuzzCount, input: alphabet.array(of: 0...60)) { pieces in
      let text = pieces.compactMap { $0 }.joined()
      // Either a value that Foundation also reads identically (but for integral reals, which
      // Foundation makes integers and the parser keeps as reals), or a RewindError.
      do {
        let value = try JSONValue.parse(text)
        if let expected = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) {
          #expect(Self.integralRealsAsIntegers(value) == expected, "\(text)")
        }
      } catch {
        #expect(error is RewindError)
      }
      do { _ = try RowChange.decodeJSON(text) } catch { #expect(error is RewindError) }
    }
  }

  @Test func mutatedLogEntriesAreDecodedOrRefusedNeverCrash() async {
    let valid = RowChange.json([
      RowChange(
        table: "tasks", key: ["id": 1.databaseValue], before: nil,
        after: ["id": 1.databaseValue, "title": "Buy \"milk\"".databaseValue, "done": 0.databaseValue])
    ])
    let bytes = Array(valid.utf8)
    await checkProperty(
      count: Self.fuzzCount,
      input: zip(Gen.int(in: 0...(bytes.count - 1)), Gen.int(in: 0...255), Gen.int(in: 0...(bytes.count)))
    ) { input in
      let (position, byte, cut) = input
      var mutated = bytes
      mutated[position] = UInt8(byte)
      for text in [String(decoding: mutated, as: UTF8.self), String(decoding: bytes[..<cut], as: UTF8.self)] {
        do { _ = try RowChange.decodeJSON(text) } catch { #expect(error is RewindError) }
      }
    }
  }
}
