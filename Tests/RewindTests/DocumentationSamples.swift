// The code samples of the DocC articles in Sources/Rewind/Rewind.docc and of README.md. Every ```swift block
// of an article or the README must appear here verbatim (DocumentationSamplesTests checks it), so the
// samples always compile and run.
import Foundation
import GRDB
import Rewind
import RewindTesting
import Testing

// MARK: ModelingState

struct Note: Entity {
  static let databaseTableName = "notes"
  var id: Int64
  var text: String
  var isPinned = false

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("text", .text).notNull()
      t.column("isPinned", .boolean).notNull()
    }
  }
}

extension Note {
  // In ascending order, so that each image keeps the values as given.
  static let columns = RowImage.Columns(["id", "isPinned", "text"])

  func databaseRowImage() -> RowImage {
    RowImage(Self.columns, [id.databaseValue, isPinned.databaseValue, text.databaseValue])
  }

  // Integers, text and a boolean read back as written: release builds skip the read-back.
  static var databaseRowRoundTripsExactly: Bool { true }
}

extension Note {
  // Read by position when a store opens, in this order: no column found by its name.
  static var databaseColumnOrder: [String]? { columns.names }

  init(orderedRow row: Row) throws {
    id = try row.decode(atIndex: 0)
    isPinned = try row.decode(atIndex: 1)
    text = try row.decode(atIndex: 2)
  }
}

struct NotesView: Codable, Equatable, Sendable {
  var selection: Int64?
  var searchText = ""
  var sheet: Sheet?

  enum Sheet: Codable, Equatable, Sendable {
    case editor(draft: String)
    case about
  }
}

extension NotesView: ViewStateProperties {
  // The names are the coding keys `encode(to:)` writes.
  static let viewProperties: [ViewProperty<Self>] = [
    ViewProperty("selection", \.selection),
    ViewProperty("searchText", \.searchText),
    ViewProperty("sheet", \.sheet),
  ]
}

struct NotesState: PersistentState, Equatable {
  var notes = EntityTable<Note>()
  var order = OrderedIDList<Int64>()
  var view = NotesView()

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.notes),
      .list(\.order, named: "notes", of: Note.self),
      .view(\.view)
    )
  }

  // Derived state is computed, never stored.
  var visibleNotes: [Note] {
    order.compactMap { notes[$0] }.filter { view.searchText.isEmpty || $0.text.contains(view.searchText) }
  }
}

// MARK: ReducersAndComposition

enum NotesAction: LoggedAction, Equatable {
  case write(text: String)
  case delete(id: Int64)
  case search(String)
  case pin(id: Int64, PinAction)
}

enum PinAction: Codable, Equatable, Sendable {
  case toggle
}

struct PinFeature: Reducer {
  func reduce(into note: inout Note, action: PinAction) -> Effect<PinAction> {
    switch action {
    case .toggle: note.isPinned.toggle()
    }
    return .none
  }
}

extension NotesAction {
  // {"write":{"text":"Milk"}} and {"delete":{"id":3}}, as Codable writes them.
  func writePayload(to payload: inout JSONObjectWriter) throws -> Bool {
    switch self {
    case .write(let text): try payload.writeObject("write") { try $0.write("text", text) }
    case .delete(let id): try payload.writeObject("delete") { try $0.write("id", id) }
    default: return false
    }
    return true
  }
}

extension ActionCase<NotesAction, (id: Int64, action: PinAction)> {
  static let pin = ActionCase(
    embed: { NotesAction.pin(id: $0.id, $0.action) },
    extract: { if case .pin(let id, let action) = $0 { (id, action) } else { nil } }
  )
}

struct NotesCore: Reducer {
  func reduce(into state: inout NotesState, action: NotesAction) -> Effect<NotesAction> {
    switch action {
    case .write(let text):
      let id = state.notes.nextID
      state.notes.insert(Note(id: id, text: text))
      state.order.append(id)
    case .delete(let id):
      state.notes.remove(id: id)
      state.order.remove(id)
      if state.view.selection == id { state.view.selection = nil }
    case .search(let text):
      state.view.searchText = text
    case .pin:
      break  // handled by PinFeature
    }
    return .none
  }
}

