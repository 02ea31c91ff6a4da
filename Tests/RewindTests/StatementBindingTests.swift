import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import Rewind

/// Parameters bound one by one through SQLite's C API (`execute(bindingWith:)`), as the log
/// insert binds its JSON and time straight from the bytes they were written into.
struct StatementBindingTests {
  @Test func textBoundFromBytesIsStoredExactlyBesideOtherValues() throws {
    let queue = try DatabaseQueue()
    try queue.write { db in
      try db.execute(sql: "CREATE TABLE t (n INTEGER, a TEXT, b TEXT, c)")
      let statement = try db.makeStatement(sql: "INSERT INTO t (n, a, b, c) VALUES (?, ?, ?, ?)")
      let texts = ["", "plain", "é, ü, 日本, 🙂 and \"quotes\"", String(repeating: "long ", count: 200)]
      for (index, text) in texts.enumerated() {
        let bytes = Array(text.utf8)
        try statement.execute { parameters in
          parameters.bind(Int64(index).databaseValue)
          bytes.withUnsafeBufferPointer { parameters.bind(text: $0) }
          parameters.bind(text.databaseValue)
          parameters.bind(.null)
        }
      }
      let rows = try Row.fetchAll(db, sql: "SELECT n, a, b, typeof(a) AS type, c FROM t ORDER BY n")
      #expect(rows.map { $0["a"] as String } == texts)
      #expect(rows.map { $0["b"] as String } == texts)
      // Empty text is text, not NULL (SQLite binds a null pointer as NULL).
      #expect(rows.allSatisfy { $0["type"] == "text" })
      #expect(rows.allSatisfy { $0["c"] == DatabaseValue.null })
    }
  }

  /// An empty blob is a blob, not NULL: SQLite binds a null pointer as NULL, and an empty
  /// `Data`'s bytes may have none. A `NOT NULL` column takes it, and it reads back empty.
  @Test func anEmptyBlobIsBoundAsABlob() throws {
    let queue = try DatabaseQueue()
    try queue.write { db in
      try db.execute(sql: "CREATE TABLE t (n INTEGER, b BLOB NOT NULL)")
      let statement = try db.makeStatement(sql: "INSERT INTO t (n, b) VALUES (?, ?)")
      let blobs = [Data(), Data(capacity: 64), Data([1, 2])[2...], Data([0, 1, 2]), Data(repeating: 7, count: 2_000)]
      for (index, blob) in blobs.enumerated() {
        try statement.execute { parameters in
          parameters.bind(Int64(index).databaseValue)
          parameters.bind(blob.databaseValue)
        }
      }
      let rows = try Row.fetchAll(db, sql: "SELECT b, typeof(b) AS type FROM t ORDER BY n")
      #expect(rows.map { $0["b"] as Data } == blobs)
      #expect(rows.allSatisfy { $0["type"] == "blob" })
    }
  }

  /// Texts are bound from a copy on the stack until it is full, then copied by SQLite: every
  /// split of the texts between the two is stored exactly, and no binding is left pointing
  /// into the stack after the run.
  @Test func textsBoundWithoutSQLitesCopyAreStoredExactlyAndClearedAfter() throws {
    let queue = try DatabaseQueue()
    try queue.write { db in
      try db.execute(sql: "CREATE TABLE t (n INTEGER, a TEXT, b TEXT, c TEXT)")
      let statement = try db.makeStatement(sql: "INSERT INTO t (n, a, b, c) VALUES (?, ?, ?, ?)")
      // Lengths in bytes around the stack copy's 1,024: all three fit, exactly; the last does
      // not; the first fills it; the first does not fit and the others do; the last does not.
      let lengths = [(1, 2, 4), (500, 520, 4), (500, 522, 4), (1_024, 2, 4), (1_025, 2, 4), (2, 1_022, 2_000)]
      var expected: [[String]] = []
      for (index, (a, b, c)) in lengths.enumerated() {
        let texts = [(a, "a"), (b, "é"), (c, "🙂")].map { String(repeating: $1, count: $0 / $1.utf8.count) }
        expected.append(texts)
        try statement.execute { parameters in
          parameters.bind(Int64(index).databaseValue)
          parameters.bind(texts[0].databaseValue)
          Array(texts[1].utf8).withUnsafeBufferPointer { parameters.bind(text: $0) }
          parameters.bind(texts[2].databaseValue)
        }
        #expect(expandedSQL(statement) == "INSERT INTO t (n, a, b, c) VALUES (NULL, NULL, NULL, NULL)")
      }
      let rows = try Row.fetchAll(db, sql: "SELECT a, b, c FROM t ORDER BY n")
      #expect(rows.map { [$0["a"], $0["b"], $0["c"]] as [String] } == expected)
    }
  }

