import GRDB
import Testing

@testable import Rewind

// A scoped child whose property has observers (or is computed) is reached through its setter:
// a send that leaves the child alone must not set it, and one that changes it sets it once and
// writes its rows. (Found by a review: for a while each scoped part set the child on every send.)

private struct Pen: Entity {
  static let databaseTableName = "desk_pens"
  var id: Int64
  var name: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
    }
  }
}

private struct Drawer: PersistentState, Equatable {
  struct View: Codable, Equatable, Sendable { var open = false }
  var pens = EntityTable<Pen>()
  var order = OrderedIDList<Int64>()
  var view = View()
  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.pens), .list(\.order, named: "drawer", of: Pen.self), .view(\.view))
  }
}

private struct Desk: PersistentState, Equatable {
  struct View: Codable, Equatable, Sendable { var note = "" }
  /// Not persisted: how many times the drawer was set.
  var drawerSets = 0
  var drawer = Drawer() { didSet { drawerSets += 1 } }
  var view = View()
  static var schema: StateSchema<Self> {
    StateSchema(.scope(\.drawer, viewPrefix: "drawer"), .view(\.view))
  }
}

private enum DeskAction: LoggedAction {
  case note(String)
  case addPen(String)
}

private struct DeskReducer: Reducer {
  func reduce(into state: inout Desk, action: DeskAction) -> Effect<DeskAction> {
    switch action {
    case .note(let text): state.view.note = text
    case .addPen(let name):
      let id = state.drawer.pens.nextID
      state.drawer.pens.insert(Pen(id: id, name: name))
      state.drawer.order.append(id)
    }
    return .none
  }
}

@MainActor
struct ScopedObservedPropertyTests {
  @Test func aSendThatLeavesTheScopedChildAloneDoesNotSetIt() throws {
    let directory = try TemporaryDirectory()
    let store = try Store(path: directory.path("desk.sqlite"), initialState: Desk(), reducer: DeskReducer())
    try store.send(.addPen("Fountain"))
    let sets = store.state.drawerSets
    try store.send(.note("Buy ink"))
    try store.send(.note("Buy paper"))
    #expect(store.state.drawerSets == sets)
    // A change to the child is taken through the setter, once, and reaches the file.
    try store.send(.addPen("Ballpoint"))
    #expect(store.state.drawerSets > sets)
    let afterAdd = store.state.drawerSets
    try store.send(.note("Buy pens"))
    #expect(store.state.drawerSets == afterAdd)
    let reopened = try Store(path: directory.path("desk.sqlite"), initialState: Desk(), reducer: DeskReducer())
    #expect(reopened.state.drawer == store.state.drawer)
    #expect(reopened.state.view == store.state.view)
    #expect(try RewindDatabase(path: directory.path("desk.sqlite")).verify().problems.isEmpty)
  }
}
