import Foundation
import GRDB
import Testing

@testable import Rewind

// A set (or a dictionary keyed by other than strings and integers) encodes its elements in its
// hash order, which Swift seeds per process and which changes with a value's history. An
// entity with `tags: Set<String>` was written in one order, read back in a new process into a
// set iterating in another, and its next change logged the row as memory encoded it: the log's
// image of the row before the change was not what the table held, so `verify` reported the
// file and `compact` and `rebuild-tables` refused it. (Found by an app written on the library,
// a ledger with tagged payees and splits keyed by UUID.) Such collections are now written in
// one order, their elements sorted by their JSON text.

struct Payee: Entity {
  static let databaseTableName = "payees"
  var id: String
  var name: String
  var tags: Set<String>
  var splits: [UUID: Double] = [:]

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("name", .text).notNull()
      t.column("tags", .text).notNull()
      t.column("splits", .text).notNull()
    }
  }
}

struct PayeeFilter: Codable, Equatable, Sendable {
  var tags: Set<String> = []
  var title = ""
}

struct PayeesState: PersistentState, Equatable {
  var payees = EntityTable<Payee>()
  var filter = PayeeFilter()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.payees), .view(\.filter)) }
}

enum PayeesAction: LoggedAction, Equatable {
  case add(id: String, tags: [String], splits: [Double])
  case rename(id: String, name: String)
  case filter(tags: [String])
  case title(String)
}

/// The same elements, iterating in another order than `Set(elements)` does: a set made with
/// room for many more hashes them to other buckets.
func roomySet(_ elements: [String]) -> Set<String> {
  var set = Set<String>(minimumCapacity: 4096)
  set.formUnion(elements)
  return set
}

struct PayeesReducer: Reducer {
  func reduce(into state: inout PayeesState, action: PayeesAction) -> Effect<PayeesAction> {
    switch action {
    case .add(let id, let tags, let splits):
      var keyed = [UUID: Double](minimumCapacity: 4096)
      for (index, split) in splits.enumerated() { keyed[UUID(index)] = split }
      state.payees.insert(Payee(id: id, name: id, tags: roomySet(tags), splits: keyed))
    case .rename(let id, let name): state.payees[id]?.name = name
    case .filter(let tags): state.filter.tags = roomySet(tags)
    case .title(let title): state.filter.title = title
    }
    return .none
  }
}

extension UUID {
  /// A UUID numbered `index`, for tests.
  fileprivate init(_ index: Int) {
    self.init(uuidString: String(format: "00000000-0000-0000-0000-%012d", index))!
  }
}

/// A type with GRDB's own JSON encoder for nested values (not an ``Entity``).
private struct GRDBDefault: EncodableRecord, Encodable {}

@MainActor
struct UnorderedCollectionTests {
  let directory: TemporaryDirectory
  let path: String
  static let tags = (0..<12).map { "t\($0)" }

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("payees.sqlite")
  }

  func open() throws -> Store<PayeesState, PayeesAction> {
    try Store(path: path, initialState: PayeesState(), reducer: PayeesReducer())
  }

  @Test func equalSetsAndDictionariesIteratingApartAreWrittenAsOneRow() throws {
    let (roomy, plain) = (roomySet(Self.tags), Set(Self.tags))
    try #require(Array(roomy) != Array(plain), "the two sets should iterate apart, or this test shows nothing")
    var keyed = [UUID: Double](minimumCapacity: 4096)
    for index in 0..<12 { keyed[UUID(index)] = Double(index) }
    let plainKeyed = Dictionary(uniqueKeysWithValues: keyed.map { ($0.key, $0.value) })
    try #require(Array(keyed.keys) != Array(plainKeyed.keys))
    let a = Payee(id: "Boulangerie", name: "B", tags: roomy, splits: keyed)
    let b = Payee(id: "Boulangerie", name: "B", tags: plain, splits: plainKeyed)
    #expect(try a.databaseRowImage() == b.databaseRowImage())
    // Sorted by each element's JSON text.
    #expect(
      try a.databaseRowImage()["tags"]
        == (#"["t0","t1","t10","t11","t2","t3","t4","t5","t6","t7","t8","t9"]"#).databaseValue)
  }

  @Test func valuesWithoutSetsAreWrittenAsGRDBWritesThem() throws {
    struct Nested: Codable {
      enum Kind: Codable {
        case plain
        case tagged(String, weight: Double)
      }
      var date = Date(timeIntervalSince1970: 1_234_567_890.123)
      var data = Data([0, 1, 2, 250])
      var url = URL(string: "https://example.com/a/b?c=d")!
      var decimal = Decimal(string: "19.99")!
      var numbers = [0.1, 1e-7, -0.0, 1e300, 3]
      var text = "a/b \"q\" é 現金 \u{1}"
      var missing: Int? = nil
      var present: Int? = 7
      var byName = ["b": 2, "a": 1]
      var byNumber = [2: "two", 1: "one"]
      var kinds: [Kind] = [.plain, .tagged("x", weight: 0.5)]
      var matrix = [[1.5, 2], [], [3]]
      var id = UUID(7)
      var single = Set(["only"])
    }
    let canonical = Payee.databaseJSONEncoder(for: "x")
    let grdb = GRDBDefault.databaseJSONEncoder(for: "x")
    #expect(canonical is CanonicalJSONEncoder)
    let value = Nested()
    #expect(
      String(decoding: try canonical.encode(value), as: UTF8.self)
        == String(decoding: try grdb.encode(value), as: UTF8.self))
    #expect(
      String(decoding: try canonical.encode([value, value]), as: UTF8.self)
        == String(decoding: try grdb.encode([value, value]), as: UTF8.self))
  }

  @Test func aRowWithASetReadBackAndChangedAgainIsLoggedAsTheTableHeldIt() throws {
    do {
      let store = try open()
      try store.send(.add(id: "Boulangerie", tags: Self.tags, splits: [1, 2.5, 3, 4, 5, 6]))
    }
    // A new store reads the set back, in the order its decoding inserts it.
    let store = try open()
    try store.send(.rename(id: "Boulangerie", name: "La Boulangerie"))
    _ = try expectHealthy(path)
    _ = try store.undo()
    _ = try store.redo()
    _ = try expectHealthy(path)
    #expect(try open().state == store.state)
    #expect(store.state.payees["Boulangerie"]?.tags == Set(Self.tags))
  }

  @Test func aSetInViewStateOrAPayloadIsWrittenInOneOrder() throws {
    let (roomy, plain) = (roomySet(Self.tags), Set(Self.tags))
    try #require(Array(roomy) != Array(plain))
    #expect(
      try CompactJSONEncoder.encode(PayeeFilter(tags: roomy)) == CompactJSONEncoder.encode(PayeeFilter(tags: plain)))
    #expect(try CompactJSONEncoder.encode(roomy) == #"["t0","t1","t10","t11","t2","t3","t4","t5","t6","t7","t8","t9"]"#)
  }

  @Test func aSetInViewStateReadBackIsLoggedAsTheTableHeldIt() throws {
    do {
      let store = try open()
      try store.send(.filter(tags: Self.tags))
    }
    let store = try open()
    try store.send(.title("Groceries"))
    _ = try expectHealthy(path)
    try store.send(.filter(tags: Array(Self.tags.prefix(6))))
    _ = try expectHealthy(path)
    #expect(try open().state == store.state)
    #expect(store.state.filter.tags == Set(Self.tags.prefix(6)))
  }
}
