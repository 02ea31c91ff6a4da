import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// A snapshot names each table's columns once, then gives each row's values (engine schema 10;
/// before, every row was an object repeating every column's name): what it reads back is the
/// state it was taken from, whichever form a table is in, and a malformed table is named.
@MainActor
struct SnapshotColumnsTests {
  typealias Row = StateRows.Row

  /// The rows of each table of an image.
  func rowsByTable(_ image: StateRows) -> [String: Set<Row>] {
    image.tables.mapValues { Set($0.values) }
  }

  /// The rows of each table of a snapshot's text, as ``StateRows/images(json:)`` reads them.
  func rowsByTable(json: String) throws -> [String: Set<Row>] {
    Dictionary(grouping: try StateRows.images(json: json), by: \.table).mapValues { Set($0.map(\.row)) }
  }

  /// A row of plain values (`nil`: NULL).
  func row(_ values: [String: (any DatabaseValueConvertible)?]) -> Row {
    RowImage(values.mapValues { $0?.databaseValue ?? .null })
  }

  func image(_ tables: [String: [Row]], keys: [String: [String]]) -> StateRows {
    StateRows(
      tables: tables.mapValues { _ in [:] }.merging(
        tables.map { table, rows in
          (table, Dictionary(uniqueKeysWithValues: rows.map { ($0.keeping(keys[table] ?? ["id"]), $0) }))
        },
        uniquingKeysWith: { $1 }))
  }

