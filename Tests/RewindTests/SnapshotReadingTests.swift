import Foundation
import GRDB
import Testing

@testable import Rewind

/// A snapshot's text is read by a direct reader when it has the engine's own shape, and
/// through `JSONValue` otherwise: both must always give the same rows.
struct SnapshotReadingTests {
  typealias Row = StateRows.Row

  /// The rows of each table, in the order the text gives them (the general reader goes
  /// through the tables in a dictionary's order, each table's rows in order).
  func rowsByTable(_ images: [(table: String, row: Row)]) -> [String: [Row]] {
    Dictionary(grouping: images, by: \.table).mapValues { $0.map(\.row) }
  }

  /// Random states as the engine writes them: the direct reader reads every one whose values
  /// are plain (no blob, no infinity), and both readers give back the rows written.
  @Test func bothReadersGiveBackWhatTheEngineWrote() throws {
    var random = SplitMix64(seed: 20_261_129)
    let texts = ["", "plain", "quote \" and \\ backslash", "two\nlines\ttab\u{1}", "é e\u{301} 😀 עברית", "[1]"]
    let reals = [0.5, -2.0, 2.0, 1e300, -1e-300, 0.1, 123_456.789]
    func value(allowingTags: Bool) -> DatabaseValue {
      random.storableValue(allowingTags: allowingTags, texts: texts, reals: reals)
    }
    var directReads = 0
    for round in 0..<300 {
      let allowingTags = round % 4 == 3
      var tables: [String: [Row: Row]] = [:]
      // An entity table of shared columns, a list table whose owner is NULL in some rows
      // (left out of their images) and not in others, and a table of mixed columns.
      let columns = RowImage.Columns(["id", "title", "note", "é"])
      for id in 0..<Int64(random.next() % 6) {
        let row = RowImage(columns, [id.databaseValue] + (0..<3).map { _ in value(allowingTags: allowingTags) })
        tables["tasks", default: [:]][row.keeping(["id"])] = row
      }
      for id in 0..<Int64(random.next() % 6) {
        var entry: [String: DatabaseValue] = ["list": "all".databaseValue, "id": id.databaseValue]
        entry["position"] = "a\(id)".databaseValue
        if random.next() % 2 == 0 { entry["owner"] = (id + 100).databaseValue }
        let row = RowImage(entry)
        tables["list_entries", default: [:]][row.keeping(["list", "id", "owner"])] = row
      }
      if random.next() % 3 == 0 {
        for id in 0..<Int64(1 + random.next() % 3) {
          var row: [String: DatabaseValue] = ["id": id.databaseValue]
          if random.next() % 2 == 0 { row["extra"] = value(allowingTags: allowingTags) }
          tables["mixed", default: [:]][RowImage(["id": id.databaseValue])] = RowImage(row)
        }
      }
      if random.next() % 2 == 0 { tables["empty"] = [:] }
      let json = StateRows(tables: tables).json()
      let general = rowsByTable(try StateRows.imagesThroughJSONValue(json: json))
      let written = tables.mapValues { Array($0.values) }.filter { !$0.value.isEmpty }
      #expect(general.mapValues(Set.init) == written.mapValues(Set.init), "\(json)")
      #expect(rowsByTable(try StateRows.images(json: json)) == general, "\(json)")
      if let direct = StateRows.directImages(json: json) {
        #expect(rowsByTable(direct) == general, "\(json)")
        directReads += 1
      } else {
        let plain = !tables.values.contains {
          $0.values.contains {
            $0.values.contains { value in
              if case .blob = value.storage { return true }
              if case .double(let double) = value.storage { return !double.isFinite }
              return false
            }
          }
        }
        // A table whose rows have different columns is written as row objects (the old form),
        // left to the general reader; so are tagged values.
        let mixedColumns = Set(tables["mixed"]?.values.map(\.keys) ?? []).count > 1
        #expect(!plain || mixedColumns, "refused the engine's own text: \(json)")
      }
    }
    #expect(directReads >= 100)
  }

  /// Text the engine did not write itself, but in its shape (columns out of order,
  /// whitespace, an owner left out when NULL, no table), is read directly, as `JSONValue`
  /// reads it.
  @Test(arguments: [
    #"{"t":{"columns":["id","b"],"rows":[[1,2]]}}"#,
    " { \"t\" : { \"columns\" : [ \"id\" ] , \"rows\" : [ [ 1 ] , [ 2 ] ] } , \"u\" : [ ] } ",
    #"{"list_entries":{"columns":["id","list","owner","position"],"rows":[[1,"a",null,"a0"],[2,"a",7,"a1"]]}}"#,
    #"{"t":{"columns":["\u00e9","a\"b"],"rows":[["\ud83d\ude00",-1.5e3]]}}"#,
    #"{}"#,
  ])
  func theEnginesShapeIsReadDirectlyAsTheGeneralReaderReadsIt(_ text: String) throws {
    let direct = try #require(StateRows.directImages(json: text))
    #expect(rowsByTable(direct) == rowsByTable(try StateRows.imagesThroughJSONValue(json: text)))
  }

  /// What the direct reader leaves to the general one, it leaves whole: it never returns rows
  /// for text in another shape, nor for malformed text; the general reader names the problem.
  @Test(arguments: [
    #"{"t":{"rows":[[1]],"columns":["id"]}}"#,
    #"{"t":[{"id":1}]}"#,
    #"{"t":{"columns":["id"],"rows":[[true]]}}"#,
    #"{"t":{"columns":["id"],"rows":[[1]]},"t":{"columns":["id"],"rows":[[2]]}}"#,
    #"{"t":{"columns":["id","id"],"rows":[[1,2]]}}"#,
    #"{"t":{"columns":["id","b"],"rows":[[1]]}}"#,
    #"{"t":{"columns":["id"],"rows":[[1]],"more":1}}"#,
    #"{"t":{"columns":[1],"rows":[]}}"#,
    #"{"t":{"columns":["id"],"rows":[[01]]}}"#,
    #"{"t":{"columns":["id"],"rows":[[1]]}} x"#,
    #"{"t":{"columns":["id"],"rows":[[1]]}"#,
    #"[]"#,
  ])
  func theDirectReaderLeavesOtherShapesToTheGeneralOne(_ text: String) {
    #expect(StateRows.directImages(json: text) == nil)
  }

  /// Malformed text the direct reader leaves is refused by the general reader, which names
  /// what is wrong.
  @Test(arguments: [
    (#"{"t":{"columns":["id","id"],"rows":[[1,2]]}}"#, "names a column twice"),
    (#"{"t":{"columns":["id","b"],"rows":[[1]]}}"#, "row 0 of t is not an array of 2 values"),
    (#"{"t":{"columns":["id"],"rows":[[1]],"more":1}}"#, "is an object other than"),
    (#"{"t":{"columns":[1],"rows":[]}}"#, "a column of t is not a string"),
  ])
  func malformedTextIsNamedByTheGeneralReader(_ text: String, _ message: String) {
    #expect {
      try StateRows.images(json: text)
    } throws: { error in
      (error as? RewindError)?.code == .corruptData && "\(error)".contains(message)
    }
  }
}