struct NotesReducer: Reducer {
  let body = NotesCore().forEach(\.notes, action: .pin) { PinFeature() }

  func reduce(into state: inout NotesState, action: NotesAction) -> Effect<NotesAction> {
    body.reduce(into: &state, action: action)
  }
}

/// Selects the note a `write` added.
struct SelectWritten: Reducer {
  func reduce(into state: inout NotesState, action: NotesAction) -> Effect<NotesAction> {
    if case .write = action, !state.order.isEmpty { state.view.selection = state.order[state.order.count - 1] }
    return .none
  }
}

struct NotesAppReducer: Reducer {
  let body = CombineReducers<NotesState, NotesAction, _> {
    NotesCore().forEach(\.notes, action: .pin) { PinFeature() }
    SelectWritten()
  }

  func reduce(into state: inout NotesState, action: NotesAction) -> Effect<NotesAction> {
    body.reduce(into: &state, action: action)
  }
}

// MARK: ReducersAndComposition: dependencies

struct Reminder: Entity {
  static let databaseTableName = "reminders"
  var id: Int64
  var uuid: UUID
  var title: String
  var createdAt: Date

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("uuid", .blob).notNull()
      t.column("title", .text).notNull()
      t.column("createdAt", .datetime).notNull()
    }
  }
}

struct RemindersState: PersistentState, Equatable {
  var reminders = EntityTable<Reminder>()
  var order = OrderedIDList<Int64>()

  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.reminders), .list(\.order, named: "reminders", of: Reminder.self))
  }
}

enum RemindersAction: LoggedAction, Equatable {
  case add(title: String)
}

struct RemindersReducer: Reducer {
  @Dependency(\.uuid) var uuid
  @Dependency(\.date.now) var now

  func reduce(into state: inout RemindersState, action: RemindersAction) -> Effect<RemindersAction> {
    switch action {
    case .add(let title):
      let id = state.reminders.nextID
      state.reminders.insert(Reminder(id: id, uuid: uuid(), title: title, createdAt: now))
      state.order.append(id)
    }
    return .none
  }
}

@MainActor
func previewReminders() throws -> Store<RemindersState, RemindersAction> {
  // Predictable ids and dates for a preview; a store with no changes gets `UUID()` and `Date()`.
  try Store(inMemory: RemindersState(), reducer: RemindersReducer()) {
    $0.uuid = .incrementing
    $0.date = .constant(Date(timeIntervalSince1970: 0))
  }
}

// MARK: ModelingState and README: keyed lists, relations, UUID keys, dependencies

struct ClockGroup: Entity {
  static let databaseTableName = "clockGroups"
  var id: UUID
  var name: String

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("name", .text).notNull()
    }
  }
}

struct WorldClock: Entity {
  static let databaseTableName = "clocks"
  var id: UUID
  var groupID: UUID
  var timeZone: String
  var addedAt: Date

  enum CodingKeys: String, CodingKey {
    case id, timeZone, addedAt
    case groupID = "groupId"
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      // A relation: deleting a group deletes its clocks, in the same undoable step.
      t.belongsTo("group", inTable: ClockGroup.databaseTableName, onDelete: .cascade).notNull()
      t.column("timeZone", .text).notNull()
      t.column("addedAt", .datetime).notNull()
    }
  }
}

struct ClocksState: PersistentState, Equatable {
  var groups = EntityTable<ClockGroup>()
  var clocks = EntityTable<WorldClock>()
  /// Each group's clocks, in the user's order: one list per group.
  var groupClocks = OrderedIDLists<UUID, UUID>()

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.groups),
      .entities(\.clocks),
      .lists(\.groupClocks, named: "groupClocks", of: WorldClock.self, ownedBy: ClockGroup.self)
    )
  }
}

