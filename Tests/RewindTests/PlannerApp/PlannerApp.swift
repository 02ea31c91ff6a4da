import Foundation
import GRDB

@testable import Rewind

// An event planner: calendars own events (ON DELETE CASCADE), events own attendees (CASCADE),
// events may sit at a venue (ON DELETE SET NULL). String keys ("cal-…", "evt-…", "ven-…",
// "att-…"). Each calendar orders its events and each event its attendees (keyed list families);
// a fixed list stars events. The root view state has an Optional and an enum; a scoped agenda
// feature has view state of its own under the "agenda" prefix. A sync (non-undoable) bumps an
// event's version or adds an event.

struct PlannerCalendar: Entity {
  static let databaseTableName = "calendars"
  var id: String
  var name: String
  var color: String = "blue"

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("name", .text).notNull()
      t.column("color", .text).notNull()
    }
  }
}

struct PlannerVenue: Entity {
  static let databaseTableName = "venues"
  var id: String
  var name: String

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("name", .text).notNull()
    }
  }
}

struct PlannerEvent: Entity {
  static let databaseTableName = "events"
  var id: String
  var calendarID: String
  var title: String
  var start: Int64 = 0
  var weight: Double = 1
  var venueID: String?
  var syncVersion: Int64 = 0

  enum CodingKeys: String, CodingKey {
    case id, title, start, weight, syncVersion
    case calendarID = "calendarId"
    case venueID = "venueId"
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.belongsTo("calendar", inTable: PlannerCalendar.databaseTableName, onDelete: .cascade).notNull()
      t.column("title", .text).notNull()
      t.column("start", .integer).notNull()
      t.column("weight", .double).notNull()
      t.belongsTo("venue", inTable: PlannerVenue.databaseTableName, onDelete: .setNull)
      t.column("syncVersion", .integer).notNull()
    }
  }
}

struct PlannerAttendee: Entity {
  static let databaseTableName = "attendees"
  var id: String
  var eventID: String
  var name: String

  enum CodingKeys: String, CodingKey {
    case id, name
    case eventID = "eventId"
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.belongsTo("event", inTable: PlannerEvent.databaseTableName, onDelete: .cascade).notNull()
      t.column("name", .text).notNull()
    }
  }
}

struct PlannerView: Codable, Equatable, Sendable {
  var selection: String?
  var mode: Mode = .week
  var sheet: Sheet?
  var zoom: Double = 1

  enum Mode: Codable, Equatable, Sendable {
    case day, week
    case month(Int)
  }

  enum Sheet: Codable, Equatable, Sendable {
    case edit(id: String, draft: String)
    case newEvent(calendar: String)
  }
}

// MARK: - The scoped agenda feature

struct AgendaView: Codable, Equatable, Sendable {
  var query = ""
  var filter: Filter = .all
  var focus: String?

  enum Filter: Codable, Equatable, Sendable {
    case all, starred
    case calendar(String)
  }
}

struct AgendaFeatureState: PersistentState, Equatable {
  var view = AgendaView()
  static var schema: StateSchema<Self> { StateSchema(.view(\.view)) }
}

enum AgendaAction: Codable, Equatable, Sendable {
  case setQuery(String)
  case setFilter(AgendaView.Filter)
  case focus(String?)
}

struct AgendaFeature: Reducer {
  func reduce(into state: inout AgendaFeatureState, action: AgendaAction) -> Effect<AgendaAction> {
    switch action {
    case .setQuery(let query): state.view.query = query
    case .setFilter(let filter): state.view.filter = filter
    case .focus(let id): state.view.focus = id
    }
    return .none
  }
}

// MARK: - The app

struct PlannerState: PersistentState, Equatable {
  var calendars = EntityTable<PlannerCalendar>()
  var events = EntityTable<PlannerEvent>()
  var venues = EntityTable<PlannerVenue>()
  var attendees = EntityTable<PlannerAttendee>()
  var calendarEvents = OrderedIDLists<String, String>()
  var eventAttendees = OrderedIDLists<String, String>()
  var starred = OrderedIDList<String>()
  var view = PlannerView()
  var agenda = AgendaFeatureState()

