import Foundation
import GRDB
import Testing

@testable import Rewind

@MainActor
@Suite struct PlannerToolAndFileTests {
  /// Sends `action` and records the state at its seq.
  func send(_ store: PlannerStore, _ action: PlannerAction, _ states: inout [Int64: PlannerPlain]) throws {
    try store.send(action)
    states[store.lastSeq] = PlannerPlain(store.state)
  }

  @Test func rewindToolOnTheAppsFile() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let store = try openPlanner(path)
    var states: [Int64: PlannerPlain] = [0: PlannerPlain(PlannerState()), 1: PlannerPlain(PlannerState())]
    for action: PlannerAction in [
      .addCalendar(id: "cal-work", name: "Work"), .addCalendar(id: "cal-home", name: "Home"),
      .addVenue(id: "ven-1", name: "Office"),
      .addEvent(id: "evt-1", calendar: "cal-work", title: "Standup", start: 900),
      .addEvent(id: "evt-2", calendar: "cal-work", title: "Review", start: 1400),
      .addAttendee(id: "att-1", event: "evt-1", name: "Ann"), .setVenue(event: "evt-1", venue: "ven-1"),
      .sync(id: "evt-2", version: 4), .setMode(.month(2)), .agenda(.setQuery("x")),
      .typeTitle(id: "evt-1", text: "!"),
    ] {
      try send(store, action, &states)
    }
    let typed = store.lastSeq
    // The tool's undo while the app has the file open: reverts the typing.
    var result = try runRewindTool(["undo", path])
    #expect(result.status == 0, "\(result.err)")
    #expect(result.out.contains("undo: reverted typeTitle"), "\(result.out)")
    try store.reload()
    #expect(store.state.events["evt-1"]?.title == "Standup")
    var expected = states[typed]!
    expected.events["evt-1"]?.title = "Standup"
    #expect(PlannerPlain(store.state) == expected)
    try expectReopenMatches(store, path, "after tool undo")

    // restore --to a seq with both calendars and no events.
    result = try runRewindTool(["restore", path, "--to", "4"])
    #expect(result.status == 0, "\(result.err)")
    try store.reload()
    #expect(PlannerPlain(store.state) == states[4]!, "\(PlannerPlain(store.state))")
    try expectReopenMatches(store, path, "after restore --to 4")
    // The app writes without reloading first: a second store that did not see the restore.
    let other = try openPlanner(path)
    try store.send(.addEvent(id: "evt-9", calendar: "cal-home", title: "Gym", start: 600))
    try other.send(.sync(id: "evt-9", version: 1))
    #expect(other.state.events["evt-9"]?.syncVersion == 1)
    try store.reload()
    #expect(PlannerPlain(store.state) == PlannerPlain(other.state))

    // Snapshot, more writes, restore the snapshot.
    result = try runRewindTool(["snapshot", path, "--label", "mark"])
    #expect(result.status == 0, "\(result.err)")
    let atMark = PlannerPlain(store.state)
    try store.send(.deleteCalendar(id: "cal-home"))
    result = try runRewindTool(["restore", path, "--snapshot", "mark"])
    #expect(result.status == 0, "\(result.err)")
    try store.reload()
    #expect(PlannerPlain(store.state) == atMark)
    try expectReopenMatches(store, path, "after restore --snapshot")

    // Export a past seq, import it: the app then shows that state.
    let exportPath = dir.path("at7.json")
    result = try runRewindTool(["export", path, "--at", "7", "-o", exportPath])
    #expect(result.status == 0, "\(result.err)")
    result = try runRewindTool(["import", path, exportPath])
    #expect(result.status == 0, "\(result.err)")
    try store.reload()
    #expect(PlannerPlain(store.state) == states[7]!, "\(PlannerPlain(store.state))\n\(states[7]!)")
    try expectReopenMatches(store, path, "after import")
    // The import is undoable, from the app.
    try store.undo()
    #expect(PlannerPlain(store.state) == atMark)
    try expectReopenMatches(store, path, "after app undo of import")

