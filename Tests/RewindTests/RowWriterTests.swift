import GRDB
import Testing

@testable import Rewind

/// The writer caches one statement per table and column set: rows of one table with other
/// columns, or other key columns, must each get their own.
struct RowWriterTests {
  @Test func eachColumnSetOfATableGetsItsOwnStatement() throws {
    let queue = try DatabaseQueue()
    try queue.write { db in
      try db.execute(
        sql: """
          CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT, c TEXT);
          CREATE TABLE pairs (x INTEGER, y INTEGER, v TEXT, PRIMARY KEY (x, y));
          """)
      var writer = RowWriter()
      let changes = [
        RowChange(
          table: "t", key: ["a": 1.databaseValue], before: nil, after: ["a": 1.databaseValue, "b": "one".databaseValue]),
        RowChange(
          table: "t", key: ["a": 2.databaseValue], before: nil,
          after: ["a": 2.databaseValue, "b": "two".databaseValue, "c": "second".databaseValue]),
        // The first column set again, then one that names a column the others do not bind.
        RowChange(
          table: "t", key: ["a": 3.databaseValue], before: nil,
          after: ["a": 3.databaseValue, "b": "three".databaseValue]),
        RowChange(
          table: "t", key: ["a": 4.databaseValue], before: nil,
          after: ["c": "only c".databaseValue, "a": 4.databaseValue]),
        RowChange(
          table: "pairs", key: ["x": 1.databaseValue, "y": 2.databaseValue], before: nil,
          after: ["x": 1.databaseValue, "y": 2.databaseValue, "v": "p".databaseValue]),
        RowChange(
          table: "t", key: ["a": 2.databaseValue],
          before: ["a": 2.databaseValue, "b": "two".databaseValue, "c": "second".databaseValue],
          after: ["a": 2.databaseValue, "b": "TWO".databaseValue, "c": "second".databaseValue]),
      ]
      try writer.apply(changes, .forward, in: db)
      try writer.apply(
        [
          RowChange(
            table: "pairs", key: ["y": 2.databaseValue, "x": 1.databaseValue],
            before: ["x": 1.databaseValue, "y": 2.databaseValue, "v": "p".databaseValue], after: nil),
          RowChange(
            table: "t", key: ["a": 1.databaseValue], before: ["a": 1.databaseValue, "b": "one".databaseValue],
            after: nil),
        ], .forward, in: db)
      let rows = try Row.fetchAll(db, sql: "SELECT a, b, c FROM t ORDER BY a").map {
        [$0[0], $0[1], $0[2]] as [DatabaseValue]
      }
      #expect(
        rows == [
          [2.databaseValue, "TWO".databaseValue, "second".databaseValue],
          [3.databaseValue, "three".databaseValue, .null],
          [4.databaseValue, .null, "only c".databaseValue],
        ])
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM pairs") == 0)
      // Applying backward undoes everything, in reverse order.
      try writer.apply(changes, .backward, in: db)
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t WHERE a IN (3, 4)") == 0)
      #expect(try String.fetchOne(db, sql: "SELECT b FROM t WHERE a = 2") == nil)
    }
  }

  /// Declared columns find their statement by identity, among the last few: tables whose rows
  /// share one declared `Columns` (same names) still get their own statements, and so do more
  /// kinds of row than the few remembered, taken in turn.
  @Test func declaredColumnsSharedByTablesFindEachItsOwnStatement() throws {
    let queue = try DatabaseQueue()
    try queue.write { db in
      let tables = (0..<12).map { "t\($0)" }
      for table in tables { try db.execute(sql: "CREATE TABLE \(table) (id INTEGER PRIMARY KEY, v TEXT)") }
      let columns = RowImage.Columns(["v", "id"])  // declared out of order: values given as declared
      let key = RowImage.Columns(["id"])
      var writer = RowWriter()
      for round in 0..<3 {
        for (index, table) in tables.enumerated() {
          let id = Int64(index).databaseValue
          try writer.apply(
            [
              RowChange(
                table: table, key: RowImage(key, [id]), before: nil,
                after: RowImage(columns, ["\(table) \(round)".databaseValue, id]))
            ], .forward, in: db)
        }
      }
      for (index, table) in tables.enumerated() {
        let rows = try Row.fetchAll(db, sql: "SELECT id, v FROM \(table)")
        #expect(rows.count == 1, "\(table)")
        #expect(rows.first?["id"] == Int64(index), "\(table)")
        #expect(rows.first?["v"] == "\(table) 2", "\(table)")
      }
    }
  }
}
