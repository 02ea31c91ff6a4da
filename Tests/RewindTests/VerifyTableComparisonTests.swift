import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// `verify` compares the state tables with the replayed log row by row as it reads them, and
/// reads them whole only when they differ, to list the differences: every kind of difference
/// made by hand is still found and named, and the file is left as it was.
@MainActor
struct VerifyTableComparisonTests {
  /// A file of three tasks, one toggled and one selected, healthy; returns its path.
  private func healthyFile(in directory: TemporaryDirectory) throws -> String {
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    try store.send(.add(title: "One"))
    try store.send(.add(title: "Two"))
    try store.send(.add(title: "Three"))
    try store.send(.toggle(id: 2))
    try store.send(.select(id: 3))
    return path
  }

  /// Runs `sql` on the file outside the engine, then verifies it: returns the problems, after
  /// checking that verifying left the file's bytes as they were.
  private func problems(after sql: String, on path: String) throws -> [String] {
    try edit(path, sql)
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "verify changed the file")
    #expect(!report.passed.contains { $0.hasPrefix("tables:") }, "the tables were said to match")
    return report.problems
  }

  private func edit(_ path: String, _ sql: String) throws { try editByHand(path, sql) }

  /// The state the file's tables hold, as verify's replay would hold it, and the comparison
  /// verify makes first: row by row, nothing kept, each table as verify compares it in a read
  /// of its own.
  private func matches(_ path: String, _ rows: StateRows) throws -> Bool {
    try RewindDatabase(path: path, readOnly: true).read { db, history in
      let catalog = history.tables
      return try rows.holdsNoRows(outside: catalog)
        && catalog.tableNames.allSatisfy { try rows.matchesTable($0, in: db, catalog: catalog) }
    }
  }

  private func stateRows(_ path: String) throws -> StateRows {
    try RewindDatabase(path: path, readOnly: true).read { db, history in
      try StateRows(db, catalog: history.tables)
    }
  }

  /// The row-by-row comparison itself: true for the tables it was read from, false after
  /// each kind of edit.
  @Test func theRowByRowComparisonFindsEveryKindOfEdit() throws {
    let edits = [
      "UPDATE tasks SET title = 'Deux' WHERE id = 2",
      "UPDATE tasks SET notes = CAST(notes AS BLOB) WHERE id = 1",
      "INSERT INTO tasks (id, title, done, notes) VALUES (9, 'Nine', 0, '')",
      "DELETE FROM view_state WHERE path = 'selection'",
      "UPDATE tasks SET id = 7 WHERE id = 3",
      "UPDATE list_entries SET position = position || '0' WHERE id = 1",
    ]
    for edit in edits {
      let directory = try TemporaryDirectory()
      let path = try healthyFile(in: directory)
      let rows = try stateRows(path)
      #expect(try matches(path, rows))
      try self.edit(path, edit)
      #expect(try !matches(path, rows), "\(edit)")
    }
  }

  /// A table whose key column is not its primary key may hold a row twice in place of
  /// another: as many rows as expected, each equal to an expected one, is no match then.
  @Test func aRowRepeatedInPlaceOfAnotherIsFoundWhereKeysAreNotUnique() throws {
    let directory = try TemporaryDirectory()
    let path = try healthyFile(in: directory)
    // The same table without its primary key, rebuilt by hand.
    try edit(
      path,
      """
      CREATE TABLE copy AS SELECT * FROM tasks; DROP TABLE tasks; ALTER TABLE copy RENAME TO tasks;
      """)
    let rows = try stateRows(path)
    #expect(try matches(path, rows))
    try edit(path, "DELETE FROM tasks WHERE id = 2; INSERT INTO tasks SELECT * FROM tasks WHERE id = 1")
    #expect(try !matches(path, rows))
    let problems = try RewindDatabase(path: path, readOnly: true).verify().problems
    #expect(problems.contains { $0.hasPrefix(#"tasks {"id":2}: the table has absent"#) }, "\(problems)")
  }

  /// An entry that changes one row twice replays in order: the second change starts from the
  /// row the first left (as `apply` and undo take them), and one that does not is a conflict.
  @Test func anEntryThatChangesARowTwiceReplaysInOrder() throws {
    let directory = try TemporaryDirectory()
    let path = try healthyFile(in: directory)
    // The toggle of task 2 (done 0 -> 1), split into 0 -> 5 and 5 -> 1 by hand.
    let (seq, toggle) = try RewindDatabase(path: path, readOnly: true).read { db, history in
      let entry = try Row.fetchOne(
        db, sql: "SELECT seq, changes FROM action_log WHERE action = 'toggle' ORDER BY seq DESC LIMIT 1")!
      return (entry["seq"] as Int64, try RowChange.decodeJSON(entry["changes"]))
    }
    let change = try #require(toggle.first { $0.table == "tasks" })
    let midway = change.after!.setting("done", to: 5.databaseValue)
    func store(_ changes: [RowChange]) throws {
      try edit(path, "UPDATE action_log SET changes = '\(RowChange.json(changes))' WHERE seq = \(seq)")
    }
    try store([
      RowChange(table: "tasks", key: change.key, before: change.before, after: midway),
      RowChange(table: "tasks", key: change.key, before: midway, after: change.after),
    ])
    let inOrder = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(inOrder.isHealthy, "\(inOrder.problems)")
    // Both changes starting from the row before the entry: the second does not.
    try store([
      RowChange(table: "tasks", key: change.key, before: change.before, after: midway),
      RowChange(table: "tasks", key: change.key, before: change.before, after: change.after),
    ])
    let problems = try RewindDatabase(path: path, readOnly: true).verify().problems
    #expect(problems.count == 1, "\(problems)")
    #expect(problems.first?.contains(#"tasks {"id":2} should be {"done":0"#) == true, "\(problems)")
  }

  @Test func aHealthyFileSaysItsTablesMatch() throws {
    let directory = try TemporaryDirectory()
    let path = try healthyFile(in: directory)
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(report.isHealthy, "\(report.problems)")
    #expect(
      report.passed.contains("tables: list_entries, projects, tasks, view_state match the replayed log exactly"))
  }

  @Test func aValueEditedByHandIsNamed() throws {
    let directory = try TemporaryDirectory()
    let path = try healthyFile(in: directory)
    let problems = try problems(after: "UPDATE tasks SET title = 'Deux' WHERE id = 2", on: path)
    #expect(
      problems == [
        #"tasks {"id":2}: the table has {"done":1,"id":2,"notes":"","projectId":null,"title":"Deux"}, the log says {"done":1,"id":2,"notes":"","projectId":null,"title":"Two"}"#
      ])
  }

  /// The same bytes as another type: a blob where the log has text (a TEXT column would turn
  /// an integer back into text).
  @Test func aValueOfAnotherTypeIsNamed() throws {
    let directory = try TemporaryDirectory()
    let path = try healthyFile(in: directory)
    let problems = try problems(
      after: "UPDATE tasks SET notes = CAST(notes AS BLOB) WHERE id = 1", on: path)
    #expect(problems.count == 1, "\(problems)")
    #expect(
      problems.first?.hasPrefix(#"tasks {"id":1}: the table has {"done":0,"id":1,"notes":{"$blob":""#) == true,
      "\(problems)")
  }

  @Test func aRowAddedByHandIsNamed() throws {
    let directory = try TemporaryDirectory()
    let path = try healthyFile(in: directory)
    let problems = try problems(
      after: "INSERT INTO tasks (id, title, done, notes) VALUES (9, 'Nine', 0, '')", on: path)
    #expect(
      problems.contains {
        $0.hasPrefix(#"tasks {"id":9}: the table has {"done":0,"id":9,"#) && $0.hasSuffix("the log says absent")
      }, "\(problems)")
  }

  @Test func aRowRemovedByHandIsNamed() throws {
    let directory = try TemporaryDirectory()
    let path = try healthyFile(in: directory)
    let problems = try problems(after: "DELETE FROM view_state", on: path)
    #expect(!problems.isEmpty)
    #expect(problems.allSatisfy { $0.hasPrefix("view_state ") && $0.contains("the table has absent") }, "\(problems)")
  }

  /// As many rows as the log says, but one under another key: a count alone would miss it.
  @Test func aRowMovedToAnotherKeyIsNamedAtBothKeys() throws {
    let directory = try TemporaryDirectory()
    let path = try healthyFile(in: directory)
    let problems = try problems(after: "UPDATE tasks SET id = 7 WHERE id = 3", on: path)
    #expect(problems.contains { $0.hasPrefix(#"tasks {"id":3}: the table has absent"#) }, "\(problems)")
    #expect(problems.contains { $0.hasPrefix(#"tasks {"id":7}: the table has {"#) }, "\(problems)")
  }

  /// Two rows whose values were swapped: the same rows, under the wrong keys.
  @Test func rowsSwappedBetweenKeysAreNamed() throws {
    let directory = try TemporaryDirectory()
    let path = try healthyFile(in: directory)
    let problems = try problems(
      after: """
        UPDATE tasks SET title = CASE id WHEN 1 THEN 'Three' ELSE 'One' END WHERE id IN (1, 3)
        """, on: path)
    #expect(problems.count == 2, "\(problems)")
    #expect(problems.first?.hasPrefix(#"tasks {"id":1}"#) == true, "in key order: \(problems)")
    #expect(problems.last?.hasPrefix(#"tasks {"id":3}"#) == true, "in key order: \(problems)")
  }
}