enum ClocksAction: LoggedAction, Equatable {
  case addGroup(name: String)
  case addClock(timeZone: String, group: UUID)
  case moveClock(id: UUID, to: Int)
  case deleteGroup(id: UUID)
}

struct ClocksReducer: Reducer {
  @Dependency(\.uuid) var uuid
  @Dependency(\.date.now) var now

  func reduce(into state: inout ClocksState, action: ClocksAction) -> Effect<ClocksAction> {
    switch action {
    case .addGroup(let name):
      state.groups.insert(ClockGroup(id: uuid(), name: name))
    case .addClock(let timeZone, let group):
      let clock = WorldClock(id: uuid(), groupID: group, timeZone: timeZone, addedAt: now)
      state.clocks.insert(clock)
      state.groupClocks[group].append(clock.id)
    case .moveClock(let id, let offset):
      if let group = state.groupClocks.owner(of: id) { state.groupClocks[group].move(id, to: offset) }
    case .deleteGroup(let id):
      // Only the group: the engine deletes its clocks and its list, in this action's entry.
      state.groups.remove(id: id)
    }
    return .none
  }
}

// MARK: Persistence

@MainActor
func openNotes(at path: String) throws -> Store<NotesState, NotesAction> {
  let store = try Store(path: path, initialState: NotesState(), reducer: NotesReducer())
  if let seq = try store.send(.write(text: "Buy milk")) {  // committed when this returns
    print("committed as seq \(seq)")
  }
  return store
}

// MARK: History

@MainActor
func travel(_ store: Store<NotesState, NotesAction>) throws {
  // `send` returns the entry's seq, or nil for an action that changed nothing.
  guard let first = try store.send(.write(text: "Draft")) else { return }
  try store.send(.search("Dr"))
  try store.undo()  // reverts the write; the search (view state only) stays
  try store.redo()
  try store.jump(to: first, timeline: .document)  // the notes as they were after `first`
  print(try store.historyStacks().undo.map(\.actions))
}

// MARK: Testing

@MainActor
@Test func writingANote() async throws {
  let store = try TestStore(initialState: NotesState(), reducer: NotesReducer())
  try await store.send(.write(text: "Buy milk")) {
    $0.notes.insert(Note(id: 1, text: "Buy milk"))
    $0.order.append(1)
  }
  try await store.send(.pin(id: 1, .toggle)) {
    $0.notes[1]?.isPinned = true
  }
  await store.finish()
}

@MainActor
@Test func undoingAPin() async throws {
  let store = try TestStore(initialState: NotesState(), reducer: NotesReducer())
  try await store.send(.write(text: "Buy milk")) {
    $0.notes.insert(Note(id: 1, text: "Buy milk"))
    $0.order.append(1)
  }
  try await store.send(.pin(id: 1, .toggle)) {
    $0.notes[1]?.isPinned = true
  }
  try await store.undo {
    $0.notes[1]?.isPinned = false
  }
  try await store.redo {
    $0.notes[1]?.isPinned = true
  }
}

@MainActor
@Test func addingReminders() async throws {
  let store = try TestStore(initialState: RemindersState(), reducer: RemindersReducer())
  try await store.send(.add(title: "Call Alice")) {
    let now = Date(timeIntervalSince1970: 1_234_567_890)
    $0.reminders.insert(Reminder(id: 1, uuid: UUID(0), title: "Call Alice", createdAt: now))
    $0.order.append(1)
  }
  // A minute later:
  store.dependencies.date = .constant(Date(timeIntervalSince1970: 1_234_567_950))
  try await store.send(.add(title: "Buy milk")) {
    let now = Date(timeIntervalSince1970: 1_234_567_950)
    $0.reminders.insert(Reminder(id: 2, uuid: UUID(1), title: "Buy milk", createdAt: now))
    $0.order.append(2)
  }
}

// MARK: README

struct Todo: Entity {
  static let databaseTableName = "todos"
  var id: Int64
  var title: String

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("title", .text).notNull()
    }
  }
}