  @Test func aTableOfRowsWithTheSameColumnsNamesThemOnceAndReadsBackAsItWas() throws {
    let columns = RowImage.Columns(["id", "title", "done"])
    let tasks = (1...3).map { RowImage(columns, [$0.databaseValue, "Task \($0)".databaseValue, .null]) }
    // A fixed list's entry has no `owner` (the log's images leave its NULL out), a keyed one has.
    let entries: [Row] = [
      row(["list": "allTasks", "id": 1, "position": "a0"]),
      row(["list": "allTasks", "id": 2, "position": "a1"]),
      row(["list": "children", "id": 3, "owner": 1, "position": "a0"]),
    ]
    let image = image(
      ["tasks": tasks, "list_entries": entries, "projects": []],
      keys: ["list_entries": ["list", "id", "owner"]])
    let json = image.json()
    #expect(
      json
        == #"{"list_entries":{"columns":["id","list","owner","position"],"rows":[[1,"allTasks",null,"a0"],[2,"allTasks",null,"a1"],[3,"children",1,"a0"]]},"projects":[],"tasks":{"columns":["done","id","title"],"rows":[[null,1,"Task 1"],[null,2,"Task 2"],[null,3,"Task 3"]]}}"#
    )
    #expect(try rowsByTable(json: json) == rowsByTable(image).filter { !$0.value.isEmpty })
  }

  @Test func rowsThatWouldNotReadBackAsTheyAreStayObjects() throws {
    // Rows of one table with different columns (an earlier app schema's, read through its
    // migrations), and a NULL `owner` given where the log's images leave it out.
    let mixed = [row(["id": 1, "title": "a"]), row(["id": 2, "title": "b", "note": "n"])]
    let entries = [row(["list": "allTasks", "id": 1, "owner": nil, "position": "a0"])]
    let image = image(["tasks": mixed, "list_entries": entries], keys: ["list_entries": ["list", "id"]])
    let json = image.json()
    #expect(json.contains(#""tasks":[{"id":1,"title":"a"},{"id":2,"note":"n","title":"b"}]"#), "\(json)")
    #expect(json.contains(#""list_entries":[{"id":1,"list":"allTasks","owner":null,"position":"a0"}]"#), "\(json)")
    #expect(try rowsByTable(json: json) == rowsByTable(image))
  }

  @Test func aSnapshotOfAnEarlierSchemaReadsAsTheSameRows() throws {
    let earlier = #"""
      {"list_entries":[{"id":1,"list":"allTasks","position":"a0"},{"id":3,"list":"children","owner":1,"position":"a0"}],"projects":[],"tasks":[{"done":0,"id":1,"title":"A"},{"done":1,"id":3,"title":"C"}]}
      """#
    let now = #"""
      {"list_entries":{"columns":["id","list","owner","position"],"rows":[[1,"allTasks",null,"a0"],[3,"children",1,"a0"]]},"projects":[],"tasks":{"columns":["done","id","title"],"rows":[[0,1,"A"],[1,3,"C"]]}}
      """#
    let rows = try rowsByTable(json: earlier)
    #expect(rows["tasks"]?.count == 2 && rows["list_entries"]?.count == 2)
    #expect(try rowsByTable(json: now) == rows)
  }

  /// Values of every storage class, and text that looks like JSON or like a blob's object.
  static let values: [DatabaseValue] = [
    .null, 0.databaseValue, 1.databaseValue, Int64.min.databaseValue, Int64.max.databaseValue,
    (-0.0).databaseValue, 0.0.databaseValue, 1e300.databaseValue, Double.leastNonzeroMagnitude.databaseValue,
    Double.infinity.databaseValue, (-Double.infinity).databaseValue, 9_007_199_254_740_993.0.databaseValue,
    "".databaseValue, "a\"b\\c\n\t\u{1}é✓𝄞".databaseValue, "[1,2]".databaseValue, #"{"$blob":"AA=="}"#.databaseValue,
    Data([0, 1, 255]).databaseValue, Data().databaseValue,
  ]

  /// Random images (rows sharing their columns or not; fixed-list entries without an `owner`,
  /// with one, or with an explicit NULL; an empty table) read back row for row, each value
  /// stored as it was (`-0.0` a real with its sign, `1` an integer).
  @Test(arguments: 0..<300)
  func randomImagesReadBackRowForRowWhicheverFormTheirTablesTake(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let shapes = [["id", "title", "done"], ["id", "title"], ["id", "title", "done", "note"]]
    let shared = RowImage.Columns(shapes.randomElement(using: &random)!)
    let mixed = Bool.random(using: &random)
    var tasks: [Row] = []
    for id in 0..<Int.random(in: 0...6, using: &random) {
      let columns = mixed ? RowImage.Columns(shapes.randomElement(using: &random)!) : shared
      tasks.append(
        RowImage(
          columns: columns,
          sortedValues: columns.names.map { $0 == "id" ? id.databaseValue : Self.values.randomElement(using: &random)! }
        ))
    }
    var entries: [Row] = []
    for id in 0..<Int.random(in: 0...6, using: &random) {
      let entry = row(["list": "l", "id": id, "position": "a\(id)"])
      switch Int.random(in: 0..<3, using: &random) {
      case 0: entries.append(entry)
      case 1: entries.append(entry.setting("owner", to: Int.random(in: 1...3, using: &random).databaseValue))
      default: entries.append(entry.setting("owner", to: .null))
      }
    }
    let image = image(
      ["tasks": tasks, "list_entries": entries, "empty": []], keys: ["list_entries": ["list", "id"]])
    let json = image.json()
    let read = Dictionary(grouping: try StateRows.images(json: json), by: \.table).mapValues { $0.map(\.row) }
    for (table, rows) in image.tables {
      let back = read[table] ?? []
      #expect(back.count == rows.count, "\(table): \(json)")
      #expect(rows.values.allSatisfy { row in back.contains { $0.isStoredAlike(row) } }, "\(table): \(json)")
    }
  }

  @Test(arguments: [
    (#"{"tasks":{"columns":["id","title"],"rows":[[1,"a"],[2]]}}"#, "row 1 of tasks is not an array of 2 values"),
    (#"{"tasks":{"columns":["id",7],"rows":[]}}"#, "a column of tasks is not a string"),
    (#"{"tasks":{"columns":["id","id"],"rows":[[1,1]]}}"#, "tasks names a column twice"),
    (#"{"tasks":{"columns":["id"],"rows":[[1]],"more":1}}"#, #"tasks is an object other than {"columns""#),
    (#"{"tasks":{"columns":["id"],"rows":[{"id":1}]}}"#, "row 0 of tasks is not an array of 1 values"),
    (#"{"tasks":7}"#, "tasks is neither an array of rows nor an object of columns and rows"),
  ])
  func aMalformedTableIsNamed(json: String, problem: String) throws {
    let error = try #require(throws: RewindError.self) { try StateRows.images(json: json) }
    #expect(error.code == .corruptData)
    #expect("\(error)".contains(problem), "\(error)")
  }

  @Test func aStoredSnapshotNamesEachColumnOnceAndRestoresItsState() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    for index in 0..<40 { try store.send(.add(title: "T\(index)")) }
    try store.send(.toggle(id: 3))
    let database = try RewindDatabase(path: path)
    let seq = try database.snapshot(label: "forty")
    let atSnapshot = try database.export()
    for index in 0..<5 { try store.send(.rename(id: 1, title: "R\(index)")) }
    try store.send(.delete(id: 2))
    let text = try DatabaseQueue(path: path).read { db in
      try String.fetchOne(db, sql: "SELECT rows FROM snapshots WHERE label = 'forty'")!
    }
    #expect(text.components(separatedBy: #""title""#).count == 2, "each column is named once: \(text.prefix(300))")
    #expect(text.contains(#""tasks":{"columns":["#))
    #expect(try database.restore(snapshot: "forty") != nil)
    #expect(try database.export() == atSnapshot)
    // Far from the current state, an export at the snapshot's seq starts from it.
    #expect(try database.export(at: seq) == atSnapshot)
  }

  @Test func aStoredSnapshotWithAMalformedRowIsRefusedAndTheFileIsLeftAsItWas() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    for index in 0..<4 { try store.send(.add(title: "T\(index)")) }
    let database = try RewindDatabase(path: path)
    let seq = try database.snapshot(label: "mid")
    try store.send(.delete(id: 1))
    // A row cut short, with its checksum taken again, as a hand edit that knew how would.
    try DatabaseQueue(path: path).write { db in
      let text = try String.fetchOne(db, sql: "SELECT rows FROM snapshots WHERE label = 'mid'")!
      let cut = text.replacingOccurrences(of: #"[0,2,"","#, with: #"[0,2,"#)
      #expect(cut != text)
      try db.execute(
        sql: "UPDATE snapshots SET rows = ?, checksum = ? WHERE label = 'mid'",
        arguments: [cut, HistoryLog.checksum(cut, seq: seq)])
    }
    let before = try database.export()
    let error = try #require(throws: RewindError.self) { try database.restore(snapshot: "mid") }
    #expect(error.code == .corruptData)
    #expect("\(error)".contains("row 1 of tasks is not an array of 5 values"), "\(error)")
    #expect(try database.export() == before)
  }
}
