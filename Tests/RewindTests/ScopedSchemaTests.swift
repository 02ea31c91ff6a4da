import GRDB
import Testing

@testable import Rewind

// A feature with its own entity table, order list and view state, included in its parent with
// `.scope`: its parts run as its own schema compiled them, given its state through the key
// path (`ScopedPart`), and must track, write, load and undo as the parent's own parts do, at
// any depth of scopes, their view-state paths under every prefix on the way.

private struct Book: Entity {
  static let databaseTableName = "books"
  var id: Int64
  var title: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("title", .text).notNull()
    }
  }
}

private struct Shelf: PersistentState, Equatable {
  struct View: Codable, Equatable, Sendable {
    var selected: Int64?
  }
  var books = EntityTable<Book>()
  var order = OrderedIDList<Int64>()
  var view = View()

  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.books), .list(\.order, named: "shelf", of: Book.self), .view(\.view))
  }
}

private struct Library: PersistentState, Equatable {
  struct View: Codable, Equatable, Sendable {
    var search = ""
  }
  var shelf = Shelf()
  var view = View()

  static var schema: StateSchema<Self> {
    StateSchema(.scope(\.shelf, viewPrefix: "shelf"), .view(\.view))
  }
}

/// A library inside a building: the shelf two scopes down.
private struct Building: PersistentState, Equatable {
  struct View: Codable, Equatable, Sendable {
    var floor = 0
  }
  var library = Library()
  var view = View()

  static var schema: StateSchema<Self> {
    StateSchema(.view(\.view), .scope(\.library, viewPrefix: "library"))
  }
}

private enum BuildingAction: LoggedAction {
  case library(LibraryAction)
  case floor(Int)
}

private struct BuildingReducer: Reducer {
  func reduce(into state: inout Building, action: BuildingAction) -> Effect<BuildingAction> {
    switch action {
    case .library(let action): _ = LibraryReducer().reduce(into: &state.library, action: action)
    case .floor(let floor): state.view.floor = floor
    }
    return .none
  }
}

private enum LibraryAction: LoggedAction {
  case add(title: String)
  case rename(id: Int64, title: String)
  case move(id: Int64, to: Int)
  case remove(id: Int64)
  case select(Int64?)
  case search(String)
}

private struct LibraryReducer: Reducer {
  func reduce(into state: inout Library, action: LibraryAction) -> Effect<LibraryAction> {
    switch action {
    case .add(let title):
      let id = state.shelf.books.nextID
      state.shelf.books.insert(Book(id: id, title: title))
      state.shelf.order.append(id)
    case .rename(let id, let title): state.shelf.books[id]?.title = title
    case .move(let id, let offset): state.shelf.order.move(id, to: offset)
    case .remove(let id):
      state.shelf.books.remove(id: id)
      state.shelf.order.remove(id)
      if state.shelf.view.selected == id { state.shelf.view.selected = nil }
    case .select(let id): state.shelf.view.selected = id
    case .search(let text): state.view.search = text
    }
    return .none
  }
}