/// The view state: any Codable and Equatable value, one row per property.
struct TodoView: Codable, Equatable, Sendable {
  var selection: Int64?
  var searchText = ""
}

struct TodoState: PersistentState, Equatable {
  var todos = EntityTable<Todo>()
  var order = OrderedIDList<Int64>()
  var view = TodoView()

  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.todos), .list(\.order, named: "order", of: Todo.self), .view(\.view))
  }
}

enum TodoAction: LoggedAction, Equatable {
  case add(title: String)
  case select(Int64?)
}

struct TodoReducer: Reducer {
  func reduce(into state: inout TodoState, action: TodoAction) -> Effect<TodoAction> {
    switch action {
    case .add(let title):
      let id = state.todos.nextID
      state.todos.insert(Todo(id: id, title: title))
      state.order.append(id)
      state.view.selection = id
    case .select(let id):
      state.view.selection = id
    }
    return .none
  }
}

@MainActor func addAndRewind(path: String) throws -> Store<TodoState, TodoAction> {
  let store = try Store(path: path, initialState: TodoState(), reducer: TodoReducer())
  // Committed when `send` returns: the entry's seq (nil for an action that changed nothing).
  let first = try store.send(.add(title: "Buy milk"))
  try store.send(.add(title: "Call Alice"))
  try store.undo()  // Call Alice is gone, and the selection is Buy milk again
  try store.send(.select(nil))
  if let first {
    try store.jump(to: first, timeline: .view)  // the view state as it was after the first add
  }
  return store
}

// MARK: README and EvolvingYourSchema

/// Version 2 of the todo app: a todo has a due date (none for the todos of version 1).
struct TodoV2: Entity {
  static let databaseTableName = "todos"
  var id: Int64
  var title: String
  var due: String?

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("title", .text).notNull()
      t.column("due", .text)
    }
  }
}

struct TodoStateV2: PersistentState, Equatable {
  var todos = EntityTable<TodoV2>()
  var order = OrderedIDList<Int64>()
  var view = TodoView()

  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.todos), .list(\.order, named: "order", of: TodoV2.self), .view(\.view))
      .migrations(
        SchemaMigration("2-due-dates", .addColumn("due", to: "todos", .text, default: nil))
      )
  }
}

/// Version 3 renames a column and a view property; history reads the new names.
let renamingTitles = SchemaMigration(
  "3-names",
  .renameColumn("title", to: "name", in: "todos"),
  .renameViewProperty("searchText", to: "query")
)

/// Splitting a table is not a described change: the app moves the rows, and says what one
/// row becomes, so the engine can check the two agree and rewrite older history.
let splittingDueDates = SchemaMigration.transform(
  "4-reminders",
  migrate: { db in
    try db.create(table: "reminders") { t in
      t.primaryKey("id", .integer)
      t.column("due", .text).notNull()
    }
    try db.execute(sql: "INSERT INTO reminders (id, due) SELECT id, due FROM todos WHERE due IS NOT NULL")
    try db.alter(table: "todos") { $0.drop(column: "due") }
  },
  rows: { row in
    guard row.table == "todos", let id = row["id"], let due = row["due"] else { return [row] }
    var todo = row
    todo["due"] = nil
    return due.isNull ? [todo] : [todo, HistoryRow(table: "reminders", columns: ["id": id, "due": due])]
  }
)

/// A change history cannot follow: older entries stay readable, never returned to.
let recomputingTitles = SchemaMigration.barrier("5-trimmed-titles") { db in
  try db.execute(sql: "UPDATE todos SET name = trim(name)")
}

@MainActor func upgradeToVersion2(path: String) throws -> Store<TodoStateV2, TodoAction> {
  // The file of version 1 gains the column, and its history reads through it.
  let store = try Store(path: path, initialState: TodoStateV2(), reducer: TodoV2Reducer())
  try store.undo()  // undoes an add of version 1: the row, with its new column, is deleted
  return store
}

