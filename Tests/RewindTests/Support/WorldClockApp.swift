import Foundation
import GRDB

@testable import Rewind

/// A world clock: groups of timezones ("Europe", "Team"), each group's timezones in the user's
/// order (a keyed list family), a fixed list of favourites, and the selected timezone and group.
/// Timezones belong to their group by a foreign key (ON DELETE CASCADE) that the engine carries
/// out. The app is generic over its kind of key, ``ClockKeys``: UUIDs stored in each of GRDB's
/// three forms, or readable strings.
protocol ClockKeys: Sendable {
  associatedtype Key: Hashable & Comparable & Codable & Sendable & DatabaseValueConvertible
  associatedtype Group: ClockGroupEntity where Group.ID == Key
  associatedtype Zone: ClockZone where Zone.ID == Key

  /// The key of a new group or timezone, from a generated UUID and the name it gets.
  static func key(_ uuid: UUID, name: String) -> Key

  /// The form keys must have wherever the file holds them: tables, lists, the log.
  static func hasStoredForm(_ value: DatabaseValue) -> Bool

  /// The form keys must have in an export.
  static func hasExportForm(_ value: JSONValue) -> Bool
}

protocol ClockGroupEntity: Entity {
  var name: String { get set }
  init(id: ID, name: String)
}

protocol ClockZone: Entity {
  var city: String { get set }
  /// Minutes from UTC.
  var offset: Int { get set }
  var groupId: ID { get set }
  init(id: ID, city: String, offset: Int, groupId: ID)
}

extension ClockGroupEntity {
  static func createGroups(_ db: Database, key: Database.ColumnType) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", key)
      t.column("name", .text).notNull()
    }
  }
}

extension ClockZone {
  /// The timezones table, its group reference declared with a column and `references`.
  static func createZones(_ db: Database, key: Database.ColumnType) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", key)
      t.column("city", .text).notNull()
      t.column("offset", .integer).notNull()
      t.column("groupId", key).notNull().references("groups", onDelete: .cascade)
    }
  }
}

// MARK: - UUIDs as uppercase text: the engine's default, no override.

enum UppercaseUUIDKeys: ClockKeys {
  struct Group: ClockGroupEntity {
    static let databaseTableName = "groups"
    var id: UUID
    var name: String
    static func createTable(_ db: Database) throws { try createGroups(db, key: .text) }
  }

  struct Zone: ClockZone {
    static let databaseTableName = "timezones"
    var id: UUID
    var city: String
    var offset: Int
    var groupId: UUID
    static func createTable(_ db: Database) throws { try createZones(db, key: .text) }
  }

  static func key(_ uuid: UUID, name: String) -> UUID { uuid }

  static func hasStoredForm(_ value: DatabaseValue) -> Bool {
    guard let text = String.fromDatabaseValue(value), case .string = value.storage else { return false }
    return UUID(uuidString: text)?.uuidString == text
  }

  static func hasExportForm(_ value: JSONValue) -> Bool {
    guard case .string(let text) = value else { return false }
    return UUID(uuidString: text)?.uuidString == text
  }
}

// MARK: - UUIDs as lowercase text: GRDB's `.lowercaseString`.

enum LowercaseUUIDKeys: ClockKeys {
  struct Group: ClockGroupEntity {
    static let databaseTableName = "groups"
    var id: UUID
    var name: String
    static func createTable(_ db: Database) throws { try createGroups(db, key: .text) }
    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .lowercaseString }
  }

  struct Zone: ClockZone {
    static let databaseTableName = "timezones"
    var id: UUID
    var city: String
    var offset: Int
    var groupId: UUID
    static func createTable(_ db: Database) throws { try createZones(db, key: .text) }
    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .lowercaseString }
  }

  static func key(_ uuid: UUID, name: String) -> UUID { uuid }

  static func hasStoredForm(_ value: DatabaseValue) -> Bool {
    guard let text = String.fromDatabaseValue(value), case .string = value.storage else { return false }
    return UUID(uuidString: text)?.uuidString.lowercased() == text
  }

  static func hasExportForm(_ value: JSONValue) -> Bool {
    guard case .string(let text) = value else { return false }
    return UUID(uuidString: text)?.uuidString.lowercased() == text
  }
}

