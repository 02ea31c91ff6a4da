import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// `verify` replays the undo and redo stacks from the log and compares them with `undo_steps`:
/// a step deleted, flipped or cut short by hand is found, where before such a file verified
/// healthy and undo then skipped or mangled the step.
@MainActor
struct UndoStackVerifyTests {
  /// A history that walks every rule: a grouped step, an undo and a redo, a redo stack dropped
  /// by a new action, a jump (a step of its own), a repair joining it, and a step left undone.
  func makeHistory(_ path: String) throws {
    let store = try TasksStore.tasks(path: path)
    try store.send(.add(title: "A"))  // step 2
    try store.send(.add(title: "B"))  // step 3
    try store.send(.append(id: 1, text: "x"))  // step 4, grouped
    try store.send(.append(id: 1, text: "y"))  // joins step 4
    try store.undo()  // step 4 undone
    try store.redo()  // step 4 done again
    try store.send(.add(title: "C"))  // step 8
    try store.undo()  // step 8 undone...
    try store.send(.select(id: 3))  // view only: the redo stack stays
    try store.send(.rename(id: 2, title: "Bee"))  // ...and dropped here
    try store.send(.select(id: 2))
    // A step of its own; its repair clears the selection of a task that is gone.
    try store.jump(to: 2, timeline: .document)
    try store.send(.add(title: "D"))
    try store.send(.select(id: 4))
    try store.undo()  // its repair clears the selection of D, and joins the undo's application
  }

  @Test func aHistoryOfEveryKindVerifiesHealthy() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    try makeHistory(path)
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(report.problems == [])
    #expect(report.passed.contains("undo_steps: the undo and redo stacks are the ones the log built"))
    // The history holds what the rules are about.
    let queue = try DatabaseQueue(path: path)
    func count(_ sql: String) throws -> Int { try queue.read { db in try Int.fetchOne(db, sql: sql) ?? 0 } }
    #expect(try count("SELECT count(*) FROM undo_steps WHERE undone = 1") == 1)
    #expect(try count("SELECT count(*) FROM undo_steps WHERE group_key IS NOT NULL") == 1)
    #expect(try count("SELECT count(*) FROM action_log WHERE kind = 'repair' AND step IS NOT NULL") == 1)
    #expect(try count("SELECT count(*) FROM undo_steps WHERE id = 8") == 0)
    #expect(try count("SELECT count(*) FROM undo_steps WHERE undone = 1 AND applied_to = applied_from + 1") == 1)
  }

  @Test(arguments: [
    ("DELETE FROM undo_steps WHERE id = 3", "undo_steps: step 3 (seq 3 to 3) is missing"),
    ("DELETE FROM undo_steps WHERE undone = 1", "is missing, so undo would skip it"),
    ("UPDATE undo_steps SET undone = 1 WHERE id = 2", "undo_steps: step 2 is marked undone"),
    ("UPDATE undo_steps SET undone = 0 WHERE undone = 1", "is marked done, but the log undid it last"),
    ("UPDATE undo_steps SET last_seq = 4 WHERE id = 4", "step 4 ends at seq 4, but its last entry is seq 5"),
    ("UPDATE undo_steps SET group_key = NULL WHERE id = 4", "undo_steps: step 4 has group key NULL"),
    ("UPDATE undo_steps SET applied_to = 6 WHERE id = 4", "step 4 says its latest application is seq 7 to 6"),
    ("UPDATE undo_steps SET applied_from = 2, applied_to = 2 WHERE id = 2", "its latest application is seq 2 to 2"),
    ("INSERT INTO undo_steps (id, last_seq) VALUES (8, 8)", "undo_steps: step 8 is in the table, but no entry"),
    ("UPDATE action_log SET step = 2 WHERE seq = 3", "undo_steps: step 3 is in the table, but no entry"),
    (#"UPDATE action_log SET payload = '{"step":5}' WHERE seq = 6"#, "moves undo step 5, which no earlier"),
    ("UPDATE action_log SET payload = '{}' WHERE seq = 7", "action_log seq 7 (redo) names no step in its payload"),
    ("UPDATE action_log SET payload = 'not json' WHERE seq = 7", "seq 7 (redo) names no step in its payload"),
    (#"UPDATE action_log SET payload = '{"step":"4"}' WHERE seq = 7"#, "seq 7 (redo) names no step in its payload"),
    (#"UPDATE action_log SET payload = '{"step":2}' WHERE seq = 6"#, "step 2, where the undo stack's top is step 4"),
  ])
  func aStackChangedByHandIsFound(sql: String, problem: String) throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    try makeHistory(path)
    try DatabaseQueue(path: path).write { db in try db.execute(sql: sql) }
    let before = try dump(path)
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(report.problems.contains { $0.contains(problem) }, "\(sql): \(report.problems)")
    #expect(!report.passed.contains { $0.hasPrefix("undo_steps:") })
    #expect(try dump(path) == before, "verify changed the file")
    // Compaction refuses to fold a damaged history into a base.
    #expect(throws: RewindError.self) { try RewindDatabase(path: path).compact(keep: 0) }
    #expect(try dump(path) == before, "a refused compaction changed the file")
  }

  @Test func compactionKeepsTheStacksTheLogBuilt() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    try makeHistory(path)
    let database = try RewindDatabase(path: path)
    for keep in [12, 6, 2, 0] {
      _ = try database.compact(keep: keep)
      #expect(try database.verify().problems == [], "after compact --keep \(keep)")
    }
    // The store goes on undoing and redoing what is left, and the stacks still verify.
    let store = try TasksStore.tasks(path: path)
    try store.redo()
    try store.send(.append(id: 2, text: "z"))
    try store.undo()
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }
}
