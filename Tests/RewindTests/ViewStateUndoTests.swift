import GRDB
import Testing

@testable import Rewind

// An optional view property that is nil has no view_state row, so a step that sets it inserts
// the row. Undo used to delete that row whatever it held by then: a selection made after the
// step was lost, where a property that had a row kept it. Found by a second app's model test.

private struct Pin: Entity {
  static let databaseTableName = "pins"
  var id: Int64
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in t.primaryKey("id", .integer) }
  }
}

private struct PinsState: PersistentState, Equatable {
  struct View: Codable, Equatable, Sendable {
    var selection: Int64?
  }
  var pins = EntityTable<Pin>()
  var view = View()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.pins), .view(\.view)) }
}

private enum PinsAction: LoggedAction {
  /// Adds a pin and selects it: one undoable step that inserts the selection's row.
  case add(Int64)
  /// A sync's add: not undoable, selects nothing.
  case synced(Int64)
  case select(Int64?)
  var isUndoable: Bool {
    if case .synced = self { return false }
    return true
  }
}

private struct PinsReducer: Reducer {
  func reduce(into state: inout PinsState, action: PinsAction) -> Effect<PinsAction> {
    switch action {
    case .add(let id):
      state.pins.insert(Pin(id: id))
      state.view.selection = id
    case .synced(let id): state.pins.insert(Pin(id: id))
    case .select(let id): state.view.selection = id
    }
    return .none
  }
}

@MainActor
struct ViewStateUndoTests {
  @Test func undoKeepsAValueSetSinceInARowTheStepInserted() throws {
    let store = try Store(inMemory: PinsState(), reducer: PinsReducer())
    try store.send(.add(1))  // selection: no row → 1
    try store.send(.synced(2))
    try store.send(.select(2))  // view only: not an undo step
    try store.undo()  // undoes add(1)
    #expect(store.state.pins.ids.sorted() == [2])
    #expect(store.state.view.selection == 2)
    // Redo reverts exactly what the undo did.
    try store.redo()
    #expect(store.state.pins.ids.sorted() == [1, 2] && store.state.view.selection == 2)
  }

  @Test func undoClearsARowTheStepInsertedWhenItStillHoldsTheStepsValue() throws {
    let store = try Store(inMemory: PinsState(), reducer: PinsReducer())
    try store.send(.add(1))
    try store.send(.synced(2))
    try store.undo()
    #expect(store.state.pins.ids.sorted() == [2] && store.state.view.selection == nil)
    try store.redo()
    #expect(store.state.pins.ids.sorted() == [1, 2] && store.state.view.selection == 1)
  }
}
