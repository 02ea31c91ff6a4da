import Foundation
import GRDB
import Testing

@testable import Rewind

// SQLite checks a UNIQUE constraint at each row it writes, not when the transaction commits.
// A write whose rows are valid together was refused half-way (found by a probe of an app with
// a unique name column): two seats swapping names in one action, and a jump back over renames
// that had handed names along, failed with "UNIQUE constraint failed", so history that the
// file holds could not be returned to. Rows are now written in an order that lets them in, a
// row's unique values moved aside when they keep one another's.

struct Seat: Entity {
  static let databaseTableName = "seat"
  var id: Int64
  var name: String
  var badge: Int64?

  nonisolated(unsafe) static var tableSQL = ""
  static func createTable(_ db: Database) throws { try db.execute(sql: tableSQL) }
}

struct Guest: Entity {
  static let databaseTableName = "guest"
  var id: Int64
  var seatName: String?

  static func createTable(_ db: Database) throws {
    try db.execute(
      sql: "CREATE TABLE guest (id INTEGER PRIMARY KEY, seatName TEXT REFERENCES seat(name) ON DELETE CASCADE)")
  }
}

struct SeatingState: PersistentState, Equatable {
  var seats = EntityTable<Seat>()
  var guests = EntityTable<Guest>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.seats), .entities(\.guests)) }
}

enum SeatingAction: LoggedAction, Equatable {
  case add(Int64, String)
  case rename(Int64, String)
  /// Each seat takes the next one's name, the last the first's.
  case rotate([Int64])
  case remove(Int64)
  case badge(Int64, Int64?)
  case swapBadges(Int64, Int64)
  case guest(Int64, seat: String)
  /// A rename from elsewhere: not undoable.
  case syncRename(Int64, String)

  var isUndoable: Bool {
    if case .syncRename = self { return false }
    return true
  }
}

struct SeatingReducer: Reducer {
  func reduce(into state: inout SeatingState, action: SeatingAction) -> Effect<SeatingAction> {
    switch action {
    case .add(let id, let name): state.seats.insert(Seat(id: id, name: name))
    case .rename(let id, let name), .syncRename(let id, let name): state.seats[id]?.name = name
    case .rotate(let ids):
      let names = ids.map { state.seats[$0]!.name }
      for (index, id) in ids.enumerated() { state.seats[id]?.name = names[(index + 1) % names.count] }
    case .remove(let id): state.seats.remove(id: id)
    case .badge(let id, let badge): state.seats[id]?.badge = badge
    case .swapBadges(let a, let b):
      (state.seats[a]!.badge, state.seats[b]!.badge) = (state.seats[b]!.badge, state.seats[a]!.badge)
    case .guest(let id, let seat): state.guests.insert(Guest(id: id, seatName: seat))
    }
    return .none
  }
}