// MARK: - UUIDs as 16-byte blobs: GRDB's `.deferredToUUID`.

enum BlobUUIDKeys: ClockKeys {
  struct Group: ClockGroupEntity {
    static let databaseTableName = "groups"
    var id: UUID
    var name: String
    static func createTable(_ db: Database) throws { try createGroups(db, key: .blob) }
    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .deferredToUUID }
  }

  struct Zone: ClockZone {
    static let databaseTableName = "timezones"
    var id: UUID
    var city: String
    var offset: Int
    var groupId: UUID
    static func createTable(_ db: Database) throws { try createZones(db, key: .blob) }
    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .deferredToUUID }
  }

  static func key(_ uuid: UUID, name: String) -> UUID { uuid }

  static func hasStoredForm(_ value: DatabaseValue) -> Bool {
    guard case .blob(let data) = value.storage else { return false }
    return data.count == 16
  }

  static func hasExportForm(_ value: JSONValue) -> Bool {
    guard case .object(let object) = value, object.count == 1, case .string(let base64)? = object["$blob"] else {
      return false
    }
    return Data(base64Encoded: base64)?.count == 16
  }
}

// MARK: - Readable string keys: "tz-europe-paris-1a2b3c4d".

enum StringKeys: ClockKeys {
  struct Group: ClockGroupEntity {
    static let databaseTableName = "groups"
    var id: String
    var name: String
    static func createTable(_ db: Database) throws { try createGroups(db, key: .text) }
  }

  /// Its group reference declared with `belongsTo`.
  struct Zone: ClockZone {
    static let databaseTableName = "timezones"
    var id: String
    var city: String
    var offset: Int
    var groupId: String
    static func createTable(_ db: Database) throws {
      try db.create(table: databaseTableName) { t in
        t.primaryKey("id", .text)
        t.column("city", .text).notNull()
        t.column("offset", .integer).notNull()
        t.belongsTo("group", inTable: "groups", onDelete: .cascade).notNull()
      }
    }
  }

  /// A readable key; now and then one that looks like a number, or holds quotes, a backslash,
  /// spaces or accents, which must stay text everywhere.
  static func key(_ uuid: UUID, name: String) -> String {
    let suffix = uuid.uuidString.prefix(8).lowercased()
    switch uuid.uuid.15 % 8 {
    case 0: return "\(uuid.uuid.14)\(uuid.uuid.13)"  // "1742": text, never an integer
    case 1: return "tz \"\(name)\" \\ \(suffix)"
    case 2: return "zeitzone-ü-é-\(name)-\(suffix)"
    default: return "tz-\(name.lowercased().replacingOccurrences(of: " ", with: "-"))-\(suffix)"
    }
  }

  static func hasStoredForm(_ value: DatabaseValue) -> Bool {
    if case .string = value.storage { return true }
    return false
  }

  static func hasExportForm(_ value: JSONValue) -> Bool {
    if case .string = value { return true }
    return false
  }
}

// MARK: - State, actions, reducer

struct ClockView<Key: Hashable & Codable & Sendable>: Codable, Equatable, Sendable {
  var selectedZone: Key?
  var selectedGroup: Key?
}

struct ClockState<Keys: ClockKeys>: PersistentState, Equatable {
  var groups = EntityTable<Keys.Group>()
  var zones = EntityTable<Keys.Zone>()
  /// Each group's timezones, in the user's order.
  var groupZones = OrderedIDLists<Keys.Key, Keys.Key>()
  var favourites = OrderedIDList<Keys.Key>()
  var view = ClockView<Keys.Key>()

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.groups),
      .entities(\.zones),
      .lists(\.groupZones, named: "groupZones", of: Keys.Zone.self, ownedBy: Keys.Group.self),
      .list(\.favourites, named: "favourites", of: Keys.Zone.self),
      .view(\.view))
  }

  mutating func repairViewState() {
    if let zone = view.selectedZone, !zones.contains(id: zone) { view.selectedZone = nil }
    if let group = view.selectedGroup, !groups.contains(id: group) { view.selectedGroup = nil }
  }
}

