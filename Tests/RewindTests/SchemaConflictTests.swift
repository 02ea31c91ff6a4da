import Foundation
import GRDB
import Testing

@testable import Rewind

// Parts that would share rows in the file are refused when a store opens, naming both: found by
// a second app (two lists named alike, a scope's view prefix equal to a view's own, one entity
// type in two tables). Before, each opened, and the reopened state differed from memory.

private struct DupItem: Entity {
  static let databaseTableName = "dup_items"
  var id: Int64
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in t.primaryKey("id", .integer) }
  }
}

private struct DupView: Codable, Equatable, Sendable {
  var search = ""
}

private struct DupChild: PersistentState, Equatable {
  var view = DupView()
  static var schema: StateSchema<Self> { StateSchema(.view(\.view)) }
}

private enum DupAction: LoggedAction {
  case noop
}

private struct DupReducer<State>: Reducer {
  func reduce(into state: inout State, action: DupAction) -> Effect<DupAction> { .none }
}

private struct TwoListsOneName: PersistentState, Equatable {
  var items = EntityTable<DupItem>()
  var a = OrderedIDList<Int64>()
  var b = OrderedIDList<Int64>()
  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.items), .list(\.a, named: "x", of: DupItem.self), .list(\.b, named: "x", of: DupItem.self))
  }
}

private struct ListAndFamilyOneName: PersistentState, Equatable {
  var items = EntityTable<DupItem>()
  var a = OrderedIDList<Int64>()
  var b = OrderedIDLists<Int64, Int64>()
  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.items), .list(\.a, named: "x", of: DupItem.self),
      .lists(\.b, named: "x", of: DupItem.self, ownedBy: DupItem.self))
  }
}

private struct PrefixClash: PersistentState, Equatable {
  var child = DupChild()
  var view = DupView()
  static var schema: StateSchema<Self> {
    StateSchema(.scope(\.child, viewPrefix: "filters"), .view(\.view, at: "filters"))
  }
}

/// A prefix ending in a dot: its paths would be `filters..search` (found by an app written on
/// the library).
private struct DottedPrefix: PersistentState, Equatable {
  var child = DupChild()
  static var schema: StateSchema<Self> { StateSchema(.scope(\.child, viewPrefix: "filters.")) }
}

private struct TwoRootViews: PersistentState, Equatable {
  var view = DupView()
  var other = DupView()
  static var schema: StateSchema<Self> { StateSchema(.view(\.view), .view(\.other)) }
}

private struct OneTypeTwoTables: PersistentState, Equatable {
  var a = EntityTable<DupItem>()
  var b = EntityTable<DupItem>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.a), .entities(\.b)) }
}

/// Distinct names and prefixes, nested scopes included: accepted.
private struct Distinct: PersistentState, Equatable {
  var items = EntityTable<DupItem>()
  var a = OrderedIDList<Int64>()
  var b = OrderedIDList<Int64>()
  var child = DupChild()
  var view = DupView()
  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.items), .list(\.a, named: "a", of: DupItem.self), .list(\.b, named: "b", of: DupItem.self),
      .scope(\.child, viewPrefix: "child"), .view(\.view))
  }
}

@MainActor
struct SchemaConflictTests {
  func refusal<S: PersistentState>(_ state: S) throws -> (message: String, fileExists: Bool) {
    let directory = try TemporaryDirectory()
    let path = directory.path("conflict.sqlite")
    let error = #expect(throws: RewindError.self) {
      _ = try Store(path: path, initialState: state, reducer: DupReducer<S>())
    }
    #expect(error?.code == .schemaMismatch)
    #expect(throws: RewindError.self) { _ = try Store(inMemory: state, reducer: DupReducer<S>()) }
    return (error?.description ?? "", FileManager.default.fileExists(atPath: path))
  }

  @Test func twoListsWithOneNameAreRefused() throws {
    for refusal in [try refusal(TwoListsOneName()), try refusal(ListAndFamilyOneName())] {
      #expect(refusal.message.contains("list_entries list \"x\""), "\(refusal.message)")
      #expect(!refusal.fileExists)
    }
  }

  @Test func viewStatesWithOnePrefixAreRefused() throws {
    let scoped = try refusal(PrefixClash())
    #expect(scoped.message.contains("view_state paths \"filters.*\""), "\(scoped.message)")
    #expect(!scoped.fileExists)
    let root = try refusal(TwoRootViews())
    #expect(root.message.contains("view_state paths at the root"), "\(root.message)")
  }

  @Test func aViewPrefixWithADotAtItsEndIsRefused() throws {
    let refusal = try refusal(DottedPrefix())
    #expect(refusal.message.contains(#"the view prefix "filters.""#), "\(refusal.message)")
    #expect(refusal.message.contains(#"give "filters""#), "\(refusal.message)")
    #expect(!refusal.fileExists)
  }

  @Test func oneTableForTwoEntityTablesIsRefused() throws {
    let refusal = try refusal(OneTypeTwoTables())
    #expect(refusal.message.contains("the table dup_items"), "\(refusal.message)")
    #expect(!refusal.fileExists)
  }

  @Test func distinctPartsOpen() throws {
    let directory = try TemporaryDirectory()
    _ = try Store(path: directory.path("fine.sqlite"), initialState: Distinct(), reducer: DupReducer<Distinct>())
  }
}
