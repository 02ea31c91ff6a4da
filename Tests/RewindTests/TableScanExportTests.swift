import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// Exports read straight from the tables (``TableScanExport``) against exports built from an
/// image of the state: the same bytes at every seq, with the document and the view state at
/// different seqs, and a fall back to the image where SQLite's order is not the export's.
@MainActor
struct TableScanExportTests {
  /// The export of the state after `seq` (view state after `viewSeq`) built from an image,
  /// and the one read from the tables, `nil` when the tables are not the nearest anchor.
  func exports(_ database: RewindDatabase, at seq: Int64, viewAt viewSeq: Int64) throws -> (
    image: String, scanned: String??
  ) {
    try database.read { db, history in
      let appSchema = history.tables.appSchema.version(ofRowsAt: seq)
      var image = try history.rows(at: seq, db)
      image.tables["view_state"] = try history.rows(at: viewSeq, db).tables["view_state"]
      var scanned: String?? = nil
      if var changed = try history.rowsChanged(since: seq, db),
        let viewChanged = try history.rowsChanged(since: viewSeq, db)
      {
        changed["view_state"] = viewChanged["view_state"] ?? [:]
        scanned = try TableScanExport(catalog: history.tables, changed: changed).export(appSchema: appSchema, db)
      }
      return (RewindDatabase.exportJSON(image, catalog: history.tables, appSchema: appSchema), scanned)
    }
  }

