import Foundation
import GRDB
import Testing

@testable import Rewind

// A feature repairs its own view state wherever it is composed: its `repairViewState()` runs
// when it is included with `.scope`, without the parent forwarding the call. (Found by an app
// written on the library: a jump of the document left a scoped feature's selection pointing at
// a tag the jump removed, in memory and in the file.)

struct ScopedTag: Entity {
  static let databaseTableName = "scoped_tags"
  var id: Int64
  var name: String

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
    }
  }
}

struct TagsFeature: PersistentState, Equatable {
  struct View: Codable, Equatable, Sendable { var selection: Int64? }
  var tags = EntityTable<ScopedTag>()
  var view = View()

  static var schema: StateSchema<Self> { StateSchema(.entities(\.tags), .view(\.view)) }

  mutating func repairViewState() {
    if let id = view.selection, !tags.contains(id: id) { view.selection = nil }
  }
}

struct TaggedApp: PersistentState, Equatable {
  var tagging = TagsFeature()
  static var schema: StateSchema<Self> { StateSchema(.scope(\.tagging, viewPrefix: "tags")) }
}

enum TaggedAction: LoggedAction, Equatable {
  case add(id: Int64, name: String)
}

struct TaggedReducer: Reducer {
  func reduce(into state: inout TaggedApp, action: TaggedAction) -> Effect<TaggedAction> {
    if case .add(let id, let name) = action {
      state.tagging.tags.insert(ScopedTag(id: id, name: name))
      state.tagging.view.selection = id
    }
    return .none
  }
}

@MainActor
struct ScopedRepairTests {
  @Test func aScopedFeatureRepairsItsViewStateAfterAJump() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tags.sqlite")
    let store = try Store(path: path, initialState: TaggedApp(), reducer: TaggedReducer())
    let red = try #require(try store.send(.add(id: 1, name: "red")))
    try store.send(.add(id: 2, name: "blue"))
    #expect(store.state.tagging.view.selection == 2)
    try store.jump(to: red, timeline: .document)
    #expect(store.state.tagging.tags.ids.sorted() == [1])
    #expect(store.state.tagging.view.selection == nil)
    let reopened = try Store(path: path, initialState: TaggedApp(), reducer: TaggedReducer())
    #expect(reopened.state == store.state)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }
}
