import Foundation
import GRDB
import Testing

@testable import Rewind

/// The memory of `store` must equal what a new store and a read-only one read from the file.
@MainActor
func expectReopenMatches(
  _ store: PlannerStore, _ path: String, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let memory = PlannerPlain(store.state)
  let readOnly = PlannerPlain(try openPlanner(path, readOnly: true).state)
  #expect(
    readOnly == memory, "read-only reopen differs \(context)\nmemory:\n\(memory)\nfile:\n\(readOnly)",
    sourceLocation: sourceLocation)
  let reopened = PlannerPlain(try openPlanner(path).state)
  #expect(
    reopened == memory, "reopen differs \(context)\nmemory:\n\(memory)\nfile:\n\(reopened)",
    sourceLocation: sourceLocation)
}

/// A small planner: two calendars, three events, a venue, an attendee.
@MainActor
func seedPlanner(_ store: PlannerStore) throws {
  try store.send(.addCalendar(id: "cal-work", name: "Work"))
  try store.send(.addCalendar(id: "cal-home", name: "Home"))
  try store.send(.addVenue(id: "ven-1", name: "Office"))
  try store.send(.addEvent(id: "evt-1", calendar: "cal-work", title: "Standup", start: 900))
  try store.send(.addEvent(id: "evt-2", calendar: "cal-work", title: "Review", start: 1400))
  try store.send(.addEvent(id: "evt-3", calendar: "cal-home", title: "Dinner", start: 1900))
  try store.send(.setVenue(event: "evt-1", venue: "ven-1"))
  try store.send(.addAttendee(id: "att-1", event: "evt-1", name: "Ann"))
}
