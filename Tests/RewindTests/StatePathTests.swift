import Foundation
import GRDB
import Testing

@testable import Rewind

// Parts reach their value through `StatePath`: by byte offset when the key path names stored
// properties inline in the state, through the key path otherwise (a computed property). Both
// must read and write exactly what the key path does.

struct NoteItem: Entity {
  static let databaseTableName = "notes"
  var id: String
  var body: String

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("body", .text).notNull()
    }
  }
}

struct PathsView: Codable, Equatable, Sendable {
  var selection: Int64?
  var search = ""
}

struct PathsState: PersistentState, Equatable {
  struct Inner: Equatable, Sendable {
    var marker: Int8 = 7  // so that the parts below do not sit at offset 0
    var labels = EntityTable<ShoutedLabel>()
    var order = OrderedIDList<Int64>()
  }
  var inner = Inner()
  var view = PathsView()
  private var storedNotes = EntityTable<NoteItem>()
  /// Reached through a getter and a setter: a key path with no offset.
  var notes: EntityTable<NoteItem> {
    get { storedNotes }
    set { storedNotes = newValue }
  }

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.inner.labels), .list(\.inner.order, named: "order", of: ShoutedLabel.self), .entities(\.notes),
      .view(\.view))
  }
}

enum PathsAction: LoggedAction, Equatable {
  case addLabel(Int64, String)
  case addNote(String, String)
  case select(Int64?)
}

struct PathsReducer: Reducer {
  func reduce(into state: inout PathsState, action: PathsAction) -> Effect<PathsAction> {
    switch action {
    case .addLabel(let id, let text):
      state.inner.labels.insert(ShoutedLabel(id: id, text: text))
      state.inner.order.insert(id, at: 0)
    case .addNote(let id, let body): state.notes.insert(NoteItem(id: id, body: body))
    case .select(let id): state.view.selection = id
    }
    return .none
  }
}

@MainActor
struct StatePathTests {
  @Test func storedPathsHaveAnOffsetAndComputedOnesDoNot() {
    #expect(StatePath(\PathsState.inner.labels).offset != nil)
    #expect(StatePath(\PathsState.inner.order).offset != nil)
    #expect(StatePath(\PathsState.view).offset != nil)
    #expect(StatePath(\PathsState.notes).offset == nil)
  }

  @Test func aPathReadsAndWritesWhatItsKeyPathDoes() {
    var state = PathsState()
    state.inner.labels.insert(ShoutedLabel(id: 1, text: "one"))
    for path in [StatePath(\PathsState.inner.labels)] {
      #expect(path.read(&state) { $0 } == state.inner.labels)
      path.modify(&state) { $0.insert(ShoutedLabel(id: 2, text: "two")) }
    }
    #expect(state.inner.labels.ids.sorted() == [1, 2])
    #expect(state.inner.marker == 7)  // its neighbour untouched
    let notes = StatePath(\PathsState.notes)
    notes.modify(&state) { $0.insert(NoteItem(id: "a", body: "by the setter")) }
    #expect(state.notes["a"]?.body == "by the setter")
    #expect(notes.read(&state) { $0.count } == 1)
  }

  @Test func changesThroughEitherKindOfPathAreStoredAndReadBack() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("paths.sqlite")
    let store = try Store(path: path, initialState: PathsState(), reducer: PathsReducer())
    try store.send(.addLabel(1, "quiet"))
    try store.send(.addNote("n1", "through a computed property"))
    try store.send(.addLabel(2, "calm"))
    try store.send(.select(2))
    // Memory holds what the row reads back as (the label's builder shouts), through the offset.
    #expect(store.state.inner.labels[1]?.text == "QUIET")
    #expect(store.state.inner.order.ids == [2, 1])
    #expect(store.state.notes["n1"]?.body == "through a computed property")
    let reopened = try Store(path: path, initialState: PathsState(), reducer: PathsReducer())
    #expect(reopened.state == store.state)
    #expect(reopened.state.view.selection == 2)
    try store.send(.addNote("n2", "second"))
    try store.undo()
    #expect(store.state.notes.ids.sorted() == ["n1"])
    #expect(try Store(path: path, initialState: PathsState(), reducer: PathsReducer()).state == store.state)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }
}
