import Foundation
import GRDB
import Testing

@testable import Rewind

// SQLite converts a value written to a column by the column's declared type (its affinity):
// text that reads as a number becomes a number in a NUMERIC, INTEGER or REAL column (GRDB
// writes a `Decimal` as text), a number becomes text in a TEXT column, an integral real an
// integer in a NUMERIC one. The log and memory hold the row as the table stores it, so that
// `verify` finds the log and the tables agreeing and a reopen reads what memory holds.

private struct Posting: Entity {
  static let databaseTableName = "postings"
  var id: Int64
  var amount: Decimal
  var total: Double
  var ratio: Double = 1
  var memo: String = ""
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("amount", .numeric).notNull()
      t.column("total", .numeric).notNull()
      t.column("ratio", .double).notNull()
      t.column("memo", .text).notNull()
    }
  }
}

/// A string in an INTEGER column, and an integer in a TEXT one: stored converted, and then
/// not read back by GRDB as the type that wrote them.
private struct Mislabelled: Entity {
  static let databaseTableName = "mislabelled"
  var id: Int64
  var code: String = "x"
  var count: Int?
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("code", .integer).notNull()
      t.column("count", .text)
    }
  }
}

/// A key the column converts: "1" stored as the integer 1, which the lists and the log would
/// not name.
private struct Rate: Entity {
  static let databaseTableName = "rates"
  var id: Decimal
  var name = ""
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.column("id", .numeric).primaryKey()
      t.column("name", .text).notNull()
    }
  }
}

private struct Ledger: PersistentState, Equatable {
  var postings = EntityTable<Posting>()
  var mislabelled = EntityTable<Mislabelled>()
  var rates = EntityTable<Rate>()
  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.postings), .entities(\.mislabelled), .entities(\.rates))
  }
}

private enum LedgerAction: LoggedAction {
  case put(Posting)
  case remove(Int64)
  case mislabel(Mislabelled)
  case rate(Rate)
}

private struct LedgerReducer: Reducer {
  func reduce(into state: inout Ledger, action: LedgerAction) -> Effect<LedgerAction> {
    switch action {
    case .put(let posting): state.postings[posting.id] = posting
    case .remove(let id): state.postings.remove(id: id)
    case .mislabel(let row): state.mislabelled[row.id] = row
    case .rate(let rate): state.rates[rate.id] = rate
    }
    return .none
  }
}

@MainActor
struct ColumnAffinityTests {
  let directory: TemporaryDirectory
  var path: String { directory.path("ledger.sqlite") }

  init() throws { directory = try TemporaryDirectory() }

  fileprivate func open(_ initial: Ledger = Ledger(), readOnly: Bool = false) throws -> Store<Ledger, LedgerAction> {
    try Store(path: path, initialState: initial, reducer: LedgerReducer(), readOnly: readOnly)
  }

  /// The row changes of the log's latest entry, as JSON.
  func loggedChanges() throws -> String {
    let database = try RewindDatabase(path: path, readOnly: true)
    return try database.entry(try database.position().lastSeq).changes
  }

  @Test func aDecimalInANumericColumnIsLoggedAndHeldAsTheTableStoresIt() throws {
    let store = try open()
    try store.send(.put(Posting(id: 1, amount: Decimal(string: "12.50")!, total: 3, ratio: 2, memo: "rent")))
    // The table holds a real and an integer; the log says the same, not the text GRDB wrote.
    let logged = try loggedChanges()
    #expect(logged.contains(#""after":{"amount":12.5,"id":1,"memo":"rent","ratio":2.0,"total":3}"#), "\(logged)")
    let stored = try DatabaseQueue(path: path).read { db in
      try Row.fetchOne(db, sql: "SELECT typeof(amount), typeof(total) FROM postings WHERE id = 1")
    }
    #expect(stored?[0] == "real" && stored?[1] == "integer")
    try store.send(.put(Posting(id: 2, amount: Decimal(string: "-7")!, total: 2.5)))
    #expect(try open(readOnly: true).state == store.state)
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)