struct TodoV2Reducer: Reducer {
  func reduce(into state: inout TodoStateV2, action: TodoAction) -> Effect<TodoAction> {
    switch action {
    case .add(let title):
      let id = state.todos.nextID
      state.todos.insert(TodoV2(id: id, title: title, due: nil))
      state.order.append(id)
    case .select(let id):
      state.view.selection = id
    }
    return .none
  }
}

// MARK: - The samples run

@MainActor
struct DocumentationSampleRuns {
  @Test func persistenceAndHistorySamplesWork() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("notes.sqlite")
    let store = try openNotes(at: path)
    try travel(store)
    #expect(store.state.notes.count == 2)
    // The document jump left the view state alone: the search still filters.
    #expect(store.state.visibleNotes.map(\.text) == ["Draft"])
    #expect(try Store(path: path, initialState: NotesState(), reducer: NotesReducer()).state == store.state)
  }

  @Test func theEvolutionSamplesWork() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("todos.sqlite")
    let version1 = try Store(path: path, initialState: TodoState(), reducer: TodoReducer())
    try version1.send(.add(title: "Buy milk"))
    try version1.send(.add(title: "Call Alice"))
    let store = try upgradeToVersion2(path: path)
    #expect(store.state.todos.values.map(\.title) == ["Buy milk"])
    #expect(store.state.todos.values.map(\.due) == [nil])
    let database = try RewindDatabase(path: path)
    #expect(try database.export(at: 2).contains(#"{"due":null,"id":1,"title":"Buy milk"}"#))
    #expect(try database.verify().problems == [])
    // The other kinds are well-formed migrations: they name themselves.
    #expect(
      [renamingTitles, splittingDueDates, recomputingTitles].map(\.identifier) == [
        "3-names", "4-reminders", "5-trimmed-titles",
      ])
  }

  @Test func theDependencySampleWorks() throws {
    let store = try previewReminders()
    try store.send(.add(title: "Call Alice"))
    #expect(
      store.state.reminders[1]
        == Reminder(id: 1, uuid: UUID(0), title: "Call Alice", createdAt: Date(timeIntervalSince1970: 0))
    )
  }

  @Test func theClocksSampleWorks() async throws {
    let store = try TestStore(initialState: ClocksState(), reducer: ClocksReducer())
    let date = Date(timeIntervalSince1970: 1_234_567_890)  // the test store's date
    try await store.send(.addGroup(name: "Europe")) {
      $0.groups.insert(ClockGroup(id: UUID(0), name: "Europe"))
    }
    try await store.send(.addClock(timeZone: "Europe/Paris", group: UUID(0))) {
      $0.clocks.insert(WorldClock(id: UUID(1), groupID: UUID(0), timeZone: "Europe/Paris", addedAt: date))
      $0.groupClocks[UUID(0)].append(UUID(1))
    }
    try await store.send(.addClock(timeZone: "Europe/Oslo", group: UUID(0))) {
      $0.clocks.insert(WorldClock(id: UUID(2), groupID: UUID(0), timeZone: "Europe/Oslo", addedAt: date))
      $0.groupClocks[UUID(0)].append(UUID(2))
    }
    try await store.send(.moveClock(id: UUID(2), to: 0)) { $0.groupClocks[UUID(0)].move(UUID(2), to: 0) }
    // The engine's cascade is part of the action's change.
    try await store.send(.deleteGroup(id: UUID(0))) { $0 = ClocksState() }
    try store.store.undo()
    #expect(store.state.groupClocks[UUID(0)].ids == [UUID(2), UUID(1)])
    #expect(store.state.clocks[UUID(1)]?.addedAt == date)
  }

  @Test func theReadmeSampleWorks() throws {
    let directory = try TemporaryDirectory()
    let store = try addAndRewind(path: directory.path("todos.sqlite"))
    #expect(store.state.todos.values.map(\.title) == ["Buy milk"])
    #expect(store.state.order.ids == [1])
    #expect(store.state.view.selection == 1)  // the jump brought back the first add's selection
    #expect(store.lastSeq == 6)  // initialize, add, add, undo, select, jump
  }
}
