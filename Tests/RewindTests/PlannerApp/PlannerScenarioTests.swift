import Foundation
import GRDB
import Testing

@testable import Rewind

@MainActor
@Suite struct PlannerScenarioTests {
  @Test func cascadesAndSetNullAreOneUndoableStep() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let store = try openPlanner(path)
    try seedPlanner(store)
    try expectReopenMatches(store, path, "after seed")
    let before = PlannerPlain(store.state)
    // Delete the venue: evt-1's venue becomes nil.
    try store.send(.deleteVenue(id: "ven-1"))
    #expect(store.state.events["evt-1"]?.venueID == nil)
    try expectReopenMatches(store, path, "after set-null")
    try store.undo()
    #expect(PlannerPlain(store.state) == before)
    // Delete the work calendar: its events, their attendees, lists go.
    try store.send(.select("evt-2"))
    try store.send(.star(id: "evt-1"))
    try store.send(.present(.edit(id: "evt-1", draft: "x")))
    let beforeDelete = PlannerPlain(store.state)
    let seq = try store.send(.deleteCalendar(id: "cal-work"))
    #expect(seq != nil)
    #expect(store.state.events.count == 1)
    #expect(store.state.attendees.isEmpty)
    #expect(store.state.starred.isEmpty)
    #expect(store.state.calendarEvents["cal-work"].isEmpty)
    #expect(store.state.eventAttendees["evt-1"].isEmpty)
    // The cascade took what the view pointed at: repaired in the same step.
    #expect(store.state.view.selection == nil)
    #expect(store.state.view.sheet == nil)
    try expectReopenMatches(store, path, "after cascade")
    try store.undo()
    #expect(PlannerPlain(store.state) == beforeDelete)
    try expectReopenMatches(store, path, "after undo of cascade")
    try store.redo()
    #expect(store.state.events.count == 1)
    try expectReopenMatches(store, path, "after redo of cascade")
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
  }

  @Test func scopedFeatureWritesUnderItsPrefix() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let store = try openPlanner(path)
    try store.send(.agenda(.setQuery("lunch")))
    try store.send(.agenda(.setFilter(.calendar("cal-x"))))
    try store.send(.setMode(.month(3)))
    let paths = try DatabaseQueue(path: path).read { db in
      try String.fetchAll(db, sql: "SELECT path FROM view_state ORDER BY path")
    }
    #expect(paths.contains("agenda.query"))
    #expect(paths.contains("agenda.filter"))
    #expect(!paths.contains("agenda.focus"))
    #expect(paths.contains("mode"))
    // View-only: nothing to undo.
    #expect(!store.canUndo)
    try expectReopenMatches(store, path)
  }

  // MARK: - Two stores on one file

  @Test func undoInOneStoreKeepsTheOtherStoresSync() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let a = try openPlanner(path)
    try seedPlanner(a)
    let b = try openPlanner(path)
    try a.send(.typeTitle(id: "evt-2", text: "!"))
    try b.send(.sync(id: "evt-2", version: 7))  // non-undoable, another writer
    try a.undo()  // reverts the title, not the version
    #expect(a.state.events["evt-2"]?.title == "Review")
    #expect(a.state.events["evt-2"]?.syncVersion == 7)
    try b.reload()
    #expect(PlannerPlain(b.state) == PlannerPlain(a.state))
    try expectReopenMatches(a, path)
    try a.redo()
    #expect(a.state.events["evt-2"]?.title == "Review!")
    #expect(a.state.events["evt-2"]?.syncVersion == 7)
    try expectReopenMatches(a, path)
  }

  @Test func undoOfAddCalendarIsRefusedWhenAnotherStoreSyncedAnEventIntoIt() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let a = try openPlanner(path)
    try seedPlanner(a)
    let b = try openPlanner(path)
    try a.send(.addCalendar(id: "cal-new", name: "New"))
    try b.send(.syncAddEvent(id: "evt-sync", calendar: "cal-new"))
    let fileBefore = try dump(path)
    expectRewindError(.conflict) { try a.undo() }
    #expect(try dump(path) == fileBefore)
    // a caught up with b inside its failed write: memory is the file.
    try expectReopenMatches(a, path)
    #expect(a.state.events["evt-sync"] != nil)
  }

  @Test func groupedTypingInterleavedWithOtherStoresSync() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let a = try openPlanner(path)
    try seedPlanner(a)
    let b = try openPlanner(path)
    try a.send(.typeTitle(id: "evt-1", text: "a"))
    try b.send(.sync(id: "evt-1", version: 3))
    try a.send(.typeTitle(id: "evt-1", text: "b"))
    try b.send(.select("evt-3"))
    try a.send(.typeTitle(id: "evt-1", text: "c"))
    #expect(a.state.events["evt-1"]?.title == "Standupabc")
    try b.undo()  // the file's stack: a's group, from b
    #expect(b.state.events["evt-1"]?.title == "Standup")
    #expect(b.state.events["evt-1"]?.syncVersion == 3)
    #expect(b.state.view.selection == "evt-3")
    try a.reload()
    #expect(PlannerPlain(a.state) == PlannerPlain(b.state))
    try expectReopenMatches(b, path)
  }

  // MARK: - Jumps

  @Test func jumpToZeroAndOneAndBackWithNonUndoableBetween() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let store = try openPlanner(path)
    try seedPlanner(store)
    try store.send(.setMode(.day))
    try store.send(.agenda(.setQuery("q")))
    try store.send(.sync(id: "evt-1", version: 5))
    let latest = PlannerPlain(store.state)
    let last = store.lastSeq
    // Seq 0: the empty state before the file was created.
    let j0 = try store.jump(to: 0)
    #expect(j0 != nil)
    #expect(PlannerPlain(store.state) == PlannerPlain(PlannerState()))
    try expectReopenMatches(store, path, "after jump 0")
    // Seq 1: the initial state, the same as seq 0 for this app: nothing changes.
    let j1 = try store.jump(to: 1)
    #expect(j1 == nil)
    #expect(PlannerPlain(store.state) == PlannerPlain(PlannerState()))
    try expectReopenMatches(store, path, "after jump 1")
    // A view-only action, then undo the jump: the view-only change made since is kept.
    try store.send(.setZoom(2))
    try store.undo()
    var expected = latest
    expected.view.zoom = 2  // view-only, made after the jump: kept
    #expect(PlannerPlain(store.state) == expected)
    try expectReopenMatches(store, path, "after undo of jump 0")
    try store.redo()
    var empty = PlannerPlain(PlannerState())
    empty.view.zoom = 2
    #expect(PlannerPlain(store.state) == empty)
    try expectReopenMatches(store, path, "after redo of jump 0")
    // Jump to the last seq before the jumps: the view is as then.
    try store.jump(to: last)
    #expect(PlannerPlain(store.state) == latest)
    try expectReopenMatches(store, path, "after jump to last")
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
  }

  @Test func documentAndViewTimelinesSeparately() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let store = try openPlanner(path)
    try seedPlanner(store)  // selection evt-3 at the end (addEvent selects)
    let afterSeed = store.lastSeq
    let seedState = PlannerPlain(store.state)
    try store.send(.deleteEvent(id: "evt-3"))  // clears the selection
    try store.send(.setMode(.month(12)))
    try store.send(.agenda(.focus("evt-1")))
    // The document as after the seed; the view stays.
    try store.jump(to: afterSeed, timeline: .document)
    #expect(store.state.events["evt-3"] != nil)
    #expect(store.state.view.mode == .month(12))
    #expect(store.state.view.selection == nil)
    try expectReopenMatches(store, path, "document jump")
    // The view as after the seed: selection evt-3 (exists again), mode week.
    try store.jump(to: afterSeed, timeline: .view)
    #expect(PlannerPlain(store.state) == seedState)
    try expectReopenMatches(store, path, "view jump")
    // The view jump is not an undo step: undo reverts the document jump.
    try store.undo()
    #expect(store.state.events["evt-3"] == nil)
    // The selection of evt-3 is repaired away.
    #expect(store.state.view.selection == nil)
    try expectReopenMatches(store, path, "undo of document jump")
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
  }

  // MARK: - Bad values

  @MainActor
  func refused(
    _ code: RewindError.Code, _ action: PlannerAction, store: PlannerStore, path: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let memory = PlannerPlain(store.state)
    let file = try dump(path)
    let lastSeq = store.lastSeq
    let error = expectRewindError(code, sourceLocation: sourceLocation) { try store.send(action) }
    if let error { #expect(!error.message.isEmpty, sourceLocation: sourceLocation) }
    #expect(PlannerPlain(store.state) == memory, "memory changed by \(action)", sourceLocation: sourceLocation)
    #expect(try dump(path) == file, "file changed by \(action)", sourceLocation: sourceLocation)
    #expect(store.lastSeq == lastSeq, sourceLocation: sourceLocation)
    try expectReopenMatches(store, path, "after refused \(action)", sourceLocation: sourceLocation)
  }

  @Test func badValuesAreRefusedWithNothingChanged() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let store = try openPlanner(path)
    try seedPlanner(store)
    try refused(.invalidValue, .setWeight(id: "evt-1", weight: .nan), store: store, path: path)
    try refused(.invalidValue, .setZoom(.nan), store: store, path: path)
    try refused(.invalidValue, .setZoom(.infinity), store: store, path: path)
    try refused(.invalidValue, .typeTitle(id: "evt-1", text: "a\u{0}b"), store: store, path: path)
    // NaN computed by the reducer into an entity's REAL column (SQLite would store NULL).
    try refused(.invalidValue, .computeWeight(id: "evt-1", numerator: 0, denominator: 0), store: store, path: path)
    try refused(.invalidValue, .addCalendar(id: "cal-\u{0}", name: "x"), store: store, path: path)
    try refused(
      .relationViolation, .insertRaw(PlannerEvent(id: "evt-x", calendarID: "cal-missing", title: "x")), store: store,
      path: path)
    try refused(.relationViolation, .setVenue(event: "evt-1", venue: "ven-missing"), store: store, path: path)
    try refused(.relationViolation, .listAnyway(event: "evt-missing", calendar: "cal-work"), store: store, path: path)
    try refused(.relationViolation, .listAnyway(event: "evt-1", calendar: "cal-missing"), store: store, path: path)
    try refused(.relationViolation, .starAnyway("evt-missing"), store: store, path: path)
    try refused(
      .relationViolation, .addAttendee(id: "att-x", event: "evt-1", name: "x").withEvent("evt-gone"), store: store,
      path: path)
    // Café composed, then decomposed as another key for the same entity.
    try store.send(.addCalendar(id: "cal-Caf\u{E9}", name: "composed"))
    try refused(.invalidValue, .addCalendar(id: "cal-Cafe\u{301}", name: "decomposed"), store: store, path: path)
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
  }

  @Test func extremeButValidValuesRoundTrip() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let store = try openPlanner(path)
    try seedPlanner(store)
    try store.send(.setStart(id: "evt-1", start: .max))
    try store.send(.setStart(id: "evt-2", start: .min))
    try store.send(.computeWeight(id: "evt-3", numerator: 1, denominator: 0))
    try store.send(.computeWeight(id: "evt-2", numerator: -1, denominator: 0))
    // A NUL in view state: JSON escapes it, so it is held exactly.
    try store.send(.agenda(.setQuery("nul\u{0}")))
    try store.send(.setWeight(id: "evt-1", weight: .leastNonzeroMagnitude))
    try store.send(.setZoom(.greatestFiniteMagnitude))
    let huge = String(repeating: "é🎉\u{FFFD}\u{202E}", count: 250_000)
    try store.send(.typeTitle(id: "evt-1", text: huge))
    try store.send(.addCalendar(id: "cal-\u{FFFF}\u{10FFFF}'\"\\", name: "\u{1F600}\r\n\t"))
    try store.send(.agenda(.setQuery(huge)))
    try store.send(.addEvent(id: "evt-\u{E9}", calendar: "cal-home", title: "", start: 0))
    try expectReopenMatches(store, path)
    try store.undo()
    try store.undo()
    try store.undo()
    try expectReopenMatches(store, path, "after undos")
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
    let export = try RewindDatabase(path: path, readOnly: true).export()
    #expect(try RewindDatabase(path: path).importState(export) == nil)
  }

  @Test func duplicateIdsInOneAction() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    let store = try openPlanner(path)
    try seedPlanner(store)
    // The second insert replaces the first; the second append of the same id is no second entry.
    try store.send(.addEventsTwice(id: "evt-dup", calendar: "cal-home"))
    #expect(store.state.events["evt-dup"]?.title == "two")
    #expect(store.state.calendarEvents["cal-home"].ids.filter { $0 == "evt-dup" }.count == 1)
    try expectReopenMatches(store, path)
    try store.undo()
    #expect(store.state.events["evt-dup"] == nil)
    try expectReopenMatches(store, path, "after undo")
  }
}

extension PlannerAction {
  func withEvent(_ event: String) -> PlannerAction {
    if case .addAttendee(let id, _, let name) = self {
      return .insertAttendeeRaw(PlannerAttendee(id: id, eventID: event, name: name))
    }
    return self
  }
}
