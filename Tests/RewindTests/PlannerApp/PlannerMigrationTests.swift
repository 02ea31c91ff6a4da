import Foundation
import GRDB
import Testing

@testable import Rewind

// Version 2 of the planner: events gain `allDay` (a described addColumn), calendars' `color`
// is renamed `hue`, and the agenda's `query` view property becomes `search` (under its prefix).

struct PlannerCalendarV2: Entity {
  static let databaseTableName = "calendars"
  var id: String
  var name: String
  var hue: String = "blue"

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("name", .text).notNull()
      t.column("hue", .text).notNull()
    }
  }
}

struct PlannerEventV2: Entity {
  static let databaseTableName = "events"
  var id: String
  var calendarID: String
  var title: String
  var start: Int64 = 0
  var weight: Double = 1
  var venueID: String?
  var syncVersion: Int64 = 0
  var allDay = false

  enum CodingKeys: String, CodingKey {
    case id, title, start, weight, syncVersion, allDay
    case calendarID = "calendarId"
    case venueID = "venueId"
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.belongsTo("calendar", inTable: PlannerCalendarV2.databaseTableName, onDelete: .cascade).notNull()
      t.column("title", .text).notNull()
      t.column("start", .integer).notNull()
      t.column("weight", .double).notNull()
      t.belongsTo("venue", inTable: PlannerVenue.databaseTableName, onDelete: .setNull)
      t.column("syncVersion", .integer).notNull()
      t.column("allDay", .boolean).notNull().defaults(to: false)
    }
  }
}

struct AgendaViewV2: Codable, Equatable, Sendable {
  var search = ""
  var filter: AgendaView.Filter = .all
  var focus: String?
}

struct AgendaFeatureStateV2: PersistentState, Equatable {
  var view = AgendaViewV2()
  static var schema: StateSchema<Self> { StateSchema(.view(\.view)) }
}

struct PlannerStateV2: PersistentState, Equatable {
  var calendars = EntityTable<PlannerCalendarV2>()
  var events = EntityTable<PlannerEventV2>()
  var venues = EntityTable<PlannerVenue>()
  var attendees = EntityTable<PlannerAttendee>()
  var calendarEvents = OrderedIDLists<String, String>()
  var eventAttendees = OrderedIDLists<String, String>()
  var starred = OrderedIDList<String>()
  var view = PlannerView()
  var agenda = AgendaFeatureStateV2()

  mutating func repairViewState() {
    if let id = view.selection, !events.contains(id: id) { view.selection = nil }
    if case .edit(let id, _)? = view.sheet, !events.contains(id: id) { view.sheet = nil }
  }

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.attendees),
      .entities(\.events),
      .entities(\.calendars),
      .entities(\.venues),
      .lists(\.calendarEvents, named: "calendarEvents", of: PlannerEventV2.self, ownedBy: PlannerCalendarV2.self),
      .lists(\.eventAttendees, named: "eventAttendees", of: PlannerAttendee.self, ownedBy: PlannerEventV2.self),
      .list(\.starred, named: "starred", of: PlannerEventV2.self),
      .view(\.view),
      .scope(\.agenda, viewPrefix: "agenda")
    )
    .migrations(
      SchemaMigration(
        "2-all-day",
        .addColumn("allDay", to: "events", .boolean, notNull: true, default: false),
        .renameColumn("color", to: "hue", in: "calendars"),
        .renameViewProperty("agenda.query", to: "agenda.search")
      )
    )
  }

  /// The state in version 1's shape, for comparing with states recorded then.
  var asV1: PlannerPlain {
    var v1 = PlannerState()
    for c in calendars.values { v1.calendars.insert(PlannerCalendar(id: c.id, name: c.name, color: c.hue)) }
    for e in events.values {
      v1.events.insert(
        PlannerEvent(
          id: e.id, calendarID: e.calendarID, title: e.title, start: e.start, weight: e.weight, venueID: e.venueID,
          syncVersion: e.syncVersion))
    }
    var plain = PlannerPlain(v1)
    plain.venues = PlannerPlain(self.venuesOnly).venues
    plain.attendees = Dictionary(uniqueKeysWithValues: attendees.values.map { ($0.id, $0) })
    plain.calendarEvents = Dictionary(
      uniqueKeysWithValues: calendarEvents.ownersWithLists.map { ($0, calendarEvents[$0].ids) })
    plain.eventAttendees = Dictionary(
      uniqueKeysWithValues: eventAttendees.ownersWithLists.map { ($0, eventAttendees[$0].ids) })
    plain.starred = starred.ids
    plain.view = view
    plain.agenda = AgendaView(query: agenda.view.search, filter: agenda.view.filter, focus: agenda.view.focus)
    return plain
  }

  private var venuesOnly: PlannerState {
    var s = PlannerState()
    s.venues = venues
    return s
  }
}