@MainActor
@Suite(.serialized) struct UniqueColumnTests {
  let directory: TemporaryDirectory
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("seats.sqlite")
    Seat.tableSQL = "CREATE TABLE seat (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, badge INTEGER UNIQUE)"
  }

  func open() throws -> Store<SeatingState, SeatingAction> {
    try Store(path: path, initialState: SeatingState(), reducer: SeatingReducer())
  }

  func names(_ store: Store<SeatingState, SeatingAction>) -> [String] {
    store.state.seats.ids.sorted().map { store.state.seats[$0]!.name }
  }

  /// The store, the file read again and `verify` agree.
  func expectConsistent(_ store: Store<SeatingState, SeatingAction>) throws {
    #expect(try open().state == store.state)
    _ = try expectHealthy(path)
  }

  @Test(arguments: [
    "CREATE TABLE seat (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, badge INTEGER UNIQUE)",
    "CREATE TABLE seat (id INTEGER PRIMARY KEY, name TEXT UNIQUE, badge INTEGER UNIQUE)",
    // A NOT NULL text column in a STRICT table, or one whose CHECK takes text only, takes
    // neither NULL nor a blob while it is moved aside; the index is one beside the table.
    "CREATE TABLE seat (id INTEGER PRIMARY KEY, name TEXT NOT NULL, badge INTEGER) STRICT; CREATE UNIQUE INDEX seat_name ON seat(name)",
    "CREATE TABLE seat (id INTEGER PRIMARY KEY, name TEXT NOT NULL CHECK (typeof(name) = 'text'), badge INTEGER); CREATE UNIQUE INDEX seat_name ON seat(name)",
  ])
  func rowsThatSwapUniqueValuesInOneActionAreWritten(table: String) throws {
    Seat.tableSQL = table
    let store = try open()
    for (id, name) in [(1, "window"), (2, "aisle"), (3, "middle")] { try store.send(.add(Int64(id), name)) }
    try store.send(.rotate([1, 2]))
    #expect(names(store) == ["aisle", "window", "middle"])
    try store.send(.rotate([1, 2, 3]))
    #expect(names(store) == ["window", "middle", "aisle"])
    try expectConsistent(store)
    _ = try store.undo()
    #expect(names(store) == ["aisle", "window", "middle"])
    _ = try store.undo()
    #expect(names(store) == ["window", "aisle", "middle"])
    _ = try store.redo()
    _ = try store.redo()
    #expect(names(store) == ["window", "middle", "aisle"])
    try expectConsistent(store)
  }

  @Test func aJumpBackOverNamesHandedAlongIsWritten() throws {
    let store = try open()
    try store.send(.add(1, "x"))
    try store.send(.add(2, "y"))
    let mark = store.lastSeq
    try store.send(.rename(1, "z"))
    try store.send(.rename(2, "x"))
    try store.send(.rename(1, "y"))
    let head = store.lastSeq
    _ = try store.jump(to: mark)
    #expect(names(store) == ["x", "y"])
    try expectConsistent(store)
    _ = try store.jump(to: head)
    #expect(names(store) == ["y", "x"])
    try expectConsistent(store)
  }

  @Test func twoUniqueColumnsSwappedAtOnceAreWritten() throws {
    let store = try open()
    try store.send(.add(1, "a"))
    try store.send(.badge(1, 10))
    try store.send(.add(2, "b"))
    try store.send(.badge(2, 20))
    let mark = store.lastSeq
    try store.send(.badge(1, nil))
    try store.send(.badge(2, 10))
    try store.send(.badge(1, 20))
    try store.send(.rotate([1, 2]))
    #expect(store.state.seats[1] == Seat(id: 1, name: "b", badge: 20))
    _ = try store.jump(to: mark)
    #expect(store.state.seats[1] == Seat(id: 1, name: "a", badge: 10))
    #expect(store.state.seats[2] == Seat(id: 2, name: "b", badge: 20))
    try expectConsistent(store)
  }

  @Test func aRowReferredToByItsUniqueValueKeepsItsChildren() throws {
    // A guest refers to a seat by its name. Handing that name to another seat leaves the
    // guest's reference dangling between two statements, where SQLite checks it: the swap is
    // refused as a relation, nothing written, and no guest is lost (as a cascade would lose
    // it, were the seat's row deleted and written again to free its name).
    let store = try open()
    try store.send(.add(1, "window"))
    try store.send(.add(2, "aisle"))
    try store.send(.guest(1, seat: "window"))
    let (state, seq) = (store.state, store.lastSeq)
    let error = expectRewindError(.relationViolation) { try store.send(.rotate([1, 2])) }
    #expect(error?.message.contains("rotate cannot be committed") == true, "\(error!)")
    #expect(store.state == state)
    #expect(store.lastSeq == seq)
    #expect(store.state.guests[1]?.seatName == "window")
    try expectConsistent(store)
  }

  @Test func aValueAnotherRowKeepsIsRefusedNamingBothRows() throws {
    let store = try open()
    try store.send(.add(1, "window"))
    try store.send(.add(2, "aisle"))
    let (state, seq) = (store.state, store.lastSeq)
    let error = expectRewindError(.commitFailed) { try store.send(.rename(2, "window")) }
    #expect(error?.message.contains(#"seat {"id":2} cannot take {"name":"window"}"#) == true, "\(error!)")
    #expect(error?.message.contains(#"seat {"id":1} keeps them"#) == true, "\(error!)")
    #expect(error?.message.contains("rename") == true, "\(error!)")
    #expect(store.state == state)
    #expect(store.lastSeq == seq)
    try expectConsistent(store)
    // A swap that leaves a duplicate behind is refused alike, with nothing moved aside left.
    try store.send(.add(3, "middle"))
    _ = expectRewindError(.commitFailed) { try store.send(.add(4, "middle")) }
    #expect(names(store) == ["window", "aisle", "middle"])
    try expectConsistent(store)
  }

  @Test func anUndoOfARenameWhoseNameWasTakenSinceIsAConflict() throws {
    let store = try open()
    try store.send(.add(1, "window"))
    try store.send(.add(2, "middle"))
    try store.send(.rename(1, "aisle"))
    // Another device gives the old name to the other seat: the undo cannot give it back.
    try store.send(.syncRename(2, "window"))
    let state = store.state
    let error = expectRewindError(.conflict) { try store.undo() }
    #expect(error?.message.contains(#"seat {"id":2} keeps them"#) == true, "\(error!)")
    #expect(store.state == state)
    try expectConsistent(store)
  }
}
