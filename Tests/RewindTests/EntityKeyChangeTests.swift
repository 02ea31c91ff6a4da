import Foundation
import GRDB
import Testing

@testable import Rewind

// An entity's id is its key, in the table and in its row. A reducer that changes the id of an
// entity in place (`table[a]?.id = b`, or `table[a] = Entity(id: b)`) would store it under a key
// that is not its id: the send is refused with an error naming both ids, and memory and the
// file stay as they were. Debug builds stopped the process on an assertion instead.

private struct Pin: Entity {
  static let databaseTableName = "pins"
  var id: Int64
  var label: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("label", .text).notNull()
    }
  }
}

private struct PinsState: PersistentState, Equatable {
  var pins = EntityTable<Pin>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.pins)) }
}

private enum PinsAction: LoggedAction {
  case add(Int64)
  case changeIDInPlace(Int64, to: Int64)
  case storeUnderAnotherID(Int64, as: Int64)
}

private struct PinsReducer: Reducer {
  func reduce(into state: inout PinsState, action: PinsAction) -> Effect<PinsAction> {
    switch action {
    case .add(let id): state.pins.insert(Pin(id: id, label: "pin \(id)"))
    case .changeIDInPlace(let id, let new): state.pins[id]?.id = new
    case .storeUnderAnotherID(let id, let new): state.pins[id] = Pin(id: new, label: "moved")
    }
    return .none
  }
}

@MainActor
struct EntityKeyChangeTests {
  @Test func changingAnEntitysIDThroughItsSubscriptIsRefused() throws {
    try expectRefused(.changeIDInPlace(1, to: 3))
  }

  @Test func storingAnEntityUnderAnotherIDIsRefused() throws {
    try expectRefused(.storeUnderAnotherID(1, as: 3))
  }

  private func expectRefused(_ action: PinsAction) throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("pins.sqlite")
    let store = try Store(path: path, initialState: PinsState(), reducer: PinsReducer())
    try store.send(.add(1))
    try store.send(.add(2))
    let (state, seq) = (store.state, store.lastSeq)

    let error = #expect(throws: RewindError.self) { try store.send(action) }
    #expect(error?.code == .invalidValue)
    #expect(error?.message.contains("Pin 1 was given the id 3 in place") == true)
    #expect(store.state == state)
    #expect(store.lastSeq == seq)
    let reopened = try Store(path: path, initialState: PinsState(), reducer: PinsReducer())
    #expect(reopened.state == state)
    // The store goes on.
    try store.send(.add(3))
    #expect(store.state.pins.ids.sorted() == [1, 2, 3])
  }
}