enum ClockAction<Key: Hashable & Codable & Sendable>: LoggedAction, Equatable {
  case addGroup(name: String)
  case renameGroup(id: Key, name: String)
  /// Deletes the group only: the engine deletes its timezones (the foreign key cascades) and
  /// their list entries.
  case deleteGroup(id: Key)
  case addZone(city: String, offset: Int, group: Key)
  case moveZone(id: Key, to: Int)
  case moveZoneToGroup(id: Key, group: Key, at: Int)
  case renameZone(id: Key, city: String)
  /// Deletes the timezone only: the engine takes it out of its group's list and the favourites.
  case deleteZone(id: Key)
  case favourite(id: Key)
  case moveFavourite(id: Key, to: Int)
  case selectZone(Key?)
  case selectGroup(Key?)
}

struct ClockReducer<Keys: ClockKeys>: Reducer {
  @Dependency(\.uuid) var uuid

  func reduce(into state: inout ClockState<Keys>, action: ClockAction<Keys.Key>) -> Effect<ClockAction<Keys.Key>> {
    switch action {
    case .addGroup(let name):
      let id = Keys.key(uuid(), name: name)
      guard !state.groups.contains(id: id) else { break }
      state.groups.insert(Keys.Group(id: id, name: name))
      state.view.selectedGroup = id
    case .renameGroup(let id, let name):
      state.groups[id]?.name = name
    case .deleteGroup(let id):
      guard state.groups.remove(id: id) != nil else { break }
      if state.view.selectedGroup == id { state.view.selectedGroup = nil }
      if let zone = state.view.selectedZone, state.zones[zone]?.groupId == id { state.view.selectedZone = nil }
    case .addZone(let city, let offset, let group):
      guard state.groups.contains(id: group) else { break }
      let id = Keys.key(uuid(), name: city)
      guard !state.zones.contains(id: id) else { break }
      state.zones.insert(Keys.Zone(id: id, city: city, offset: offset, groupId: group))
      state.groupZones[group].append(id)
    case .moveZone(let id, let offset):
      guard let group = state.zones[id]?.groupId else { break }
      state.groupZones[group].move(id, to: offset)
    case .moveZoneToGroup(let id, let group, let offset):
      guard let zone = state.zones[id], state.groups.contains(id: group) else { break }
      if zone.groupId == group {
        state.groupZones[group].move(id, to: offset)
      } else {
        state.zones[id]?.groupId = group
        state.groupZones[group].insert(id, at: offset)
      }
    case .renameZone(let id, let city):
      state.zones[id]?.city = city
    case .deleteZone(let id):
      guard state.zones.remove(id: id) != nil else { break }
      if state.view.selectedZone == id { state.view.selectedZone = nil }
    case .favourite(let id):
      guard state.zones.contains(id: id) else { break }
      if !state.favourites.remove(id) { state.favourites.append(id) }
    case .moveFavourite(let id, let offset):
      state.favourites.move(id, to: offset)
    case .selectZone(let id):
      state.view.selectedZone = id.flatMap { state.zones.contains(id: $0) ? $0 : nil }
    case .selectGroup(let id):
      state.view.selectedGroup = id.flatMap { state.groups.contains(id: $0) ? $0 : nil }
    }
    return .none
  }
}

typealias ClockStore<Keys: ClockKeys> = Store<ClockState<Keys>, ClockAction<Keys.Key>>

/// UUIDs from a seed: the same seed gives the same UUIDs, so a session replays exactly.
final class SeededUUIDs: @unchecked Sendable {
  private let lock = NSLock()
  private var random: SplitMix64

  init(seed: UInt64) { random = SplitMix64(seed: seed) }

  func next() -> UUID {
    lock.lock()
    defer { lock.unlock() }
    let (a, b) = (random.next(), random.next())
    let bytes = withUnsafeBytes(of: (a.bigEndian, b.bigEndian)) { Array($0) }
    return UUID(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
        bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
  }
}

/// A world clock on the file at `path`, generating ids with `uuids`.
@MainActor
func worldClock<Keys: ClockKeys>(_ keys: Keys.Type, path: String, uuids: SeededUUIDs) throws -> ClockStore<Keys> {
  try ClockStore<Keys>(path: path, initialState: ClockState(), reducer: ClockReducer<Keys>()) {
    $0.uuid = UUIDGenerator { uuids.next() }
  }
}