  mutating func repairViewState() {
    if let id = view.selection, !events.contains(id: id) { view.selection = nil }
    if case .edit(let id, _)? = view.sheet, !events.contains(id: id) { view.sheet = nil }
    if case .newEvent(let calendar)? = view.sheet, !calendars.contains(id: calendar) { view.sheet = nil }
  }

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.attendees),
      .entities(\.events),
      .entities(\.calendars),
      .entities(\.venues),
      .lists(\.calendarEvents, named: "calendarEvents", of: PlannerEvent.self, ownedBy: PlannerCalendar.self),
      .lists(\.eventAttendees, named: "eventAttendees", of: PlannerAttendee.self, ownedBy: PlannerEvent.self),
      .list(\.starred, named: "starred", of: PlannerEvent.self),
      .view(\.view),
      .scope(\.agenda, viewPrefix: "agenda")
    )
  }
}

enum PlannerAction: LoggedAction, Equatable {
  case addCalendar(id: String, name: String)
  case renameCalendar(id: String, name: String)
  case deleteCalendar(id: String)
  case addEvent(id: String, calendar: String, title: String, start: Int64)
  case typeTitle(id: String, text: String)
  case setWeight(id: String, weight: Double)
  /// The weight computed in the reducer: 0/0 is NaN, 1/0 infinity.
  case computeWeight(id: String, numerator: Int, denominator: Int)
  case setStart(id: String, start: Int64)
  case reorder(id: String, to: Int)
  case moveEvent(id: String, calendar: String)
  case deleteEvent(id: String)
  case addVenue(id: String, name: String)
  case deleteVenue(id: String)
  case setVenue(event: String, venue: String?)
  case addAttendee(id: String, event: String, name: String)
  case star(id: String)
  case select(String?)
  case setMode(PlannerView.Mode)
  case setZoom(Double)
  case present(PlannerView.Sheet?)
  case agenda(AgendaAction)
  /// Not undoable: what a server says.
  case sync(id: String, version: Int64)
  case syncAddEvent(id: String, calendar: String)
  /// Bugs a reducer could have.
  case listAnyway(event: String, calendar: String)
  case starAnyway(String)
  case insertRaw(PlannerEvent)
  case insertAttendeeRaw(PlannerAttendee)
  case addEventsTwice(id: String, calendar: String)

  var undoGroup: String? {
    if case .typeTitle(let id, _) = self { return "title-\(id)" }
    return nil
  }

  var isUndoable: Bool {
    switch self {
    case .sync, .syncAddEvent: false
    default: true
    }
  }
}

extension ActionCase<PlannerAction, AgendaAction> {
  static let agenda = ActionCase(
    embed: { PlannerAction.agenda($0) },
    extract: { if case .agenda(let action) = $0 { action } else { nil } })
}

struct PlannerCore: Reducer {
  func reduce(into state: inout PlannerState, action: PlannerAction) -> Effect<PlannerAction> {
    switch action {
    case .addCalendar(let id, let name):
      state.calendars.insert(PlannerCalendar(id: id, name: name))
    case .renameCalendar(let id, let name):
      state.calendars[id]?.name = name
    case .deleteCalendar(let id):
      // Only the calendar: the engine cascades to its events, their attendees and lists.
      state.calendars.remove(id: id)
      // The reducer clears what points at the row it deletes (the engine repairs only after a cascade).
      if case .newEvent(id)? = state.view.sheet { state.view.sheet = nil }
    case .addEvent(let id, let calendar, let title, let start):
      guard state.calendars.contains(id: calendar) else { break }
      state.events.insert(PlannerEvent(id: id, calendarID: calendar, title: title, start: start))
      state.calendarEvents[calendar].append(id)
      state.view.selection = id
    case .typeTitle(let id, let text):
      state.events[id]?.title += text
    case .setWeight(let id, let weight):
      state.events[id]?.weight = weight
    case .computeWeight(let id, let numerator, let denominator):
      state.events[id]?.weight = Double(numerator) / Double(denominator)
    case .setStart(let id, let start):
      state.events[id]?.start = start
    case .reorder(let id, let offset):
      if let calendar = state.calendarEvents.owner(of: id) {
        let count = state.calendarEvents[calendar].count
        state.calendarEvents[calendar].move(id, to: min(max(offset, 0), count - 1))
      }
    case .moveEvent(let id, let calendar):
      guard state.events.contains(id: id), state.calendars.contains(id: calendar),
        state.events[id]?.calendarID != calendar
      else { break }
      state.events[id]?.calendarID = calendar
      state.calendarEvents[calendar].append(id)
    case .deleteEvent(let id):
      state.events.remove(id: id)
      if state.view.selection == id { state.view.selection = nil }
      if case .edit(id, _)? = state.view.sheet { state.view.sheet = nil }
    case .addVenue(let id, let name):
      state.venues.insert(PlannerVenue(id: id, name: name))
    case .deleteVenue(let id):
      state.venues.remove(id: id)
    case .setVenue(let event, let venue):
      state.events[event]?.venueID = venue
    case .addAttendee(let id, let event, let name):
      guard state.events.contains(id: event) else { break }
      state.attendees.insert(PlannerAttendee(id: id, eventID: event, name: name))
      state.eventAttendees[event].append(id)
    case .star(let id):
      if !state.starred.remove(id), state.events.contains(id: id) { state.starred.append(id) }
    case .select(let id):
      state.view.selection = id
    case .setMode(let mode):
      state.view.mode = mode
    case .setZoom(let zoom):
      state.view.zoom = zoom
    case .present(let sheet):
      state.view.sheet = sheet
    case .agenda:
      break
    case .sync(let id, let version):
      state.events[id]?.syncVersion = version
    case .syncAddEvent(let id, let calendar):
      guard state.calendars.contains(id: calendar) else { break }
      state.events.insert(PlannerEvent(id: id, calendarID: calendar, title: "Synced \(id)"))
      state.calendarEvents[calendar].append(id)
    case .listAnyway(let event, let calendar):
      state.calendarEvents[calendar].append(event)
    case .starAnyway(let id):
      state.starred.append(id)
    case .insertRaw(let event):
      state.events.insert(event)
    case .insertAttendeeRaw(let attendee):
      state.attendees.insert(attendee)
    case .addEventsTwice(let id, let calendar):
      state.events.insert(PlannerEvent(id: id, calendarID: calendar, title: "one"))
      state.events.insert(PlannerEvent(id: id, calendarID: calendar, title: "two"))
      state.calendarEvents[calendar].append(id)
      state.calendarEvents[calendar].append(id)
    }
    return .none
  }
}

