import Foundation
import GRDB
import Rewind
import Testing

/// A group of timezones keyed by UUIDs stored as GRDB's 16-byte blobs (`.deferredToUUID`):
/// what users of release 62fd705 had, whose exports `rewind import` refused.
struct BlobGroup: Entity {
  static let databaseTableName = "groups"
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

struct BlobZone: Entity {
  static let databaseTableName = "timezones"
  var id: UUID
  var city: String
  var groupId: UUID

  static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .deferredToUUID }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .blob)
      t.column("city", .text).notNull()
      t.column("groupId", .blob).notNull().references("groups", onDelete: .cascade)
    }
  }
}

struct BlobClockState: PersistentState, Equatable {
  var groups = EntityTable<BlobGroup>()
  var zones = EntityTable<BlobZone>()
  var groupZones = OrderedIDLists<UUID, UUID>()
  var favourites = OrderedIDList<UUID>()
  var view = BlobClockView()

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.groups), .entities(\.zones),
      .lists(\.groupZones, named: "groupZones", of: BlobZone.self, ownedBy: BlobGroup.self),
      .list(\.favourites, named: "favourites", of: BlobZone.self),
      .view(\.view))
  }
}

struct BlobClockView: Codable, Equatable, Sendable {
  var selected: UUID?
}

enum BlobClockAction: LoggedAction, Equatable {
  case addGroup(id: UUID, name: String)
  case deleteGroup(id: UUID)
  case addZone(id: UUID, city: String, group: UUID)
  case favourite(id: UUID)
}

struct BlobClockReducer: Reducer {
  func reduce(into state: inout BlobClockState, action: BlobClockAction) -> Effect<BlobClockAction> {
    switch action {
    case .addGroup(let id, let name):
      state.groups.insert(BlobGroup(id: id, name: name))
    case .deleteGroup(let id):
      // Its timezones and their list entries go with it: the engine does that.
      _ = state.groups.remove(id: id)
    case .addZone(let id, let city, let group):
      state.zones.insert(BlobZone(id: id, city: city, groupId: group))
      state.groupZones[group].append(id)
      state.view.selected = id
    case .favourite(let id):
      state.favourites.append(id)
    }
    return .none
  }
}

/// `rewind export`, `import`, `verify`, `undo` and `restore` on a file keyed by blob UUIDs,
/// each a process, with no app code.
struct UUIDKeysCommandTests {
  let directory: TemporaryDirectory
  let runner: ProcessRunner

  init() throws {
    directory = try TemporaryDirectory()
    runner = ProcessRunner(directory: directory.url)
  }

  @discardableResult
  func rewind(_ arguments: String...) throws -> String {
    let result = try runner.run("rewind", arguments)
    #expect(result.status == 0, "rewind \(arguments): \(result.stderr)")
    return result.stdout
  }

  @MainActor
  func store(_ name: String) throws -> Store<BlobClockState, BlobClockAction> {
    try Store(path: directory.path(name), initialState: BlobClockState(), reducer: BlobClockReducer())
  }

  @MainActor
  @Test func blobUUIDKeysRoundTripThroughTheTool() throws {
    let (europe, asia) = (UUID(), UUID())
    let (paris, lisbon, tokyo) = (UUID(), UUID(), UUID())
    let clock = try store("clock.sqlite")
    try clock.send(.addGroup(id: europe, name: "Europe"))
    try clock.send(.addGroup(id: asia, name: "Asia"))
    try clock.send(.addZone(id: paris, city: "Paris", group: europe))
    try clock.send(.addZone(id: lisbon, city: "Lisbon", group: europe))
    try clock.send(.addZone(id: tokyo, city: "Tokyo", group: asia))
    try clock.send(.favourite(id: tokyo))
    let beforeDelete = try rewind("export", "clock.sqlite")
    let deleteSeq = try #require(try clock.send(.deleteGroup(id: asia)))
    #expect(clock.state.zones.ids.sorted() == [lisbon, paris].sorted())
    #expect(clock.state.favourites.isEmpty)

    // Export, then import into a new file the app set up: the same bytes come back.
    try rewind("export", "clock.sqlite", "-o", "clock.json")
    let json = try String(contentsOfFile: directory.path("clock.json"), encoding: .utf8)
    #expect(json.contains(#"{"$blob":"#))
    _ = try store("copy.sqlite")
    #expect(try rewind("import", "copy.sqlite", "clock.json").hasSuffix(" import\n"))
    #expect(try rewind("export", "copy.sqlite") == json)
    #expect(try rewind("verify", "copy.sqlite").contains("is healthy"))
    #expect(try store("copy.sqlite").state == clock.state)

    // Undo the delete through the tool: the group, its timezones and their list entries are
    // back, exactly.
    try rewind("undo", "clock.sqlite")
    #expect(try rewind("export", "clock.sqlite") == beforeDelete)
    try clock.reload()
    #expect(clock.state.zones.count == 3)
    #expect(clock.state.groupZones[asia].ids == [tokyo])
    #expect(clock.state.favourites.ids == [tokyo])

    // Restore to right after the delete, and import the export over a changed file.
    try rewind("restore", "clock.sqlite", "--to", "\(deleteSeq)")
    #expect(try rewind("export", "clock.sqlite") == json)
    try rewind("undo", "clock.sqlite")
    #expect(try rewind("import", "clock.sqlite", "clock.json").hasSuffix(" import\n"))
    #expect(try rewind("export", "clock.sqlite") == json)
    #expect(try rewind("verify", "clock.sqlite").contains("is healthy"))
  }
}
