import Foundation
import GRDB
import Testing

@testable import Rewind

@MainActor
@Suite struct PlannerEdgeTests {
  @Test func documentJumpToZeroRepairsSelectionAndUndoBringsItBack() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let store = try openPlanner(path)
    try seedPlanner(store)
    try store.send(.select("evt-1"))
    try store.send(.present(.edit(id: "evt-2", draft: "d")))
    let before = PlannerPlain(store.state)
    try store.jump(to: 0, timeline: .document)
    #expect(store.state.events.isEmpty)
    #expect(store.state.view.selection == nil)
    #expect(store.state.view.sheet == nil)
    try expectReopenMatches(store, path, "after document jump to 0")
    try store.undo()
    #expect(PlannerPlain(store.state) == before)
    try expectReopenMatches(store, path, "after undo")
    try store.redo()
    #expect(store.state.view.selection == nil)
    #expect(store.state.events.isEmpty)
    try expectReopenMatches(store, path, "after redo")
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
  }

  @Test func viewJumpToZeroThenDefaults() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let store = try openPlanner(path)
    try seedPlanner(store)
    try store.send(.setMode(.day))
    try store.send(.agenda(.setFilter(.starred)))
    try store.jump(to: 0, timeline: .view)
    #expect(store.state.view == PlannerView())
    #expect(store.state.agenda.view == AgendaView())
    #expect(store.state.events.count == 3)
    try expectReopenMatches(store, path)
    // Setting a default-valued property back and forth.
    try store.send(.setMode(.week))
    try store.send(.setMode(.day))
    try store.jump(to: 1, timeline: .view)
    #expect(store.state.view.mode == .week)
    try expectReopenMatches(store, path, "after jump to 1")
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
  }

  @Test func readOnlyStoreRefusesWritesAndReloadsOthers() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let writer = try openPlanner(path)
    try seedPlanner(writer)
    let viewer = try openPlanner(path, readOnly: true)
    let shown = PlannerPlain(viewer.state)
    for body: () throws -> Int64? in [
      { try viewer.send(.select("evt-1")) }, { try viewer.undo() }, { try viewer.redo() },
      { try viewer.jump(to: 2) },
    ] {
      expectRewindError(.readOnly) { try body() }
      #expect(PlannerPlain(viewer.state) == shown)
    }
    try writer.send(.deleteCalendar(id: "cal-work"))
    try viewer.reload()
    #expect(PlannerPlain(viewer.state) == PlannerPlain(writer.state))
  }

  @Test func compactionUnderAnOpenStore() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let store = try openPlanner(path)
    try seedPlanner(store)
    try store.send(.typeTitle(id: "evt-3", text: "!"))
    try store.send(.deleteEvent(id: "evt-2"))
    let state = PlannerPlain(store.state)
    let report = try RewindDatabase(path: path).compact(keep: 2)
    #expect(report.baseSeq > 2)
    // The store did not reload: its next history operation catches up.
    expectRewindError(.unknownSeq) { try store.jump(to: 2) }
    #expect(PlannerPlain(store.state) == state)
    try store.undo()  // the delete: after the base
    #expect(store.state.events["evt-2"] != nil)
    var undos = 0
    while try store.undo() != nil {
      undos += 1
      if undos > 20 { break }
    }
    #expect(undos <= 2)
    try expectReopenMatches(store, path, "after undos to the base")
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
  }

  @Test func ownerInTheOtherUnicodeSpelling() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let store = try openPlanner(path)
    try store.send(.addCalendar(id: "cal-Caf\u{E9}", name: "composed"))
    // The reducer finds the calendar under the decomposed spelling (Swift's equality): the
    // event's calendarId and the list owner are in other bytes than the calendar's key.
    let memory = PlannerPlain(store.state)
    let file = try dump(path)
    // The event's calendarId names no calendar in SQLite's bytes: refused, naming the spelling.
    let error = expectRewindError(.relationViolation) {
      try store.send(.addEvent(id: "evt-1", calendar: "cal-Cafe\u{301}", title: "x", start: 0))
    }
    #expect(error?.message.contains("Unicode normalization") == true, "\(String(describing: error))")
    #expect(PlannerPlain(store.state) == memory)
    #expect(try dump(path) == file)
  }

  @Test func exportAtZeroImportedIntoTheApp() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let store = try openPlanner(path)
    try seedPlanner(store)
    try store.send(.setMode(.day))
    let before = PlannerPlain(store.state)
    let db = try RewindDatabase(path: path)
    let empty = try db.export(at: 0)
    #expect(try db.importState(empty) != nil)
    try store.reload()
    #expect(PlannerPlain(store.state) == PlannerPlain(PlannerState()))
    try expectReopenMatches(store, path, "after importing seq 0")
    try store.undo()
    #expect(PlannerPlain(store.state) == before)
    try expectReopenMatches(store, path, "after undo of import")
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
  }

  @Test func toolRestoreOfViewAloneIsNotAnUndoStep() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let store = try openPlanner(path)
    try seedPlanner(store)
    try store.send(.typeTitle(id: "evt-1", text: "!"))
    try store.send(.setMode(.month(1)))
    _ = try RewindDatabase(path: path).restore(to: 1, timeline: .view)
    try store.reload()
    #expect(store.state.view == PlannerView())
    // README: "a restore of the view state alone is not [an undo step]: undo then reverts the step before it".
    try store.undo()
    #expect(store.state.events["evt-1"]?.title == "Standup")
    #expect(store.state.view.mode == .week)
    try expectReopenMatches(store, path)
  }

  @Test func stepAcrossTwoStoresWithStaleMemory() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let a = try openPlanner(path)
    try seedPlanner(a)
    let b = try openPlanner(path)
    // a deletes a calendar (cascade), b (stale) reorders an event in it: the reducer sees the
    // current state after catching up, so the reorder finds nothing.
    try a.send(.deleteCalendar(id: "cal-work"))
    let seq = try b.send(.reorder(id: "evt-2", to: 0))
    #expect(seq == nil)
    #expect(PlannerPlain(b.state) == PlannerPlain(a.state))
    // b undoes a's delete: everything back, in place.
    try b.undo()
    #expect(b.state.calendarEvents["cal-work"].ids == ["evt-1", "evt-2"])
    #expect(b.state.eventAttendees["evt-1"].ids == ["att-1"])
    #expect(b.state.events["evt-1"]?.venueID == "ven-1")
    try expectReopenMatches(b, path)
    try a.send(.reorder(id: "evt-2", to: 0))
    #expect(a.state.calendarEvents["cal-work"].ids == ["evt-2", "evt-1"])
    try expectReopenMatches(a, path)
  }

  @Test func toolRestoreLeavesSelectionDanglingAndTheAppsRepairJoinsItsStep() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let store = try openPlanner(path)
    try store.send(.addCalendar(id: "cal-a", name: "A"))
    let early = store.lastSeq
    try store.send(.addEvent(id: "evt-1", calendar: "cal-a", title: "One", start: 1))
    try store.send(.present(.edit(id: "evt-1", draft: "d")))
    let before = PlannerPlain(store.state)
    // The tool has no app code: a document restore leaves the selection and sheet dangling.
    #expect(try RewindDatabase(path: path).restore(to: early, timeline: .document) != nil)
    try store.reload()
    #expect(store.state.events.isEmpty)
    #expect(store.state.view.selection == nil)
    #expect(store.state.view.sheet == nil)
    try expectReopenMatches(store, path, "after repair on reload")
    // One undo: the restore and the repair that joined it.
    try store.undo()
    #expect(PlannerPlain(store.state) == before)
    try expectReopenMatches(store, path, "after undo")
    try store.redo()
    #expect(store.state.view.selection == nil)
    try expectReopenMatches(store, path, "after redo")
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
  }
}