struct PlannerReducer: Reducer {
  let body = CombineReducers<PlannerState, PlannerAction, _> {
    PlannerCore()
    Scope(state: \.agenda, action: .agenda) { AgendaFeature() }
  }

  func reduce(into state: inout PlannerState, action: PlannerAction) -> Effect<PlannerAction> {
    body.reduce(into: &state, action: action)
  }
}

typealias PlannerStore = Store<PlannerState, PlannerAction>

@MainActor
func openPlanner(_ path: String, readOnly: Bool = false) throws -> PlannerStore {
  try PlannerStore(path: path, initialState: PlannerState(), reducer: PlannerReducer(), readOnly: readOnly)
}

/// The state a fresh store on the file reads (and a read-only one agrees).
@MainActor
func reopenedPlanner(_ path: String) throws -> PlannerState {
  let state = try openPlanner(path).state
  return state
}

/// The state with its lists as plain arrays, for readable comparisons.
struct PlannerPlain: Equatable, CustomStringConvertible {
  var calendars: [String: PlannerCalendar]
  var events: [String: PlannerEvent]
  var venues: [String: PlannerVenue]
  var attendees: [String: PlannerAttendee]
  var calendarEvents: [String: [String]]
  var eventAttendees: [String: [String]]
  var starred: [String]
  var view: PlannerView
  var agenda: AgendaView

  init(_ s: PlannerState) {
    func dict<E: Entity>(_ t: EntityTable<E>) -> [String: E] where E.ID == String {
      Dictionary(uniqueKeysWithValues: t.values.map { ($0.id, $0) })
    }
    calendars = dict(s.calendars)
    events = dict(s.events)
    venues = dict(s.venues)
    attendees = dict(s.attendees)
    calendarEvents = Dictionary(
      uniqueKeysWithValues: s.calendarEvents.ownersWithLists.map { ($0, s.calendarEvents[$0].ids) })
    eventAttendees = Dictionary(
      uniqueKeysWithValues: s.eventAttendees.ownersWithLists.map { ($0, s.eventAttendees[$0].ids) })
    starred = s.starred.ids
    view = s.view
    agenda = s.agenda.view
  }

  var description: String {
    """
    calendars: \(calendars.keys.sorted()) events: \(events.values.sorted { $0.id < $1.id }.map { "\($0.id)@\($0.calendarID)'\($0.title)' v\($0.syncVersion) w\($0.weight) ven=\($0.venueID ?? "-")" })
    venues: \(venues.keys.sorted()) attendees: \(attendees.values.sorted { $0.id < $1.id }.map { "\($0.id)@\($0.eventID)" })
    calendarEvents: \(calendarEvents.sorted { $0.key < $1.key }) eventAttendees: \(eventAttendees.sorted { $0.key < $1.key })
    starred: \(starred) view: \(view) agenda: \(agenda)
    """
  }
}