@MainActor
struct ScopedSchemaTests {
  @Test func aScopedFeaturesTablesListsAndViewTrackLoadAndUndo() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("library.sqlite")
    var store = try Store(path: path, initialState: Library(), reducer: LibraryReducer())
    // The books and their order after each action that changes them: what undo steps back to.
    func document(_ state: Library) -> [Book] { state.shelf.order.ids.compactMap { state.shelf.books[$0] } }
    var documents = [document(store.state)]
    for action: LibraryAction in [
      .add(title: "Dune"), .add(title: "Emma"), .add(title: "Ulysses"), .rename(id: 2, title: "Persuasion"),
      .move(id: 3, to: 0), .select(2), .search("au"), .remove(id: 1),
    ] {
      #expect(try store.send(action) != nil)
      if document(store.state) != documents.last { documents.append(document(store.state)) }
    }
    #expect(store.state.shelf.order.ids == [3, 2])
    let (titles, order, view) = try DatabaseQueue(path: path).read { db in
      (
        try String.fetchAll(db, sql: "SELECT title FROM books ORDER BY id"),
        try Int64.fetchAll(db, sql: "SELECT id FROM list_entries WHERE list = 'shelf' ORDER BY position"),
        try String.fetchAll(db, sql: "SELECT path || '=' || value FROM view_state ORDER BY path")
      )
    }
    #expect(titles == ["Persuasion", "Ulysses"])
    #expect(order == [3, 2])
    #expect(view == [#"search="au""#, "shelf.selected=2"])
    // The file holds what memory does, and each undo brings back the books before its action.
    let last = store.state
    store = try Store(path: path, initialState: Library(), reducer: LibraryReducer())
    #expect(store.state == last)
    #expect(documents.count == 7)
    for expected in documents.dropLast().reversed() {
      try store.undo()
      #expect(document(store.state) == expected)
    }
    #expect(!store.canUndo)
    #expect(try RewindDatabase(path: path).verify().problems.isEmpty)
  }

  @Test func scopesWithinScopesTrackLoadUndoAndJoinTheirPrefixes() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("building.sqlite")
    var store = try Store(path: path, initialState: Building(), reducer: BuildingReducer())
    // The books and their order after each action that changes them: what undo steps back to
    // (view state is not part of a step).
    func document(_ state: Building) -> [Book] {
      state.library.shelf.order.ids.compactMap { state.library.shelf.books[$0] }
    }
    var documents = [document(store.state)]
    for action: BuildingAction in [
      .library(.add(title: "Dune")), .floor(2), .library(.add(title: "Emma")), .library(.select(2)),
      .library(.search("em")), .library(.rename(id: 1, title: "Dune Messiah")), .library(.move(id: 2, to: 0)),
      .library(.remove(id: 1)),
    ] {
      #expect(try store.send(action) != nil)
      if document(store.state) != documents.last { documents.append(document(store.state)) }
    }
    #expect(store.state.library.shelf.order.ids == [2])
    func viewRows() throws -> [String] {
      try DatabaseQueue(path: path).read { db in
        try String.fetchAll(db, sql: "SELECT path || '=' || value FROM view_state ORDER BY path")
      }
    }
    // Each view state's paths are under every prefix on the way down.
    #expect(try viewRows() == ["floor=2", #"library.search="em""#, "library.shelf.selected=2"])
    // Reopened, the state is what memory held; each undo brings back the books before its
    // action, and the file holds what memory does.
    let last = store.state
    store = try Store(path: path, initialState: Building(), reducer: BuildingReducer())
    #expect(store.state == last)
    #expect(documents.count == 6)
    for expected in documents.dropLast().reversed() {
      try store.undo()
      #expect(document(store.state) == expected)
    }
    #expect(!store.canUndo)
    let undone = store.state
    store = try Store(path: path, initialState: Building(), reducer: BuildingReducer())
    #expect(store.state == undone)
    #expect(try viewRows() == ["floor=2", #"library.search="em""#, "library.shelf.selected=2"])
    #expect(try RewindDatabase(path: path).verify().problems.isEmpty)
  }
}

/// The shelf as an app by itself, at version 2: its migration adds a column to its books.
private struct ShelfApp: PersistentState, Equatable {
  var books = EntityTable<Book>()
  var order = OrderedIDList<Int64>()
  var view = Shelf.View()

  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.books), .list(\.order, named: "shelf", of: Book.self), .view(\.view))
      .migrations(SchemaMigration("2-shelf-notes", .addColumn("note", to: "books", .text, default: nil)))
  }
}

/// A room that includes the shelf app as a feature, with no migration of its own.
private struct Room: PersistentState, Equatable {
  var shelf = ShelfApp()

  static var schema: StateSchema<Self> { StateSchema(.scope(\.shelf, viewPrefix: "shelf")) }
}

private enum RoomAction: LoggedAction {
  case rest
}

extension ScopedSchemaTests {
  /// A file has one app schema version, counted by the root state's migrations (the
  /// EvolvingYourSchema article): a scoped feature's own, declared for its use as an app by
  /// itself, are neither run nor recorded in a composed app's file.
  @Test func aScopedFeaturesOwnMigrationsAreNotTheComposedApps() throws {
    #expect(ShelfApp.schema.version == 2)
    #expect(Room.schema.version == 1)
    let directory = try TemporaryDirectory()
    let path = directory.path("room.sqlite")
    do {
      let store = try Store(path: path, initialState: Room(), reducer: Reduce<Room, RoomAction> { _, _ in .none })
      #expect(store.state == Room())
    }
    let (recorded, columns) = try DatabaseQueue(path: path).read { db in
      (
        try String.fetchAll(db, sql: "SELECT identifier FROM rewind_app_migrations"),
        try db.columns(in: "books").map(\.name)
      )
    }
    #expect(recorded.isEmpty)
    #expect(!columns.contains("note"))
    // Opened again, nothing is pending: the feature's migration is not the room's to run.
    _ = try Store(path: path, initialState: Room(), reducer: Reduce<Room, RoomAction> { _, _ in .none })
    #expect(
      try DatabaseQueue(path: path).read {
        try String.fetchAll($0, sql: "SELECT identifier FROM rewind_app_migrations")
      }.isEmpty)
    #expect(try RewindDatabase(path: path).verify().problems.isEmpty)
  }
}
