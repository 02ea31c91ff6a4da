import GRDB
import Testing

@testable import Rewind

/// Row images: columns kept sorted however they are declared or edited, values following them.
struct RowImageTests {
  @Test func columnsDeclaredInAnyOrderKeepTheirValues() {
    let columns = RowImage.Columns(["title", "id", "done"])
    #expect(columns.names == ["done", "id", "title"])
    let row = RowImage(columns, ["Milk".databaseValue, 7.databaseValue, false.databaseValue])
    #expect(row.values == [false.databaseValue, 7.databaseValue, "Milk".databaseValue])
    #expect(row["title"] == "Milk".databaseValue && row["id"] == 7.databaseValue && row["nope"] == nil)
    #expect(row == ["id": 7.databaseValue, "title": "Milk".databaseValue, "done": false.databaseValue])
    #expect(row.description == #"{"done":0,"id":7,"title":"Milk"}"#)
  }

  /// Text compares by its bytes, as SQLite compares it: the composed and decomposed forms of
  /// one string are two rows (two keys of a dictionary), where Swift's `==` takes them for one.
  /// Numbers compare as GRDB's `==` does.
  @Test func textComparesByItsBytesAndNumbersAsGRDBDoes() {
    let composed: RowImage = ["id": "caf\u{E9}".databaseValue]
    let decomposed: RowImage = ["id": "cafe\u{301}".databaseValue]
    #expect("caf\u{E9}" == "cafe\u{301}")
    #expect(composed != decomposed)
    #expect(Set([composed, decomposed]).count == 2)
    #expect(composed == ["id": "caf\u{E9}".databaseValue])
    #expect(Set([composed, ["id": "caf\u{E9}".databaseValue]]).count == 1)
    let integer: RowImage = ["n": 1.databaseValue]
    let real: RowImage = ["n": 1.0.databaseValue]
    #expect(integer == real)
    #expect(Set([integer, real]).count == 1)
    #expect(integer != ["n": "1".databaseValue])
  }

  @Test func settingAColumnReplacesAddsOrRemovesItInOrder() {
    var row: RowImage = ["b": 2.databaseValue, "d": 4.databaseValue]
    row["b"] = 20.databaseValue
    row["c"] = 3.databaseValue
    row["a"] = 1.databaseValue
    row["e"] = 5.databaseValue
    #expect(row.keys == ["a", "b", "c", "d", "e"])
    #expect(row.values == [1, 20, 3, 4, 5].map(\.databaseValue))
    row["d"] = nil
    row["zz"] = nil  // absent: nothing to remove
    #expect(row.keys == ["a", "b", "c", "e"])
    #expect(row == ["a": 1.databaseValue, "b": 20.databaseValue, "c": 3.databaseValue, "e": 5.databaseValue])
    #expect(row.keeping(["e", "a", "x"]) == ["a": 1.databaseValue, "e": 5.databaseValue])
  }

  @Test func equalRowsHashAlikeWhateverTheirColumnsObject() {
    let shared = RowImage.Columns(["id", "name"])
    let a = RowImage(shared, [1.databaseValue, "x".databaseValue])
    let b = RowImage(["name": "x".databaseValue, "id": 1.databaseValue])
    #expect(a == b && a.hashValue == b.hashValue)
    #expect(Set([a, b]).count == 1)
    #expect(a != RowImage(shared, [2.databaseValue, "x".databaseValue]))
    #expect(a != ["id": 1.databaseValue])
  }

  @Test func rowsReadFromATableAreImagedInColumnOrder() throws {
    let queue = try DatabaseQueue()
    try queue.write { db in
      try db.execute(sql: "CREATE TABLE t (z, a PRIMARY KEY, m)")
      try db.execute(sql: "INSERT INTO t VALUES (1, 'k', NULL), (2, 'l', x'00')")
      try db.execute(sql: "CREATE TABLE list_entries (list, id, position, owner, PRIMARY KEY (list, id))")
      try db.execute(sql: "INSERT INTO list_entries VALUES ('all', 1, 'a0', NULL), ('p', 2, 'a0', 9)")
    }
    let rows = try queue.read { try StateRows.rows(of: "t", keyColumns: ["a"], $0) }
    #expect(rows[["a": "k".databaseValue]] == ["a": "k".databaseValue, "m": .null, "z": 1.databaseValue])
    #expect(rows[["a": "l".databaseValue]]?.keys == ["a", "m", "z"])
    // A fixed list's entry has no owner column in the log's images; a keyed list's has.
    let entries = try queue.read { try StateRows.rows(of: "list_entries", keyColumns: ["list", "id"], $0) }
    #expect(entries[["list": "all".databaseValue, "id": 1.databaseValue]]?.keys == ["id", "list", "position"])
    #expect(entries[["list": "p".databaseValue, "id": 2.databaseValue]]?["owner"] == 9.databaseValue)
  }
}

extension RowImageTests {
  @Test func mappedValuesStayWithTheirColumns() {
    // Columns declared out of order: `values` is in sorted order, so building a row again from
    // them would move them; mapping keeps each with its column.
    let row = RowImage(RowImage.Columns(["b", "a"]), [2.databaseValue, 1.databaseValue])
    #expect(row.values == [1.databaseValue, 2.databaseValue])
    let doubled = row.mapValues { Int64.fromDatabaseValue($0).map { ($0 * 2).databaseValue } ?? $0 }
    #expect(doubled == ["a": 2.databaseValue, "b": 4.databaseValue])
    #expect(doubled.columns === row.columns)
  }
}

extension RowImageTests {
  /// The list parts give a list entry's values in its columns' sorted order, with no sort on
  /// the way: the columns must sort as they assume, or each value would be logged and written
  /// under another column.
  @Test func listEntryColumnsSortAsTheListPartsGiveTheirValues() {
    #expect(EngineTable.listEntryKey.names == ["id", "list"])
    #expect(EngineTable.listEntryColumns.names == ["id", "list", "position"])
    #expect(EngineTable.keyedListEntryColumns.names == ["id", "list", "owner", "position"])
    let part = ListPart<OrderRoot, Int64>(
      keyPath: \.order, name: "all", entityTable: "items", keyValue: { $0.databaseValue })
    let change = part.change(id: 7, before: nil, after: "a0")
    #expect(change.key == ["list": "all".databaseValue, "id": 7.databaseValue])
    #expect(change.after == ["list": "all".databaseValue, "id": 7.databaseValue, "position": "a0".databaseValue])
  }
}

private struct OrderRoot {
  var order = OrderedIDList<Int64>()
}
