import Foundation
import GRDB
import Testing

@testable import Rewind

// Undo reverts a step's list entries against the rows as they are now. An entry's owner and
// position say together where it is: reverting one and keeping the other (moved since by
// another writer) put a card back in its first lane under a position made in the other lane's
// list. And an entry put back at its old position must not share it with an entry another
// writer placed there since: two entries at one position sort by id, not where either was put.

private struct Sticky: Entity {
  static let databaseTableName = "stickies"
  var id: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in t.primaryKey("id", .text) }
  }
}

private struct Column: Entity {
  static let databaseTableName = "columns"
  var id: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in t.primaryKey("id", .text) }
  }
}

private struct StickyBoardState: PersistentState, Equatable {
  var cards = EntityTable<Sticky>()
  var lanes = EntityTable<Column>()
  var backlog = OrderedIDList<String>()
  var laneCards = OrderedIDLists<String, String>()

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.cards), .entities(\.lanes), .list(\.backlog, named: "backlog", of: Sticky.self),
      .lists(\.laneCards, named: "laneCards", of: Sticky.self, ownedBy: Column.self))
  }
}

private indirect enum StickyAction: LoggedAction {
  case addLane(String)
  case add(String, lane: String?)
  case addMany([String], lane: String?)
  case remove(String)
  case move(String, to: Int)
  case moveToLane(String, lane: String, at: Int)
  /// The same, from a sync: not undoable (undo steps over it, keeping what it changed).
  case sync(StickyAction)

  var isUndoable: Bool {
    if case .sync = self { return false }
    return true
  }
}

private struct StickyReducer: Reducer {
  func reduce(into state: inout StickyBoardState, action: StickyAction) -> Effect<StickyAction> {
    switch action {
    case .sync(let action): return reduce(into: &state, action: action)
    case .addLane(let id): state.lanes.insert(Column(id: id))
    case .add(let id, let lane):
      state.cards.insert(Sticky(id: id))
      if let lane { state.laneCards[lane].append(id) } else { state.backlog.append(id) }
    case .addMany(let ids, let lane):
      for id in ids { _ = reduce(into: &state, action: .add(id, lane: lane)) }
    case .remove(let id):
      state.cards.remove(id: id)
      state.backlog.remove(id)
      state.laneCards.remove(id)
    case .move(let id, let offset):
      if let lane = state.laneCards.owner(of: id) {
        state.laneCards[lane].move(id, to: offset)
      } else {
        state.backlog.move(id, to: offset)
      }
    case .moveToLane(let id, let lane, let offset):
      state.laneCards[lane].insert(id, at: offset)
    }
    return .none
  }
}

@MainActor
struct UndoListPositionTests {
  let directory: TemporaryDirectory
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("board.sqlite")
  }

  private func open() throws -> Store<StickyBoardState, StickyAction> {
    try Store(path: path, initialState: StickyBoardState(), reducer: StickyReducer())
  }

  /// Each list's entries as the file holds them: (owner, position) pairs, which must be
  /// distinct, and the file reads back as `store`'s memory.
  private func expectDistinctPositionsAndFileHoldsMemory(_ store: Store<StickyBoardState, StickyAction>) throws {
    let duplicates = try DatabaseQueue(path: path).read { db in
      try Int.fetchOne(
        db,
        sql: """
          SELECT count(*) FROM (SELECT 1 FROM list_entries GROUP BY list, owner, position HAVING count(*) > 1)
          """) ?? -1
    }
    #expect(duplicates == 0)
    #expect(try open().state == store.state)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  @Test func anEntryPutBackWhereAnotherWriterPlacedOneSinceGetsAPositionOfItsOwn() throws {
    let first = try open()
    try first.send(.add("a", lane: nil))
    try first.send(.add("b", lane: nil))
    let second = try open()
    try first.send(.remove("a"))
    // A sync in another process puts a card where `a` was: at the top, below `b`.
    try second.send(.sync(.add("c", lane: nil)))
    try second.send(.sync(.move("c", to: 0)))
    #expect(second.state.backlog.ids == ["c", "b"])

    try first.undo()
    // `a` is back where it was, above `b`, and no two entries share a position.
    let order = first.state.backlog.ids
    #expect(Set(order) == ["a", "b", "c"])
    #expect(order.firstIndex(of: "a")! < order.firstIndex(of: "b")!)
    try expectDistinctPositionsAndFileHoldsMemory(first)
    // A move between the two lands between them.
    try first.send(.move("b", to: 1))
    #expect(first.state.backlog.ids[1] == "b")
    try expectDistinctPositionsAndFileHoldsMemory(first)
  }

  @Test func undoKeepsAnEntryWhereAnotherWriterMovedItSince() throws {
    let first = try open()
    for lane in ["todo", "done"] { try first.send(.addLane(lane)) }
    for card in ["x", "y"] { try first.send(.add(card, lane: "todo")) }
    try first.send(.add("z", lane: "done"))
    let second = try open()
    // `x` goes to `done`, below `z`; then a sync in another process moves it to the top of `done`.
    try first.send(.moveToLane("x", lane: "done", at: 1))
    try second.send(.sync(.move("x", to: 0)))
    #expect(second.state.laneCards["done"].ids == ["x", "z"])

    try first.undo()
    // The entry was moved since: undo keeps it where the other writer put it, owner and
    // position together, rather than back in `todo` under a position made in `done`'s list.
    #expect(first.state.laneCards["done"].ids == ["x", "z"])
    #expect(first.state.laneCards["todo"].ids == ["y"])
    try expectDistinctPositionsAndFileHoldsMemory(first)
  }

  /// A redo that puts back many entries, every other one at a position another writer's entry
  /// has taken since (a sync appended as many to the list, which were given the same keys,
  /// then removed every other one), in a list and in a lane: each gets a position of its own
  /// just before the entry that took its own and after the entries put back below it. (Each
  /// one looked at every entry put back before it: a redo of 16,000 took 6.5 s.)
  @Test(arguments: [nil, "todo"])
  func aRedoOfManyEntriesWhosePositionsWereTakenPlacesEachBelowItsTaker(lane: String?) throws {
    let store = try open()
    if let lane { try store.send(.addLane(lane)) }
    let (mine, theirs) = ((0..<300).map { "a\($0)" }, (0..<300).map { "b\($0)" })
    try store.send(.addMany(mine, lane: lane))
    try store.undo()
    try store.send(.sync(.addMany(theirs, lane: lane)))
    for index in stride(from: 0, to: theirs.count, by: 2) { try store.send(.sync(.remove(theirs[index]))) }
    let positions = try DatabaseQueue(path: path).read { db in
      try String.fetchAll(db, sql: "SELECT position FROM list_entries ORDER BY position")
    }
    #expect(store.canRedo)
    try store.redo()
    let ids = lane.map { store.state.laneCards[$0].ids } ?? store.state.backlog.ids
    #expect(ids == mine.indices.flatMap { $0 % 2 == 0 ? [mine[$0]] : [mine[$0], theirs[$0]] })
    // The other writer's entries kept their positions.
    let kept = try DatabaseQueue(path: path).read { db in
      try String.fetchAll(db, sql: "SELECT position FROM list_entries WHERE id LIKE 'b%' ORDER BY position")
    }
    #expect(kept == positions)
    try expectDistinctPositionsAndFileHoldsMemory(store)
  }
}
