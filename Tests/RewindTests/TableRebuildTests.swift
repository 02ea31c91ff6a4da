import Foundation
import GRDB
import Testing

@_spi(Benchmarks) @testable import Rewind
@testable import TasksExample

/// `RewindDatabase.rebuildTables()` puts the state tables back to the log's state where they
/// were edited by hand, logging nothing: verify passes again, undo reverts what the log says,
/// and stores open on the file read their state again. It refuses, writing nothing, when the
/// log itself (or anything beyond the tables' rows) is damaged.
@MainActor
@Suite struct TableRebuildTests {
  let directory: TemporaryDirectory
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("tasks.sqlite")
  }

  /// A file with tasks, a project, a favorite and view state.
  func makeHistory() throws {
    let store = try TasksStore.tasks(path: path)
    try store.send(.addProject(name: "Home"))
    try store.send(.add(title: "One", project: 1))
    try store.send(.add(title: "Two"))
    try store.send(.add(title: "Three"))
    try store.send(.toggle(id: 2))
    try store.send(.favorite(id: 3))
    try store.send(.select(id: 3))
  }

  /// Runs `sql` on the file by hand (see ``editByHand(_:_:)``).
  func edit(_ sql: String) throws { try editByHand(path, sql) }

  /// Every row of every table of the file, engine tables included, as text.
  func everything() throws -> [String] {
    try DatabaseQueue(path: path).read { db in
      try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").flatMap {
        table in
        try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)").map { "\(table) \($0)" }
      }
    }
  }

  func tablesRebuilt() throws -> Int64? {
    try DatabaseQueue(path: path).read {
      try Int64.fetchOne($0, sql: "SELECT value FROM rewind_meta WHERE key = 'tables_rebuilt'")
    }
  }

  @Test func everyKindOfHandEditIsPutBackAndNothingIsLogged() throws {
    try makeHistory()
    let exported = try RewindDatabase(path: path, readOnly: true).export()
    let log = try DatabaseQueue(path: path).read { try Row.fetchAll($0, sql: "SELECT * FROM action_log") }
    try edit(
      """
      UPDATE tasks SET title = 'Changed by hand' WHERE id = 1;
      DELETE FROM tasks WHERE id = 2;
      INSERT INTO tasks (id, title, done, notes) VALUES (9, 'Added by hand', 0, '');
      DELETE FROM projects;
      UPDATE list_entries SET position = position || '0' WHERE list = 'allTasks' AND id = 3;
      DELETE FROM list_entries WHERE list = 'favorited';
      UPDATE view_state SET value = '"by hand"' WHERE path = 'selection';
      """)
    let damaged = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(!damaged.isHealthy)
    #expect(damaged.canRebuildTables, "\(damaged.problems)")

    let report = try RewindDatabase(path: path).rebuildTables()
    #expect(report.seq == Int64(log.count))
    #expect(report.rowsWritten == ["tasks": 3, "projects": 1, "list_entries": 2, "view_state": 1])
    #expect(report.rowCount == 7)
    let healthy = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(healthy.isHealthy, "\(healthy.problems)")
    #expect(!healthy.canRebuildTables)
    #expect(try RewindDatabase(path: path, readOnly: true).export() == exported)
    // The log is as it was: the rebuild is no entry, and no step to undo.
    #expect(try DatabaseQueue(path: path).read { try Row.fetchAll($0, sql: "SELECT * FROM action_log") } == log)
    #expect(try tablesRebuilt() == 1)
    #expect(try RewindDatabase(path: path, readOnly: true).inspect().tablesRebuilt == 1)
    #expect(try RewindDatabase(path: path, readOnly: true).position().tablesRebuilt == 1)

    // Undo reverts the last step the log holds (the favorite), onto the log's rows.
    let store = try TasksStore.tasks(path: path)
    #expect(store.state.tasks[1]?.title == "One")
    _ = try store.undo()
    #expect(store.state.favorited.isEmpty)
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)

    // Nothing left to rebuild: nothing written, not even the count.
    let before = try everything()
    #expect(try RewindDatabase(path: path).rebuildTables() == TableRebuildReport(seq: 9, rowsWritten: [:]))
    #expect(try everything() == before)
  }

  /// Text edited into its other Unicode form (composed `é` to `e` and a combining accent):
  /// equal as Swift compares strings, apart as SQLite stores and compares them. Verify finds
  /// it, and the rebuild puts the log's bytes back (helper-38 found both blind to it).
  @Test func textEditedIntoItsOtherUnicodeFormIsFoundAndPutBack() throws {
    let store = try TasksStore.tasks(path: path)
    try store.send(.add(title: "Café"))
    let exported = try RewindDatabase(path: path, readOnly: true).export()
    try edit("UPDATE tasks SET title = 'Cafe' || char(769) WHERE id = 1")
    let damaged = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(damaged.canRebuildTables, "\(damaged.problems)")
    #expect(try RewindDatabase(path: path).rebuildTables().rowsWritten == ["tasks": 1])
    let title = try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "SELECT title FROM tasks") }
    #expect(title.map { Array($0.utf8) } == Array("Caf\u{E9}".utf8))
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
    #expect(try RewindDatabase(path: path, readOnly: true).export() == exported)
  }

  @Test func aHealthyFileIsLeftAsItIs() throws {
    try makeHistory()
    let before = try everything()
    let report = try RewindDatabase(path: path).rebuildTables()
    #expect(report.rowCount == 0)
    #expect(report.seq == 8)
    #expect(try everything() == before)
    #expect(try tablesRebuilt() == nil)
  }

  /// A damaged log is no guide: refused, naming the first problem, with nothing written.
  @Test func aDamagedLogIsRefusedAndNothingIsWritten() throws {
    try makeHistory()
    try edit(
      """
      UPDATE tasks SET title = 'Changed by hand' WHERE id = 1;
      UPDATE action_log SET changes = replace(changes, '"Two"', '"Deux"') WHERE action = 'add' AND changes LIKE '%"Two"%';
      """)
    let before = try everything()
    let error = try #require(expectRewindError(.corruptData) { try RewindDatabase(path: path).rebuildTables() })
    #expect(error.message.contains("refusing to rebuild the tables from the log: verify finds"), "\(error.message)")
    #expect(error.message.contains("restore the file from a backup"), "\(error.message)")
    #expect(!error.message.contains("Changed by hand"), "the first problem named is the log's: \(error.message)")
    #expect(try everything() == before)
    #expect(try !RewindDatabase(path: path, readOnly: true).verify().canRebuildTables)
  }

  /// Undo stacks edited by hand are beyond the tables' rows: refused, though rows differ too.
  @Test func editedUndoStacksAreRefused() throws {
    try makeHistory()
    try edit(
      """
      UPDATE tasks SET title = 'Changed by hand' WHERE id = 1;
      UPDATE undo_steps SET undone = 1 WHERE id = (SELECT max(id) FROM undo_steps);
      """)
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(report.problems.contains { $0.hasPrefix("undo_steps") }, "\(report.problems)")
    #expect(report.problems.contains { $0.contains("Changed by hand") }, "\(report.problems)")
    #expect(!report.canRebuildTables)
    let before = try everything()
    let error = try #require(expectRewindError(.corruptData) { try RewindDatabase(path: path).rebuildTables() })
    #expect(
      error.message.contains("1 problem beyond rows of the tables and automatic snapshots, the first: undo_steps"),
      "\(error.message)")
    #expect(try everything() == before)
  }

  /// A fixed list's entry given an owner by hand: the log's image of it names no owner (NULL is
  /// left out), and the rebuild sets it back to NULL (helper-38 found it refused).
  @Test func anOwnerGivenToAFixedListsEntryByHandIsCleared() throws {
    try makeHistory()
    let exported = try RewindDatabase(path: path, readOnly: true).export()
    try edit("UPDATE list_entries SET owner = 1 WHERE list = 'allTasks' AND id = 2")
    #expect(try RewindDatabase(path: path, readOnly: true).verify().canRebuildTables)
    #expect(try RewindDatabase(path: path).rebuildTables().rowsWritten == ["list_entries": 1])
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
    #expect(try RewindDatabase(path: path, readOnly: true).export() == exported)
  }

  /// Rows the log's rows cannot give, once written: a column added by hand (the log's rows do
  /// not name it) or a trigger of the app's that writes more. Refused, nothing written.
  @Test(arguments: [
    "ALTER TABLE tasks ADD COLUMN extra TEXT DEFAULT 'x'",
    """
    CREATE TRIGGER stamp AFTER UPDATE ON tasks BEGIN
      UPDATE tasks SET notes = 'stamped' WHERE id = NEW.id AND notes <> 'stamped';
    END;
    UPDATE tasks SET title = 'Changed by hand' WHERE id = 2;
    """,
  ])
  func whatTheLogsRowsCannotGiveIsRefused(edit sql: String) throws {
    try makeHistory()
    try edit(sql)
    #expect(try RewindDatabase(path: path, readOnly: true).verify().canRebuildTables)
    let before = try everything()
    let error = try #require(expectRewindError(.relationViolation) { try RewindDatabase(path: path).rebuildTables() })
    #expect(
      error.message.contains(
        "rebuilding the tables cannot give the log's state: once the log's rows are written, tasks"),
      "\(error.message)")
    #expect(error.message.hasSuffix("nothing was written"), "\(error.message)")
    #expect(try everything() == before)
  }

  /// A snapshot read from the edited tables and stored after the rebuild would hold the hand
  /// edits at a seq the log says otherwise: it is dropped (helper-38 found it stored).
  @Test func aSnapshotReadBeforeTheRebuildIsDroppedWhenStoredAfterIt() throws {
    try makeHistory()
    try edit("UPDATE tasks SET title = 'Changed by hand' WHERE id = 1")
    let worker = try RewindDatabase(path: path)
    let read = try #require(try SteppedSnapshotRead.snapshot(from: worker.queue, evenIfUpToDate: true))
    #expect(try RewindDatabase(path: path).rebuildTables().rowsWritten == ["tasks": 1])
    let snapshots = try RewindDatabase(path: path, readOnly: true).snapshots()
    #expect(try SnapshotWorker.store(read.snapshot, in: worker.queue, beforeEachWrite: {}) == nil)
    #expect(try RewindDatabase(path: path, readOnly: true).snapshots() == snapshots)
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(report.isHealthy, "\(report.problems)")
  }

  /// A read in steps that a rebuild comes between cannot join its steps: it reads the state
  /// again in one transaction, after the rebuild.
  @Test func aSteppedReadThatARebuildComesBetweenReadsAgain() throws {
    try makeHistory()
    try edit("UPDATE tasks SET title = 'Changed by hand' WHERE id = 1")
    let worker = try RewindDatabase(path: path)
    var steps = 0
    var rebuilt = 0
    let outcome = try SteppedSnapshotRead.read(
      from: worker.queue, evenIfUpToDate: true, rowsPerStep: 1,
      beforeStep: {
        steps += 1
        if steps == 3 { rebuilt = try RewindDatabase(path: path).rebuildTables().rowCount }
      })
    #expect(rebuilt == 1)
    #expect(steps == 3, "the read ended at the step after the rebuild")
    guard case .needsOneRead = outcome else {
      Issue.record("the steps were joined across the rebuild: \(outcome)")
      return
    }
    let read = try #require(try SteppedSnapshotRead.snapshot(from: worker.queue, evenIfUpToDate: true))
    #expect(!read.snapshot.json.contains("Changed by hand"))
    #expect(try SnapshotWorker.store(read.snapshot, in: worker.queue, beforeEachWrite: {}) != nil)
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
  }

  /// Values of a UNIQUE column swapped by hand: written back one row at a time, the first
  /// collided with the other, and the rebuild was refused. The rows are now written in an
  /// order that lets them in (one row's value moved aside while the other takes it).
  @Test func uniqueValuesSwappedByHandAreWrittenBack() throws {
    try makeHistory()
    try edit("CREATE UNIQUE INDEX title_once ON tasks(title)")
    let before = try everything()
    try edit(
      """
      UPDATE tasks SET title = 'swapping' WHERE id = 2;
      UPDATE tasks SET title = 'Two' WHERE id = 3;
      UPDATE tasks SET title = 'Three' WHERE id = 2;
      """)
    #expect(try everything() != before)
    #expect(try RewindDatabase(path: path).rebuildTables().rowCount == 2)
    #expect(try everything().filter { !$0.hasPrefix("rewind_meta") } == before.filter { !$0.hasPrefix("rewind_meta") })
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
  }

  /// Automatic snapshots are read from the tables: taken after a hand edit, they hold it, and
  /// differ from the log at their seq. Derived data: the rebuild drops them (helper-38 found
  /// them blocking it for good). A labelled snapshot is the user's: refused, naming it.
  @Test func automaticSnapshotsTakenFromTheEditedTablesAreDropped() throws {
    try makeHistory()
    let store = try TasksStore.tasks(path: path)
    store.automaticSnapshotSpacing = 2
    try edit("UPDATE tasks SET title = 'Changed by hand' WHERE id = 1")
    for offset in 1...6 { try store.send(.scroll(Double(offset))) }
    store.waitForSnapshots()
    let automatic = try RewindDatabase(path: path, readOnly: true).snapshots().filter { $0.kind == "automatic" }
    #expect(!automatic.isEmpty)
    let damaged = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(damaged.problems.contains { $0.hasPrefix("snapshot (automatic)") }, "\(damaged.problems)")
    #expect(damaged.canRebuildTables, "\(damaged.problems)")

    let report = try RewindDatabase(path: path).rebuildTables()
    #expect(report.rowsWritten == ["tasks": 1])
    #expect(report.snapshotsDropped == automatic.count)
    #expect(try RewindDatabase(path: path, readOnly: true).snapshots().allSatisfy { $0.kind != "automatic" })
    let healthy = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(healthy.isHealthy, "\(healthy.problems)")
    // The store goes on, and its next snapshots hold the log's rows.
    for offset in 7...10 { try store.send(.scroll(Double(offset))) }
    store.waitForSnapshots()
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)

    try edit("UPDATE tasks SET title = 'Changed again' WHERE id = 1")
    _ = try RewindDatabase(path: path).snapshot(label: "after the edit")
    let labelled = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(!labelled.canRebuildTables)
    let before = try everything()
    let error = try #require(expectRewindError(.corruptData) { try RewindDatabase(path: path).rebuildTables() })
    #expect(error.message.contains(#"the first: snapshot "after the edit""#), "\(error.message)")
    #expect(try everything() == before)
  }

  @Test func aReadOnlyDatabaseIsRefused() throws {
    try makeHistory()
    try edit("UPDATE tasks SET title = 'Changed by hand' WHERE id = 1")
    let before = try everything()
    let error = try #require(
      expectRewindError(.readOnly) { try RewindDatabase(path: path, readOnly: true).rebuildTables() })
    #expect(error.message.contains("read-only"), "\(error.message)")
    #expect(try everything() == before)
  }

  /// A store that opened on the edited tables holds the edits in memory: after the rebuild its
  /// next write reads the tables again, so what it logs starts from the log's rows. (Without
  /// that, its entry would record the hand edit as the row's before-image, and verify would
  /// find the log broken there.)
  @Test func aStoreOpenOnTheEditedTablesReadsThemAgainAfterTheRebuild() throws {
    try makeHistory()
    try edit("UPDATE tasks SET title = 'Changed by hand' WHERE id = 1; UPDATE tasks SET done = 0 WHERE id = 2")
    let store = try TasksStore.tasks(path: path)
    #expect(store.state.tasks[1]?.title == "Changed by hand")
    #expect(store.state.tasks[2]?.isDone == false)
    _ = try RewindDatabase(path: path).rebuildTables()
    try store.send(.append(id: 1, text: "!"))
    #expect(store.state.tasks[1]?.title == "One!")
    #expect(store.state.tasks[2]?.isDone == true)
    #expect(try TasksStore.tasks(path: path, readOnly: true).state == store.state)
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(report.isHealthy, "\(report.problems)")
  }

  /// Entries an app logs between the replay and the write are followed, when they start from
  /// the log's rows (a store that opened before the edit); one written on top of the edits is
  /// refused, and nothing is written.
  @Test func entriesLoggedMeanwhileAreFollowedOrRefused() throws {
    try makeHistory()
    let before = try TasksStore.tasks(path: path)
    try edit("UPDATE tasks SET title = 'Changed by hand' WHERE id = 1")
    let report = try RewindDatabase(path: path).rebuildTables(
      progress: { _, _ in },
      afterReading: {
        try before.send(.add(title: "Meanwhile"))
        try before.send(.append(id: 3, text: "!"))
      })
    #expect(report.seq == 10)
    #expect(report.rowsWritten == ["tasks": 1])
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)

    let onEdits = try TasksStore.tasks(path: path)
    try edit("UPDATE tasks SET title = 'Edited again' WHERE id = 1")
    try onEdits.reload()
    let files = try everything()
    var written: [String] = []
    let error = try #require(
      expectRewindError(.externalChange) {
        try RewindDatabase(path: path).rebuildTables(
          progress: { _, _ in },
          afterReading: {
            try onEdits.send(.append(id: 1, text: "?"))
            written = try everything()
          })
      })
    #expect(error.message.contains("seq 11, logged while the log was replayed for the rebuild"), "\(error.message)")
    #expect(error.message.contains("Edited again"), "\(error.message)")
    #expect(written != files)
    #expect(try everything() == written)
  }
}
