import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

// Seqs in the log are consecutive, compaction removing only a prefix. An entry removed by hand
// (or a base_seq removed after a compaction) leaves a gap: every walk of the log across it
// (restore, export at a seq, jump, undo, another store catching up) refuses, naming the missing
// seq, and changes nothing. They used to skip it and build a state that never was.
@MainActor
struct LogGapTests {
  /// A file of six actions, seqs 1 to 6 after the file's creation entries.
  func sixActions(_ path: String) throws -> (store: TasksStore, first: Int64) {
    let store = try TasksStore.tasks(path: path)
    var first: Int64?
    for title in ["a", "b", "c"] {
      let seq = try store.send(.add(title: title))
      first = first ?? seq
    }
    try store.send(.row(id: 1, action: .toggle))
    try store.send(.row(id: 2, action: .rename("B")))
    try store.send(.add(title: "d"))
    return (store, first!)
  }

  func expectGap(at missing: Int64, _ body: () throws -> Void) {
    let error = #expect(throws: RewindError.self) { try body() }
    #expect(error?.code == .corruptData)
    #expect(error?.message.contains("action_log has no entry at seq \(missing)") == true, "\(error?.message ?? "")")
  }

  @Test func anEntryRemovedByHandIsAGapEveryWalkRefuses() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let (store, first) = try sixActions(path)
    let missing = first + 2  // the add of "c"
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "DELETE FROM action_log WHERE seq = ?", arguments: [missing])
    }
    let before = try dump(path)
    let database = try RewindDatabase(path: path)
    expectGap(at: missing) { _ = try database.restore(to: first) }
    expectGap(at: missing) { _ = try database.export(at: first) }
    expectGap(at: missing) { _ = try store.jump(to: first) }
    #expect(try dump(path) == before)
    // The store's memory is still the file's.
    #expect(store.state == (try TasksStore.tasks(path: path, readOnly: true).state))
    #expect(try database.verify().problems.isEmpty == false)
  }

  @Test func anUndoStepMissingAnEntryIsRefused() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let (store, _) = try sixActions(path)
    let last = store.lastSeq
    try DatabaseQueue(path: path).write { db in
      // A grouped step of two entries, its first removed.
      try db.execute(sql: "UPDATE action_log SET step = ? WHERE seq = ?", arguments: [last - 1, last])
      try db.execute(sql: "UPDATE undo_steps SET last_seq = ? WHERE id = ?", arguments: [last, last - 1])
      try db.execute(sql: "DELETE FROM undo_steps WHERE id = ?", arguments: [last])
      try db.execute(sql: "DELETE FROM action_log WHERE seq = ?", arguments: [last - 1])
    }
    let before = try dump(path)
    expectGap(at: last - 1) { _ = try RewindDatabase(path: path).undo() }
    #expect(try dump(path) == before)
  }

  @Test func aStoreCatchingUpAcrossAGapRefusesToSend() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let (store, _) = try sixActions(path)
    let other = try TasksStore.tasks(path: path)
    let seen = store.lastSeq
    try other.send(.add(title: "e"))
    try other.send(.add(title: "f"))
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "DELETE FROM action_log WHERE seq = ?", arguments: [seen + 1])
    }
    let before = try dump(path)
    expectGap(at: seen + 1) { try store.send(.add(title: "g")) }
    #expect(try dump(path) == before)
  }

  @Test func aBaseSeqRemovedAfterACompactionIsAGapToo() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let (_, first) = try sixActions(path)
    let database = try RewindDatabase(path: path)
    _ = try database.compact(keep: 2)
    let base = try DatabaseQueue(path: path).read { db in
      try Int64.fetchOne(db, sql: "SELECT value FROM rewind_meta WHERE key = 'base_seq'")
    }
    #expect(base.map { $0 > first } == true)
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "DELETE FROM rewind_meta WHERE key = 'base_seq'")
    }
    let before = try dump(path)
    let error = #expect(throws: RewindError.self) { _ = try RewindDatabase(path: path).restore(to: first) }
    #expect(error?.code == .corruptData)
    #expect(error?.message.contains("action_log has no entry at seq") == true, "\(error?.message ?? "")")
    #expect(throws: RewindError.self) { _ = try RewindDatabase(path: path).export(at: first) }
    #expect(try dump(path) == before)
  }
}

/// An entry compaction folded is named as such, by `entry` (the tool's UI asks it) as by
/// exports and jumps; a seq past the log is unknown.
@MainActor
struct CompactedEntryTests {
  @Test func anEntryCompactedAwayIsNamedSo() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let (_, first) = try LogGapTests().sixActions(path)
    let database = try RewindDatabase(path: path)
    _ = try database.compact(keep: 2)
    for body in [{ _ = try database.entry(first) }, { _ = try database.export(at: first) }] {
      let error = #expect(throws: RewindError.self) { try body() }
      #expect(error?.code == .unknownSeq)
      #expect(
        error?.message.contains("was compacted away: history starts after seq") == true, "\(error?.message ?? "")")
    }
    let error = #expect(throws: RewindError.self) { _ = try database.entry(999) }
    #expect(error?.message.contains("there is no entry 999 in the log") == true)
  }
}
