import Foundation
import Rewind
import RewindTesting
import Testing

/// A card has a generated UUID and a creation date besides its key. The UUID is a column, not
/// the key, and the tests compare it decoded, never as stored.
struct Card: Entity {
  static let databaseTableName = "cards"
  var id: Int64
  var uuid: UUID
  var title: String
  var createdAt: Date

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("uuid", .blob).notNull()
      t.column("title", .text).notNull()
      t.column("createdAt", .datetime).notNull()
    }
  }
}

struct CardsState: PersistentState, Equatable {
  var cards = EntityTable<Card>()
  var order = OrderedIDList<Int64>()

  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.cards), .list(\.order, named: "cards", of: Card.self))
  }

  mutating func append(uuid: UUID, title: String, createdAt: Date) {
    let id = cards.nextID
    cards.insert(Card(id: id, uuid: uuid, title: title, createdAt: createdAt))
    order.append(id)
  }
}

enum CardsAction: LoggedAction, Equatable {
  case add(title: String)
  /// Asks an effect for the UUID: it reads `\.uuid` on its own task.
  case addFromEffect(title: String)
  case added(uuid: UUID, title: String)
}

struct CardsReducer: Reducer {
  @Dependency(\.uuid) var uuid
  @Dependency(\.date.now) var now

  func reduce(into state: inout CardsState, action: CardsAction) -> Effect<CardsAction> {
    switch action {
    case .add(let title):
      state.append(uuid: uuid(), title: title, createdAt: now)
      return .none
    case .addFromEffect(let title):
      return .run { send in
        @Dependency(\.uuid) var uuid
        try await send(.added(uuid: uuid(), title: title))
      }
    case .added(let uuid, let title):
      state.append(uuid: uuid, title: title, createdAt: now)
      return .none
    }
  }
}

/// Reducers and effects read `@Dependency(\.uuid)` and `@Dependency(\.date)` through the store
/// that runs them: deterministic in a test store, and whatever a store was created with.
@MainActor
struct DependencyTests {
  /// TestStore's fixed date.
  static let testDate = Date(timeIntervalSince1970: 1_234_567_890)
  static let otherDate = Date(timeIntervalSince1970: 1_700_000_000)

  @Test func aTestStoreGeneratesIncrementingUUIDsAndAFixedDate() async throws {
    let store = try TestStore(initialState: CardsState(), reducer: CardsReducer())
    try await store.send(.add(title: "Milk")) {
      $0.cards.insert(Card(id: 1, uuid: UUID(0), title: "Milk", createdAt: Self.testDate))
      $0.order.append(1)
    }
    try await store.send(.add(title: "Eggs")) {
      $0.cards.insert(Card(id: 2, uuid: UUID(1), title: "Eggs", createdAt: Self.testDate))
      $0.order.append(2)
    }
    await store.finish()
    #expect(UUID(1).uuidString == "00000000-0000-0000-0000-000000000001")
  }

  @Test func aTestCanOverrideTheDefaultsAndChangeThemBetweenSends() async throws {
    let store = try TestStore(initialState: CardsState(), reducer: CardsReducer()) {
      $0.date = .constant(Self.otherDate)
    }
    try await store.send(.add(title: "Milk")) {
      $0.cards.insert(Card(id: 1, uuid: UUID(0), title: "Milk", createdAt: Self.otherDate))
      $0.order.append(1)
    }
    store.dependencies.date = .constant(Self.testDate)
    store.dependencies.uuid = .constant(UUID(9))
    try await store.send(.add(title: "Eggs")) {
      $0.cards.insert(Card(id: 2, uuid: UUID(9), title: "Eggs", createdAt: Self.testDate))
      $0.order.append(2)
    }
    await store.finish()
  }

  @Test func anEffectReadsTheStoresDependencies() async throws {
    let store = try TestStore(initialState: CardsState(), reducer: CardsReducer())
    try await store.send(.add(title: "Milk")) {
      $0.cards.insert(Card(id: 1, uuid: UUID(0), title: "Milk", createdAt: Self.testDate))
      $0.order.append(1)
    }
    try await store.send(.addFromEffect(title: "Tea"))
    // The effect's task drew the next UUID from the same generator.
    try await store.receive(.added(uuid: UUID(1), title: "Tea")) {
      $0.cards.insert(Card(id: 2, uuid: UUID(1), title: "Tea", createdAt: Self.testDate))
      $0.order.append(2)
    }
    await store.finish()
  }

  @Test func aStoreUsesTheDependenciesItWasCreatedWith() throws {
    let store = try Store(inMemory: CardsState(), reducer: CardsReducer()) {
      $0.uuid = .incrementing
      $0.date = .constant(Self.otherDate)
    }
    try store.send(.add(title: "Milk"))
    // A scope around `send` does not change what the reducer reads.
    try withDependencies {
      $0.uuid = .constant(UUID(42))
    } operation: {
      try store.send(.add(title: "Eggs"))
    }
    #expect(store.state.order.map { store.state.cards[$0]?.uuid } == [UUID(0), UUID(1)])
    #expect(store.state.order.map { store.state.cards[$0]?.createdAt } == [Self.otherDate, Self.otherDate])
  }

  @Test func aStoreKeepsTheDependenciesCurrentWhereItWasCreated() throws {
    let store = try withDependencies {
      $0.uuid = .constant(UUID(5))
      $0.date = .constant(Self.otherDate)
    } operation: {
      try Store(inMemory: CardsState(), reducer: CardsReducer())
    }
    try store.send(.add(title: "Milk"))
    #expect(store.state.cards[1]?.uuid == UUID(5))
  }

  @Test func aLiveStoresEffectReadsTheStoresDependencies() async throws {
    let store = try Store(inMemory: CardsState(), reducer: CardsReducer()) {
      $0.uuid = .constant(UUID(7))
      $0.date = .constant(Self.otherDate)
    }
    try store.send(.addFromEffect(title: "Tea"))
    await store.finishEffects()
    #expect(store.state.cards[1] == Card(id: 1, uuid: UUID(7), title: "Tea", createdAt: Self.otherDate))
  }

  /// The same actions on two files, with the same dependencies, export the same bytes.
  @Test func theSameRunExportsTheSameBytes() throws {
    let directory = try TemporaryDirectory()
    func export(_ name: String) throws -> String {
      let path = directory.path(name)
      let store = try Store(path: path, initialState: CardsState(), reducer: CardsReducer()) {
        $0.uuid = .incrementing
        $0.date = .constant(Self.otherDate)
      }
      try store.send(.add(title: "Milk"))
      try store.send(.add(title: "Eggs"))
      return try RewindDatabase(path: path).export()
    }
    let first = try export("first.sqlite")
    #expect(first.contains(#""title":"Milk""#))
    #expect(first.contains(#""title":"Eggs""#))
    #expect(try export("second.sqlite") == first)
  }

  /// swift-dependencies runs code under a test runner in its test context: a live store there
  /// reports reading a `uuid` or `date` the test did not set, rather than generate real ones.
  @Test func aLiveStoreInATestReportsDependenciesItWasNotGiven() throws {
    let store = try Store(inMemory: CardsState(), reducer: CardsReducer())
    try withKnownIssue {
      try store.send(.add(title: "Milk"))
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("has no test implementation") }
    }
  }
}
