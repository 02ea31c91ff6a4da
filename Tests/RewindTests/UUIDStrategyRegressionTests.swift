import Foundation
import GRDB
import Testing

@testable import Rewind

// The two bugs reported on release 62fd705 with UUID keys, reproduced with only the API that
// release had (entities, fixed order lists, the tool's export, import, undo and verify), so
// that the same file fails on that release's sources and passes now.

/// A city keyed by UUID, stored as GRDB's 16-byte blob (`.deferredToUUID`, GRDB's default and
/// so what the reporters had).
struct BlobCity: Entity {
  static let databaseTableName = "cities"
  var id: UUID
  var name: String

  static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .deferredToUUID }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .blob)
      t.column("name", .text).notNull()
    }
  }
}

/// The same city with GRDB's readable strategy, chosen explicitly (62fd705 had no default of
/// its own).
struct TextCity: Entity {
  static let databaseTableName = "cities"
  var id: UUID
  var name: String

  static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .uppercaseString }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("name", .text).notNull()
    }
  }
}

struct CitiesState<City: Entity>: PersistentState, Equatable where City.ID == UUID {
  var cities = EntityTable<City>()
  var timezones = OrderedIDList<UUID>()

  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.cities), .list(\.timezones, named: "timezones", of: City.self))
  }
}

enum CitiesAction: LoggedAction, Equatable {
  case add(id: UUID, name: String)
  case rename(id: UUID, name: String)
  case delete(id: UUID)
}

struct CitiesReducer<City: Entity>: Reducer where City.ID == UUID {
  let make: @Sendable (UUID, String) -> City
  let rename: @Sendable (inout City, String) -> Void

  func reduce(into state: inout CitiesState<City>, action: CitiesAction) -> Effect<CitiesAction> {
    switch action {
    case .add(let id, let name):
      state.cities.insert(make(id, name))
      state.timezones.append(id)
    case .rename(let id, let name):
      guard var city = state.cities[id] else { break }
      rename(&city, name)
      state.cities.insert(city)
    case .delete(let id):
      guard state.cities.remove(id: id) != nil else { break }
      state.timezones.remove(id)
    }
    return .none
  }
}

@MainActor
struct UUIDStrategyRegressionTests {
  static let paris = UUID(uuidString: "0E5F5C3A-8D2B-4C7E-9A41-6B3D2F1E0A99")!
  static let tokyo = UUID(uuidString: "7A1C9E42-3B6D-4F80-B2E5-C4D8A6F01357")!
  static let lima = UUID(uuidString: "F3B2A190-5E4D-4C3B-8A29-1706E5D4C3B2")!

  static func blobStore(_ path: String) throws -> Store<CitiesState<BlobCity>, CitiesAction> {
    try Store(
      path: path, initialState: CitiesState<BlobCity>(),
      reducer: CitiesReducer<BlobCity>(make: { BlobCity(id: $0, name: $1) }, rename: { $0.name = $1 }))
  }

  static func textStore(_ path: String) throws -> Store<CitiesState<TextCity>, CitiesAction> {
    try Store(
      path: path, initialState: CitiesState<TextCity>(),
      reducer: CitiesReducer<TextCity>(make: { TextCity(id: $0, name: $1) }, rename: { $0.name = $1 }))
  }

  /// Reported: `rewind import` rejected what `rewind export` wrote ("order list timezones holds
  /// object(["$blob": …]), which is not an id").
  @Test func blobUUIDKeysExportAndImportBackToTheByte() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("blob.sqlite")
    let store = try Self.blobStore(path)
    try store.send(.add(id: Self.paris, name: "Paris"))
    try store.send(.add(id: Self.tokyo, name: "Tokyo"))
    try store.send(.add(id: Self.lima, name: "Lima"))
    try store.send(.delete(id: Self.tokyo))
    let json = try RewindDatabase(path: path, readOnly: true).export()
    #expect(json.contains(#""timezones": [{"$blob":"Dl9cOo0rTH6aQWs9Lx4KmQ=="},{"$blob":"#), "\(json)")

    // Into a new file, and into the same file after a change.
    let fresh = directory.path("fresh.sqlite")
    let other = try Self.blobStore(fresh)
    let tool = try RewindDatabase(path: fresh)
    try tool.importState(json)
    #expect(try tool.export() == json)
    try other.reload()
    #expect(other.state == store.state)

    try store.send(.rename(id: Self.lima, name: "Lima, Peru"))
    let same = try RewindDatabase(path: path)
    try same.importState(json)
    #expect(try same.export() == json)
    #expect(try same.verify().problems == [])
  }

  /// Reported: with the readable strategy, undo silently left entities behind and `verify`
  /// found problems (the log keyed rows by `id.databaseValue`, a blob, while the table held
  /// text).
  @Test func readableUUIDKeysUndoExactlyAndVerify() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("text.sqlite")
    let store = try Self.textStore(path)
    try store.send(.add(id: Self.paris, name: "Paris"))
    try store.send(.add(id: Self.tokyo, name: "Tokyo"))
    try store.send(.rename(id: Self.paris, name: "Paris, France"))
    try store.send(.delete(id: Self.tokyo))

    func tableRows() throws -> [String] {
      try DatabaseQueue(path: path).read { db in
        try Row.fetchAll(db, sql: "SELECT id, name FROM cities ORDER BY id").map {
          "\($0["id"] as String) \($0["name"] as String)"
        }
      }
    }
    // The deleted city is gone from the table, and the log replays to the tables.
    let rows = try tableRows()
    #expect(rows == ["0E5F5C3A-8D2B-4C7E-9A41-6B3D2F1E0A99 Paris, France"])
    let problems = try RewindDatabase(path: path, readOnly: true).verify().problems
    #expect(problems == [])

    // Undo everything: the table ends empty, as memory does, and the file verifies.
    try store.undo()
    #expect(store.state.cities[Self.tokyo]?.name == "Tokyo")
    try store.undo()
    #expect(store.state.cities[Self.paris]?.name == "Paris")
    try store.undo()
    try store.undo()
    #expect(store.state.cities.isEmpty)
    let rowsAfterUndo = try tableRows()
    #expect(rowsAfterUndo == [])
    #expect(try Self.textStore(path).state == store.state)
    #expect(try RewindDatabase(path: path, readOnly: true).verify().problems == [])

    // Redo everything, through the tool this time.
    let tool = try RewindDatabase(path: path)
    while try tool.redo() != nil {}
    #expect(try tableRows() == ["0E5F5C3A-8D2B-4C7E-9A41-6B3D2F1E0A99 Paris, France"])
    try store.reload()
    #expect(store.state.cities.ids.sorted() == [Self.paris])
    #expect(store.state.timezones.ids == [Self.paris])
    #expect(try tool.verify().problems == [])
  }
}