  /// A step that fails, and a binding closure that throws, after text was bound from the stack:
  /// the bindings are cleared all the same, and the statement runs again.
  @Test func textBoundFromTheStackIsClearedWhenTheRunFails() throws {
    struct Stop: Error {}
    let queue = try DatabaseQueue()
    try queue.write { db in
      try db.execute(sql: "CREATE TABLE t (a TEXT UNIQUE, b TEXT)")
      let statement = try db.makeStatement(sql: "INSERT INTO t (a, b) VALUES (?, ?)")
      let cleared = "INSERT INTO t (a, b) VALUES (NULL, NULL)"
      try statement.execute {
        $0.bind("one".databaseValue)
        $0.bind("first".databaseValue)
      }
      let error = #expect(throws: DatabaseError.self) {
        try statement.execute {
          $0.bind("one".databaseValue)
          $0.bind("second".databaseValue)
        }
      }
      #expect(error?.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE)
      #expect(expandedSQL(statement) == cleared)
      #expect(throws: Stop.self) {
        try statement.execute { parameters in
          parameters.bind("two".databaseValue)
          throw Stop()
        }
      }
      #expect(expandedSQL(statement) == cleared)
      try statement.execute {
        $0.bind("two".databaseValue)
        $0.bind("third".databaseValue)
      }
      #expect(try String.fetchAll(db, sql: "SELECT a || ':' || b FROM t ORDER BY rowid") == ["one:first", "two:third"])
    }
  }

  @Test func aBindingThatFailsThrowsSQLitesErrorAndRunsNothing() throws {
    let queue = try DatabaseQueue()
    try queue.write { db in
      try db.execute(sql: "CREATE TABLE t (a TEXT)")
      let statement = try db.makeStatement(sql: "INSERT INTO t (a) VALUES (?)")
      // One parameter more than the statement has.
      let error = #expect(throws: DatabaseError.self) {
        try statement.execute { parameters in
          parameters.bind("one".databaseValue)
          parameters.bind("two".databaseValue)
        }
      }
      #expect(error?.resultCode == .SQLITE_RANGE)
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t") == 0)
      // The statement is left ready for its next run.
      try statement.execute { $0.bind("three".databaseValue) }
      #expect(try String.fetchAll(db, sql: "SELECT a FROM t") == ["three"])
    }
  }

  @Test func aBindingThatFailsBeforeOthersThatSucceedIsReportedAsItself() throws {
    let queue = try DatabaseQueue()
    try queue.write { db in
      try db.execute(sql: "CREATE TABLE t (a TEXT, b TEXT)")
      let statement = try db.makeStatement(sql: "INSERT INTO t (a, b) VALUES (?, ?)")
      // Text longer than the connection allows, then a value that binds: the error is the
      // first one's, not the "not an error" the later success leaves on the connection.
      sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, 8)
      let long = Array("longer than eight bytes".utf8)
      let error = #expect(throws: DatabaseError.self) {
        try statement.execute { parameters in
          long.withUnsafeBufferPointer { parameters.bind(text: $0) }
          parameters.bind("b".databaseValue)
        }
      }
      #expect(error?.resultCode == .SQLITE_TOOBIG)
      #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t") == 0)
      // The same through an array of values.
      let fromValues = #expect(throws: DatabaseError.self) {
        try statement.execute(binding: [String(decoding: long, as: UTF8.self).databaseValue, "b".databaseValue])
      }
      #expect(fromValues?.resultCode == .SQLITE_TOOBIG)
    }
  }

  @Test func aStepThatFailsThrowsTheConstraintAndTheStatementRunsAgain() throws {
    let queue = try DatabaseQueue()
    try queue.write { db in
      try db.execute(sql: "CREATE TABLE t (a INTEGER PRIMARY KEY)")
      let statement = try db.makeStatement(sql: "INSERT INTO t (a) VALUES (?)")
      try statement.execute { $0.bind(1.databaseValue) }
      let error = #expect(throws: DatabaseError.self) { try statement.execute { $0.bind(1.databaseValue) } }
      #expect(error?.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY)
      try statement.execute { $0.bind(2.databaseValue) }
      #expect(try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY a") == [1, 2])
    }
  }
}

/// The statement's SQL with its bound values, as SQLite expands it (`NULL` for a parameter
/// with none).
private func expandedSQL(_ statement: Statement) -> String? {
  guard let text = sqlite3_expanded_sql(statement.sqliteStatement) else { return nil }
  defer { sqlite3_free(text) }
  return String(cString: text)
}