  @Test(arguments: 0..<6)
  func scannedExportsEqualImageExportsAtEverySeq(seed: Int) async throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    var random = SplitMix64(seed: UInt64(seed) &+ 101)
    for step in 0..<90 {
      let tasks = store.state.tasks.ids.sorted()
      let projects = store.state.projects.ids.sorted()
      switch Int.random(in: 0..<12, using: &random) {
      case 0, 1: try store.send(.add(title: "T\(step) \"quoted\"\n", project: projects.randomElement(using: &random)))
      case 2: try store.send(.addProject(name: "P\(step)"))
      case 3 where !tasks.isEmpty: try store.send(.delete(id: tasks.randomElement(using: &random)!))
      case 4 where !tasks.isEmpty:
        try store.send(
          .move(id: tasks.randomElement(using: &random)!, to: Int.random(in: 0..<tasks.count, using: &random)))
      case 5 where !tasks.isEmpty: try store.send(.favorite(id: tasks.randomElement(using: &random)!))
      case 6 where !projects.isEmpty: try store.send(.deleteProject(id: projects.randomElement(using: &random)!))
      case 7: try store.send(.select(id: tasks.randomElement(using: &random)))
      case 8 where store.canUndo: try store.undo()
      case 9 where store.canRedo: try store.redo()
      case 10 where step % 3 == 0 && step < 60:
        // Snapshots in the first part of the log: far seqs anchor on them, near ones on the tables.
        _ = try RewindDatabase(path: path).snapshot(label: "at \(step)")
      default: try store.send(.add(title: "T\(step)"))
      }
    }
    let database = try RewindDatabase(path: path, readOnly: true)
    let last = try database.position().lastSeq
    var scannedSeqs = 0
    for seq in 1...last {
      // Other tests on the main actor (a test store's effects) get their turn.
      await Task.yield()
      let viewSeq = Int64.random(in: 1...last, using: &random)
      for (at, viewAt) in [(seq, seq), (seq, viewSeq)] {
        let (image, scanned) = try exports(database, at: at, viewAt: viewAt)
        if let scanned {
          #expect(scanned == image, "seed \(seed): export at \(at), view at \(viewAt)")
          scannedSeqs += 1
        }
        #expect(
          try database.export(at: at, viewAt: viewAt) == image, "seed \(seed): export at \(at), view at \(viewAt)")
      }
    }
    // The walk back from the tables is taken for the seqs near the end, not only the last.
    #expect(scannedSeqs > 4)
    #expect(try database.export() == database.export(at: last))
    try expectScannedSnapshotEqualsImage(database)
  }

  /// A snapshot written from a scan of the tables has the text, row count and checksum of
  /// one written from an image.
  func expectScannedSnapshotEqualsImage(_ database: RewindDatabase) throws {
    try database.read { db, history in
      let scanned = try HistoryLog.EncodedSnapshot.scanning(db, catalog: history.tables, seq: history.lastSeq)
      let image = HistoryLog.EncodedSnapshot(try StateRows(db, catalog: history.tables), seq: history.lastSeq)
      #expect(scanned?.json == image.json)
      #expect(scanned?.rowCount == image.rowCount)
      #expect(scanned?.checksum == image.checksum)
      #expect(image.rowCount > 0)
    }
  }

  /// A row deleted since the seq, in a table whose key column has another collation, where
  /// the rows now are in the same order for SQLite and for the export: SQLite places `C`
  /// after `b` (NOCASE), the export before it; and `B` before `c`, where the export puts it
  /// before `a`. The export at the seq must be the image's.
  @Test(arguments: [(["C", "b", "d"], "C", "b"), (["c", "a", "B"], "B", "a")])
  func aChangedRowSQLitePlacesElsewhereIsWhereTheExportOrdersIt(
    added: [String], removed: String, follower: String
  ) throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("labels.sqlite")
    let store = try Store(path: path, initialState: LabelState(), reducer: LabelReducer())
    for name in added { try store.send(.add(name)) }
    try store.send(.remove(removed))
    let database = try RewindDatabase(path: path, readOnly: true)
    let (image, scanned) = try exports(database, at: 3, viewAt: 3)
    #expect(
      image.contains(#"{"name":"\#(removed)","note":""},"# + "\n      " + #"{"name":"\#(follower)""#),
      "the image orders \(removed) just before \(follower)")
    #expect(scanned == .some(nil) || scanned == .some(image))
    #expect(try database.export(at: 3) == image)
  }

  /// A member of a fixed list given an owner by hand: SQLite's index reads it after the
  /// others, where the export places it by its position. The scan gives up and the export is
  /// the image's, the same bytes as before the edit.
  @Test func aFixedListMemberGivenAnOwnerByHandFallsBackToTheImage() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    do {
      let store = try TasksStore.tasks(path: path)
      for title in ["a", "b", "c"] { try store.send(.add(title: title)) }
    }
    let before = try RewindDatabase(path: path, readOnly: true)
    let last = try before.position().lastSeq
    let (imageBefore, scannedBefore) = try exports(before, at: last, viewAt: last)
    #expect(scannedBefore == .some(imageBefore), "an unedited file is exported from a scan")
    try DatabaseQueue(path: path).write { db in
      try db.execute(
        sql: """
          UPDATE list_entries SET owner = 7 WHERE list = 'allTasks' AND position = \
          (SELECT min(position) FROM list_entries WHERE list = 'allTasks')
          """)
      #expect(db.changesCount == 1)
    }
    let database = try RewindDatabase(path: path, readOnly: true)
    let (image, scanned) = try exports(database, at: last, viewAt: last)
    #expect(scanned == .some(nil), "the scan must give up on a fixed list's member with an owner")
    #expect(image == imageBefore)
    #expect(try database.export() == image)
  }

  /// A key column with another collation: SQLite reads `a, B, c` where the export orders
  /// `B, a, c`. The scan notices and the export is built from the image, the same bytes.
  @Test func aKeyOrderSQLiteDoesNotShareFallsBackToTheImage() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("labels.sqlite")
    let store = try Store(path: path, initialState: LabelState(), reducer: LabelReducer())
    for name in ["c", "a", "B"] { try store.send(.add(name)) }
    try store.send(.annotate("a", note: "renamed"))
    let database = try RewindDatabase(path: path, readOnly: true)
    let (image, scanned) = try exports(database, at: 3, viewAt: 3)
    #expect(scanned == .some(nil), "the scan must give up on an order that is not the export's")
    #expect(try database.export(at: 3) == image)
    #expect(try database.export() == exports(database, at: 4, viewAt: 4).image)
    #expect(image.contains(#"{"name":"B","note":""},"#))
    // Snapshots too: the scan gives up, and the snapshot is the image's.
    try database.read { db, history in
      #expect(try HistoryLog.EncodedSnapshot.scanning(db, catalog: history.tables, seq: 4) == nil)
      let snapshot = try HistoryLog.EncodedSnapshot(db, catalog: history.tables, seq: 4)
      #expect(snapshot.json == (try StateRows(db, catalog: history.tables)).json())
      #expect(snapshot.json.contains(#""rows":[["B",""],["a","renamed"],"#))
    }
  }
}

private struct Label: Entity {
  static let databaseTableName = "labels"
  static var keyColumn: String { "name" }
  var id: String { name }
  var name: String
  var note: String

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("name", .text).collate(.nocase)
      t.column("note", .text).notNull()
    }
  }
}

private struct LabelState: PersistentState, Equatable {
  var labels = EntityTable<Label>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.labels)) }
}

private enum LabelAction: LoggedAction, Equatable {
  case add(String)
  case annotate(String, note: String)
  case remove(String)
}

private struct LabelReducer: Reducer {
  func reduce(into state: inout LabelState, action: LabelAction) -> Effect<LabelAction> {
    switch action {
    case .add(let name): state.labels.insert(Label(name: name, note: ""))
    case .annotate(let name, let note): state.labels[name]?.note = note
    case .remove(let name): state.labels.remove(id: name)
    }
    return .none
  }
}