enum PlannerActionV2: LoggedAction, Equatable {
  case setAllDay(id: String, Bool)
  case typeTitle(id: String, text: String)
  case select(String?)
  case search(String)
}

struct PlannerReducerV2: Reducer {
  func reduce(into state: inout PlannerStateV2, action: PlannerActionV2) -> Effect<PlannerActionV2> {
    switch action {
    case .setAllDay(let id, let value): state.events[id]?.allDay = value
    case .typeTitle(let id, let text): state.events[id]?.title += text
    case .select(let id): state.view.selection = id
    case .search(let text): state.agenda.view.search = text
    }
    return .none
  }
}

@MainActor
@Suite struct PlannerMigrationTests {
  func openV2(_ path: String, readOnly: Bool = false) throws -> Store<PlannerStateV2, PlannerActionV2> {
    try Store(path: path, initialState: PlannerStateV2(), reducer: PlannerReducerV2(), readOnly: readOnly)
  }

  @Test func version2OpensVersion1FileWithItsHistory() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("p.sqlite")
    var states: [Int64: PlannerPlain] = [:]
    do {
      let v1 = try openPlanner(path)
      try seedPlanner(v1)
      states[v1.lastSeq] = PlannerPlain(v1.state)
      for action: PlannerAction in [
        .typeTitle(id: "evt-1", text: "!"), .agenda(.setQuery("lunch")), .sync(id: "evt-2", version: 9),
        .deleteEvent(id: "evt-3"), .renameCalendar(id: "cal-home", name: "House"),
      ] {
        try v1.send(action)
        states[v1.lastSeq] = PlannerPlain(v1.state)
      }
    }
    let v1Last = states.keys.max()!
    let store = try openV2(path)
    #expect(store.state.asV1 == states[v1Last]!, "\(store.state.asV1)\n\(states[v1Last]!)")
    #expect(store.state.events.values.allSatisfy { !$0.allDay })
    #expect(store.state.agenda.view.search == "lunch")
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)

    try store.send(.setAllDay(id: "evt-1", true))
    try store.send(.search("dinner"))
    try store.undo()  // the allDay
    #expect(store.state.events["evt-1"]?.allDay == false)
    try store.undo()  // v1's rename
    #expect(store.state.calendars["cal-home"]?.name == "Home")
    try store.undo()  // v1's delete: evt-3 back, with the new column's default
    #expect(store.state.events["evt-3"]?.allDay == false)
    #expect(store.state.events["evt-3"]?.title == "Dinner")
    #expect(try openV2(path, readOnly: true).state.asV1 == store.state.asV1)
    #expect(try openV2(path).state == store.state)

    // Jump back across the migration to the seeded state, then forward again.
    let seeded = states.keys.min()!
    try store.jump(to: seeded)
    #expect(store.state.asV1 == states[seeded]!, "\(store.state.asV1)\n\(states[seeded]!)")
    #expect(try openV2(path).state == store.state)
    try store.send(.setAllDay(id: "evt-3", true))
    try store.undo()
    try store.undo()  // the jump
    #expect(store.state.events["evt-3"]?.title == "Dinner")
    #expect(store.state.agenda.view.search == "dinner")
    #expect(try openV2(path).state == store.state)
    // Jump to a seq where the agenda query was set in v1: read under its new name.
    let querySet = states.keys.sorted()[2]
    try store.jump(to: querySet, timeline: .view)
    #expect(store.state.agenda.view.search == "lunch")
    #expect(try openV2(path).state == store.state)
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
    // Version 1 can no longer open the file.
    expectRewindError(.newerAppSchema) { try openPlanner(path) }
    // The tool reads the past in the new shape.
    let export = try RewindDatabase(path: path, readOnly: true).export(at: seeded)
    #expect(export.contains("\"allDay\""), "\(export.prefix(400))")
    #expect(export.contains("\"hue\""))
    #expect(export.contains("agenda.search") || !export.contains("agenda.query"))
  }
}