    result = try runRewindTool(["verify", path])
    #expect(result.status == 0, "\(result.out)\(result.err)")
    #expect(result.out.contains("is healthy"))

    // Compaction, then the app: the same state, undo stops at the base, old seqs refused.
    let beforeCompact = PlannerPlain(store.state)
    result = try runRewindTool(["compact", path, "--keep", "3"])
    #expect(result.status == 0, "\(result.out)\(result.err)")
    #expect(PlannerPlain(try openPlanner(path).state) == beforeCompact)
    try store.reload()
    #expect(PlannerPlain(store.state) == beforeCompact)
    expectRewindError(.unknownSeq) { try store.jump(to: 3) }
    var undos = 0
    while try store.undo() != nil {
      undos += 1
      if undos > 50 { break }
    }
    #expect(undos < 50)
    try expectReopenMatches(store, path, "after undos past compaction")
    result = try runRewindTool(["verify", path])
    #expect(result.status == 0, "\(result.out)\(result.err)")
  }

  @Test func toolErrorsChangeNothing() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    do {
      let store = try openPlanner(path)
      try seedPlanner(store)
    }
    let before = try dump(path)
    for args in [
      ["restore", path, "--to", "999"], ["restore", path, "--to", "-1"], ["restore", path, "--snapshot", "nope"],
      ["import", path, dir.path("missing.json")],
    ] {
      let result = try runRewindTool(args)
      #expect(result.status != 0, "\(args)")
      #expect(!result.err.isEmpty, "\(args)")
    }
    // A malformed import: an event in a calendar that does not exist.
    var export = try RewindDatabase(path: path, readOnly: true).export()
    #expect(export.contains("\"calendarId\":\"cal-home\""), "\(export)")
    export = export.replacingOccurrences(of: "\"calendarId\":\"cal-home\"", with: "\"calendarId\":\"cal-nowhere\"")
    let bad = dir.path("bad.json")
    try export.write(toFile: bad, atomically: true, encoding: .utf8)
    let result = try runRewindTool(["import", path, bad])
    #expect(result.status != 0, "\(result.out)")
    #expect(try dump(path) == before)
  }

  // MARK: - Tampered files

  @Test func deletedListedRowIsRefusedOnOpen() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    do { try seedPlanner(try openPlanner(path)) }
    let queue = try DatabaseQueue(path: path)
    try queue.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA foreign_keys = OFF")
      try db.execute(sql: "DELETE FROM events WHERE id = 'evt-2'")
    }
    try queue.close()
    let before = try dump(path)
    let error = expectRewindError(.corruptData) { try openPlanner(path) }
    #expect(error?.message.contains("evt-2") == true, "\(String(describing: error))")
    #expect(try dump(path) == before)
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(!report.isHealthy)
  }

  @Test func deletedAttendeeParentIsRefusedOnOpen() throws {
    // An attendee whose event was deleted by hand: the foreign key no longer holds.
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    do {
      let store = try openPlanner(path)
      try seedPlanner(store)
      try store.send(.star(id: "evt-1"))
    }
    let queue = try DatabaseQueue(path: path)
    try queue.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA foreign_keys = OFF")
      try db.execute(sql: "DELETE FROM list_entries WHERE id = 'evt-1'")
      try db.execute(sql: "DELETE FROM events WHERE id = 'evt-1'")
    }
    try queue.close()
    let before = try dump(path)
    // Either refused on open, or verify finds it: the attendee names a missing event.
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(!report.isHealthy)
    do {
      let store = try openPlanner(path)
      Issue.record("opened a file whose attendees name a missing event: \(PlannerPlain(store.state))")
    } catch let error as RewindError {
      #expect(error.message.contains("att-1") || error.message.contains("evt-1"), "\(error)")
    }
    #expect(try dump(path) == before)
  }

  @Test func editedTitleOpensAndVerifyNamesIt() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    do { try seedPlanner(try openPlanner(path)) }
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in try db.execute(sql: "UPDATE events SET title = 'hacked' WHERE id = 'evt-1'") }
    try queue.close()
    let store = try openPlanner(path)
    #expect(store.state.events["evt-1"]?.title == "hacked")
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(!report.isHealthy)
    #expect(report.problems.contains { $0.contains("evt-1") && $0.contains("hacked") }, "\(report.problems)")
  }

  @Test func undecodableViewRowLoadsDefaultAndIsRepairedThroughTheLog() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    do {
      let store = try openPlanner(path)
      try seedPlanner(store)
      try store.send(.setMode(.month(4)))
      try store.send(.agenda(.setFilter(.starred)))
    }
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in
      try db.execute(sql: #"UPDATE view_state SET value = '{"fortnight":{}}' WHERE path = 'mode'"#)
      try db.execute(sql: #"UPDATE view_state SET value = '42' WHERE path = 'agenda.filter'"#)
    }
    try queue.close()
    let lastBefore = try RewindDatabase(path: path, readOnly: true).position().lastSeq
    let store = try openPlanner(path)
    #expect(store.state.view.mode == .week)
    #expect(store.state.agenda.view.filter == .all)
    #expect(store.lastSeq > lastBefore)
    try expectReopenMatches(store, path)
  }

  @Test func missingLogEntryRefusesJumpsAcrossIt() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    do { try seedPlanner(try openPlanner(path)) }
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in try db.execute(sql: "DELETE FROM action_log WHERE seq = 5") }
    try queue.close()
    let before = try dump(path)
    // The state is in the tables: the app opens; only what reads the log across the gap fails.
    let store = try openPlanner(path)
    let memory = PlannerPlain(store.state)
    let error = expectRewindError(.corruptData) { try store.jump(to: 3) }
    #expect(error?.message.contains("5") == true)
    #expect(PlannerPlain(store.state) == memory)
    #expect(try dump(path) == before)
    expectRewindError(.corruptData) { try RewindDatabase(path: path).restore(to: 2) }
    #expect(try dump(path) == before)
  }

  @Test func wrongTypeInEngineColumnIsNamed() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    do { try seedPlanner(try openPlanner(path)) }
    let queue = try DatabaseQueue(path: path)
    try queue.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
      try db.execute(sql: "UPDATE undo_steps SET undone = 'maybe'")
    }
    try queue.close()
    let before = try dump(path)
    let error = expectRewindError(.corruptData) { try openPlanner(path) }
    #expect(error?.message.contains("undo_steps") == true, "\(String(describing: error))")
    #expect(error?.message.contains("undone") == true, "\(String(describing: error))")
    #expect(try dump(path) == before)
  }

  @Test func editedSnapshotIsRefusedWhereUsed() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    do { try seedPlanner(try openPlanner(path)) }
    _ = try RewindDatabase(path: path).snapshot(label: "s")
    do {
      let store = try openPlanner(path)
      try store.send(.deleteCalendar(id: "cal-work"))
    }
    let queue = try DatabaseQueue(path: path)
    // A snapshot's rows are in its parts (`snapshots.rows` is empty when it has parts).
    let changed = try queue.write { db -> Int in
      try db.execute(sql: "UPDATE snapshot_parts SET rows = replace(rows, 'Standup', 'Sitdown')")
      try db.execute(sql: "UPDATE snapshots SET rows = replace(rows, 'Standup', 'Sitdown')")
      return try Int.fetchOne(db, sql: "SELECT total_changes()")!
    }
    try queue.close()
    try #require(changed > 0, "the edit must reach the snapshot's rows")
    let before = try dump(path)
    expectRewindError(.corruptData) { try RewindDatabase(path: path).restore(snapshot: "s") }
    #expect(try dump(path) == before)
    #expect(!(try RewindDatabase(path: path, readOnly: true).verify().isHealthy))
  }
}