    // Another column of the row changes: the amount is written as it was, not drifting.
    try store.send(.put(Posting(id: 1, amount: Decimal(string: "12.50")!, total: 3, ratio: 2, memo: "rent, paid")))
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)

    // History and maintenance work on it: undo, redo, compaction, the rebuild.
    try store.send(.put(Posting(id: 1, amount: Decimal(string: "99.25")!, total: 4)))
    try store.undo()
    #expect(store.state.postings[1]?.amount == Decimal(string: "12.5"))
    try store.redo()
    #expect(try open(readOnly: true).state == store.state)
    #expect(try RewindDatabase(path: path).rebuildTables().rowCount == 0)
    _ = try RewindDatabase(path: path).compact(keep: 1)
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
  }

  /// A decimal a real cannot hold (19.99 reads back from its real as 19.98999999999999488):
  /// memory taking the value read back would write another real at the row's next change,
  /// and the table would drift from what was written. Refused, naming the column.
  @Test(arguments: ["19.99", "123456789012345678901234567890"])
  func aDecimalThatARealCannotHoldIsRefused(amount: String) throws {
    let store = try open()
    try store.send(.put(Posting(id: 1, amount: 1, total: 1)))
    let before = try dump(path)
    let error = expectRewindError(.invalidValue) {
      try store.send(.put(Posting(id: 1, amount: Decimal(string: amount)!, total: 1)))
    }
    #expect(error?.message.contains(#"amount {"amount":"\#(amount)"}"#) == true, "\(String(describing: error))")
    #expect(error?.message.contains("TEXT for a Decimal") == true)
    #expect(try dump(path) == before)
    #expect(store.state.postings[1]?.amount == 1)
  }

  /// A file written before the engine applied affinities: its log holds the decimal as the
  /// text GRDB wrote, its table the real SQLite stored. `verify` replays the log's rows as the
  /// table stores them, so the file is healthy, and compaction and the rebuild take it.
  @Test func aLogHoldingTheEncodedTextReplaysAsTheTableStoresIt() throws {
    let store = try open()
    try store.send(.put(Posting(id: 1, amount: Decimal(string: "12.5")!, total: 3)))
    try store.send(.put(Posting(id: 1, amount: Decimal(string: "7.25")!, total: 3)))
    try store.send(.remove(1))
    try store.undo()
    try editByHand(
      path,
      """
      UPDATE action_log SET changes = replace(replace(changes, '"amount":12.5', '"amount":"12.5"'),
        '"amount":7.25', '"amount":"7.25"')
      """)
    #expect(
      try DatabaseQueue(path: path).read {
        try Int.fetchOne($0, sql: "SELECT count(*) FROM action_log WHERE changes LIKE '%\"7.25\"%'")
      } == 3)
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(report.isHealthy, "\(report.problems)")
    #expect(try RewindDatabase(path: path).rebuildTables().rowCount == 0)
    _ = try RewindDatabase(path: path).compact(keep: 1)
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
    #expect(try open(readOnly: true).state.postings[1]?.amount == Decimal(string: "7.25"))
  }

  @Test func textThatIsNoNumberAndNumbersInATextColumn() throws {
    let store = try open()
    // Memo is TEXT: text that reads as a number stays text there.
    try store.send(.put(Posting(id: 1, amount: 1, total: 1, memo: " 12")))
    try store.send(.put(Posting(id: 2, amount: -7, total: 2.5, ratio: 3, memo: "1e3")))
    #expect(try loggedChanges().contains(#""memo":"1e3""#))
    #expect(try open(readOnly: true).state == store.state)
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
  }

  @Test func aValueTheColumnStoresAsAnotherTypeThanItsOwnIsRefused() throws {
    let store = try open()
    try store.send(.mislabel(Mislabelled(id: 1, code: "A7")))
    #expect(try open(readOnly: true).state == store.state)
    let before = try dump(path)
    // "42" in an INTEGER column is stored as 42, and 5 in a TEXT column as "5", which a
    // String and an Int do not read back from.
    for row in [Mislabelled(id: 2, code: "42"), Mislabelled(id: 2, count: 5)] {
      let error = expectRewindError(.invalidValue) { try store.send(.mislabel(row)) }
      #expect(error?.message.contains("cannot read back") == true, "\(String(describing: error))")
    }
    #expect(try dump(path) == before)
    #expect(store.state.mislabelled[2] == nil)
    #expect(try open(readOnly: true).state == store.state)
  }

  @Test func anInitialStateTheColumnsWouldChangeIsRefused() throws {
    var initial = Ledger()
    initial.mislabelled[1] = Mislabelled(id: 1, code: "42")
    let error = expectRewindError(.invalidValue) { try open(initial) }
    #expect(error?.message.contains(#"code {"code":"42"} to {"code":42}"#) == true, "\(String(describing: error))")
  }

  @Test func aKeyTheColumnWouldConvertIsRefused() throws {
    let store = try open()
    let before = try dump(path)
    let error = expectRewindError(.invalidValue) { try store.send(.rate(Rate(id: 1, name: "b"))) }
    #expect(error?.message.contains(#"id {"id":"1"} to {"id":1}"#) == true, "\(String(describing: error))")
    #expect(error?.message.contains("the key") == true)
    #expect(store.state.rates.isEmpty)
    #expect(try dump(path) == before)
  }

  /// Rows the store did not convert (an entry of an earlier release, an import of text into a
  /// NUMERIC column) reach memory as the table holds them: undo and another writer's import
  /// leave memory equal to a reopen.
  @Test func rowsWrittenUnconvertedReachMemoryAsTheTableHoldsThem() throws {
    var store: Store<Ledger, LedgerAction>? = try open()
    try store?.send(.put(Posting(id: 1, amount: Decimal(string: "0.25")!, total: 1)))
    try store?.send(.put(Posting(id: 1, amount: Decimal(string: "0.5")!, total: 1)))
    store = nil
    // As an earlier release logged it: the encoded text, one a real cannot hold.
    try editByHand(path, #"UPDATE action_log SET changes = replace(changes, '"amount":0.25', '"amount":"19.99"')"#)
    let reopened = try open()
    try reopened.undo()
    #expect(reopened.state.postings[1]?.amount != Decimal(string: "19.99"))
    #expect(try open(readOnly: true).state == reopened.state)

    let json = try RewindDatabase(path: path, readOnly: true).export()
      .replacingOccurrences(of: #""amount":19.99"#, with: #""amount":"0.12345678901234567""#)
    #expect(json.contains("0.12345678901234567"))
    _ = try RewindDatabase(path: path).importState(json)
    try reopened.send(.put(Posting(id: 2, amount: 1, total: 1)))  // follows the import first
    #expect(try open(readOnly: true).state == reopened.state)
  }

  @Test(arguments: [
    ("INTEGER", ColumnAffinity.integer), ("BIGINT", .integer), ("VARCHAR(10)", .text), ("CLOB", .text),
    ("BLOB", .none), ("", .none), ("DOUBLE PRECISION", .real), ("FLOAT", .real), ("NUMERIC", .numeric),
    ("DECIMAL(10,5)", .numeric), ("DATETIME", .numeric), ("BOOLEAN", .numeric), ("POINT", .integer),
  ])
  func affinitiesFollowSQLitesRules(type: String, affinity: ColumnAffinity) throws {
    #expect(ColumnAffinity(declaredType: type, strict: false) == affinity)
    // The conversions agree with SQLite's own, in a table declared with the type.
    let queue = try DatabaseQueue()
    try queue.write { db in try db.execute(sql: "CREATE TABLE t (v \(type.isEmpty ? "" : type))") }
    let values: [DatabaseValue] = [
      "12.5".databaseValue, " 7 ".databaseValue, "1e3".databaseValue, "0x10".databaseValue, "abc".databaseValue,
      "".databaseValue, "-0".databaseValue, "9223372036854775808".databaseValue,
      "2024-01-01 12:00:00.000".databaseValue,
      "2024-01-01".databaseValue, "+.5".databaseValue, "5e".databaseValue, "e5".databaseValue, " 1 2".databaseValue,
      "1e-400".databaseValue, "0001".databaseValue, 3.databaseValue, (3.0).databaseValue,
      (2.5).databaseValue, (-0.0).databaseValue, (1e300).databaseValue, Int64.max.databaseValue,
      (9_007_199_254_740_993 as Int64).databaseValue, Data([1, 2]).databaseValue, .null,
    ]
    for value in values {
      let stored = try queue.write { db in
        try db.execute(sql: "DELETE FROM t; INSERT INTO t VALUES (?)", arguments: [value])
        return try DatabaseValue.fetchOne(db, sql: "SELECT v FROM t") ?? .null
      }
      let converted = try affinity.converting(value) ?? value
      #expect(converted.isStoredAlike(stored), "\(type): \(value) is stored as \(stored), converted to \(converted)")
    }
  }

  @Test func anyInAStrictTableKeepsWhatItIsGiven() throws {
    let queue = try DatabaseQueue()
    let (strict, loose) = try queue.write { db in
      try db.execute(sql: "CREATE TABLE s (id INTEGER PRIMARY KEY, v ANY) STRICT; CREATE TABLE l (v ANY)")
      return (try TableAffinities(of: "s", db), try TableAffinities(of: "l", db))
    }
    #expect(strict.affinity(of: "V") == ColumnAffinity.none)
    #expect(loose.affinity(of: "v") == .numeric)
    let image = RowImage(["id": 1.databaseValue, "v": "12".databaseValue])
    #expect(try strict.stored(image) == nil)
    #expect(try loose.stored(image)?["v"] == 12.databaseValue)
  }
}
