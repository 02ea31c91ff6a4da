import Foundation
import GRDB
import Testing

@testable import Rewind

// Swift compares strings by canonical equivalence: "Café" precomposed (U+00E9) and decomposed
// (e + U+0301) are one id in memory, while SQLite compares bytes. A reducer that names a list
// member (or a keyed list's owner) in the other spelling than the list holds must change the
// member's own row: before, a removal deleted nothing (the row stayed, and the file no longer
// opened: "list order names tags "Café", which does not exist") and a move inserted a second
// row under the other bytes (the order read back differently).

private struct Tag: Entity {
  static let databaseTableName = "tags"
  var id: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in t.primaryKey("id", .text) }
  }
}

private struct Item: Entity {
  static let databaseTableName = "items"
  var id: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in t.primaryKey("id", .text) }
  }
}

private struct TagsState: PersistentState, Equatable {
  var tags = EntityTable<Tag>()
  var items = EntityTable<Item>()
  var order = OrderedIDList<String>()
  var itemsByTag = OrderedIDLists<String, String>()

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.tags), .entities(\.items), .list(\.order, named: "order", of: Tag.self),
      .lists(\.itemsByTag, named: "itemsByTag", of: Item.self, ownedBy: Tag.self))
  }
}

private enum TagsAction: LoggedAction {
  case add(String)
  case remove(String)
  case move(String, to: Int)
  case addItem(String, to: String)
  case moveItem(String, in: String, to: Int)
  case removeItem(String, from: String)
}

private struct TagsReducer: Reducer {
  func reduce(into state: inout TagsState, action: TagsAction) -> Effect<TagsAction> {
    switch action {
    case .add(let id):
      state.tags.insert(Tag(id: id))
      state.order.append(id)
    case .remove(let id):
      state.tags.remove(id: id)
      state.order.remove(id)
    case .move(let id, let offset):
      state.order.move(id, to: offset)
    case .addItem(let id, let owner):
      state.items.insert(Item(id: id))
      state.itemsByTag[owner].append(id)
    case .moveItem(let id, let owner, let offset):
      state.itemsByTag[owner].move(id, to: offset)
    case .removeItem(let id, let owner):
      state.itemsByTag[owner].remove(id)
      state.items.remove(id: id)
    }
    return .none
  }
}

@MainActor
struct ListSpellingTests {
  static let composed = "Caf\u{E9}"
  static let decomposed = "Cafe\u{301}"

  private func open(_ path: String) throws -> Store<TagsState, TagsAction> {
    try Store(path: path, initialState: TagsState(), reducer: TagsReducer())
  }

  /// The file reads back as memory, and `verify` finds nothing wrong.
  private func expectFileHoldsMemory(_ store: Store<TagsState, TagsAction>, _ path: String) throws {
    let reopened = try open(path)
    #expect(reopened.state.order.ids.map { Array($0.utf8) } == store.state.order.ids.map { Array($0.utf8) })
    #expect(reopened.state == store.state)
    #expect(try RewindDatabase(path: path, readOnly: true).verify().problems == [])
  }

  /// The bytes of each entry's member (and owner) in `list`, in order.
  private func entries(_ path: String, _ list: String) throws -> [[UInt8]] {
    try DatabaseQueue(path: path).read { db in
      try Row.fetchAll(
        db,
        sql:
          "SELECT CAST(owner AS BLOB) AS owner, CAST(id AS BLOB) AS id FROM list_entries WHERE list = ? ORDER BY owner, position",
        arguments: [list]
      ).map { row in ((row["owner"] as Data?).map(Array.init) ?? []) + [0] + Array(row["id"] as Data) }
    }
  }

  @Test func aMemberMovedByItsOtherSpellingKeepsItsOneRow() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tags.sqlite")
    let store = try open(path)
    for id in ["a", "b", Self.composed] { try store.send(.add(id)) }
    try store.send(.move(Self.decomposed, to: 0))
    #expect(store.state.order.ids == [Self.composed, "a", "b"])
    // One row for the member, in the bytes the list holds it in.
    let rows = try entries(path, "order")
    #expect(rows.count == 3)
    #expect(rows.filter { $0.suffix(Self.composed.utf8.count) == Array(Self.composed.utf8) }.count == 1)
    #expect(!rows.contains { $0.suffix(Self.decomposed.utf8.count) == Array(Self.decomposed.utf8) })
    try expectFileHoldsMemory(store, path)

    // Undone and redone, it is the same row that moves.
    try store.undo()
    #expect(store.state.order.ids == ["a", "b", Self.composed])
    try expectFileHoldsMemory(store, path)
    try store.redo()
    try expectFileHoldsMemory(store, path)
  }

  @Test func aMemberRemovedByItsOtherSpellingLeavesNoRow() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tags.sqlite")
    let store = try open(path)
    for id in ["a", Self.composed] { try store.send(.add(id)) }
    try store.send(.remove(Self.decomposed))
    #expect(store.state.order.ids == ["a"])
    #expect(try entries(path, "order").count == 1)
    try expectFileHoldsMemory(store, path)
    try store.undo()
    #expect(store.state.order.ids == ["a", Self.composed])
    try expectFileHoldsMemory(store, path)
  }

  @Test func aKeyedListReachedByItsOwnersOtherSpellingWritesItsOwnersRows() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tags.sqlite")
    let store = try open(path)
    try store.send(.add(Self.composed))
    try store.send(.addItem("x", to: Self.composed))
    try store.send(.addItem("y", to: Self.decomposed))
    try store.send(.moveItem("y", in: Self.decomposed, to: 0))
    #expect(store.state.itemsByTag[Self.composed].ids == ["y", "x"])
    // Every entry names the owner as the list holds it.
    let owner = Array(Self.composed.utf8)
    #expect(
      try entries(path, "itemsByTag").allSatisfy { Array($0.prefix(owner.count)) == owner && $0[owner.count] == 0 })
    try expectFileHoldsMemory(store, path)
    try store.send(.removeItem("x", from: Self.decomposed))
    #expect(try entries(path, "itemsByTag").count == 1)
    try expectFileHoldsMemory(store, path)
  }
}
