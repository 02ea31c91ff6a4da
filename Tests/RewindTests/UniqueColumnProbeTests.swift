import Foundation
import GRDB
import Testing

@testable import Rewind

// Found by helper-46's probe of the first way rows trading UNIQUE values were written (the
// last of a cycle's rows had its values moved aside, in place): a row waiting for its values
// was still under its old parent when that parent's deletion cascaded (memory and the log said
// it was deleted, the table kept it); a new parent waiting for its name was not there for its
// new children; a ROLLBACK conflict clause ended the transaction and the write went on outside
// it; a CHECK on another unique column, and a random negative integer, refused the move aside.

struct Cupboard: Entity {
  static let databaseTableName = "cupboard"
  var id: Int64
  var name: String
  static func createTable(_ db: Database) throws {
    try db.execute(sql: "CREATE TABLE cupboard (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
  }
}

struct Jar: Entity {
  static let databaseTableName = "jar"
  var id: Int64
  var shelf: Int64?
  var name: String
  nonisolated(unsafe) static var onDelete = "CASCADE"
  static func createTable(_ db: Database) throws {
    try db.execute(
      sql:
        "CREATE TABLE jar (id INTEGER PRIMARY KEY, shelf INTEGER REFERENCES cupboard(id) ON DELETE \(onDelete), name TEXT NOT NULL UNIQUE)"
    )
  }
}

struct PantryState: PersistentState, Equatable {
  var shelves = EntityTable<Cupboard>()
  var jars = EntityTable<Jar>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.shelves), .entities(\.jars)) }
}

enum PantryAction: LoggedAction, Equatable {
  case shelves([Cupboard])
  case jars([Jar])
  case change(removeShelves: [Int64], removeJars: [Int64], shelves: [Cupboard], jars: [Jar])
}

struct PantryReducer: Reducer {
  func reduce(into state: inout PantryState, action: PantryAction) -> Effect<PantryAction> {
    switch action {
    case .shelves(let shelves): for shelf in shelves { state.shelves.insert(shelf) }
    case .jars(let jars): for jar in jars { state.jars.insert(jar) }
    case .change(let removeShelves, let removeJars, let shelves, let jars):
      for id in removeJars { state.jars.remove(id: id) }
      for id in removeShelves { state.shelves.remove(id: id) }
      for shelf in shelves { state.shelves.insert(shelf) }
      for jar in jars { state.jars.insert(jar) }
    }
    return .none
  }
}

@MainActor
@Suite(.serialized) struct UniqueColumnProbeTests {
  let directory: TemporaryDirectory
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("pantry.sqlite")
    Jar.onDelete = "CASCADE"
  }

  func open() throws -> Store<PantryState, PantryAction> {
    try Store(path: path, initialState: PantryState(), reducer: PantryReducer())
  }

  func expectConsistent(_ store: Store<PantryState, PantryAction>) throws {
    #expect(try open().state == store.state)
    _ = try expectHealthy(path)
  }

  @Test(arguments: ["CASCADE", "SET NULL"])
  func aRowMovingOutOfADeletedParentTakingADeletedRowsNameKeepsItsNewParent(onDelete: String) throws {
    Jar.onDelete = onDelete
    let store = try open()
    try store.send(.shelves([Cupboard(id: 1, name: "Inbox"), Cupboard(id: 2, name: "Archive")]))
    try store.send(.jars([Jar(id: 1, shelf: 1, name: "a"), Jar(id: 2, shelf: 1, name: "b")]))
    try store.send(.change(removeShelves: [1], removeJars: [1], shelves: [], jars: [Jar(id: 2, shelf: 2, name: "a")]))
    #expect(store.state.jars[2] == Jar(id: 2, shelf: 2, name: "a"))
    try expectConsistent(store)
    _ = try store.undo()
    #expect(store.state.jars[1] == Jar(id: 1, shelf: 1, name: "a"))
    try expectConsistent(store)
  }

  @Test func newParentsTakingNamesOldOnesGiveUpTakeTheirNewChildren() throws {
    let store = try open()
    try store.send(.shelves((1...10).map { Cupboard(id: $0, name: "n\($0)") }))
    try store.send(
      .change(
        removeShelves: [], removeJars: [],
        shelves: (1...10).map { Cupboard(id: $0, name: "m\($0)") }
          + (11...20).map { Cupboard(id: $0, name: "n\($0 - 10)") },
        jars: (11...20).map { Jar(id: $0, shelf: $0, name: "j\($0)") }))
    #expect(store.state.shelves[11]?.name == "n1")
    #expect(store.state.jars.count == 10)
    try expectConsistent(store)
  }

  @Test func aUniqueIndexOnAnExpressionIsNamedWhenItRefusesATrade() throws {
    let path = directory.path("tags.sqlite")
    let store = try Store(path: path, initialState: TagState(), reducer: TagReducer())
    try store.send(.add(1, "abc"))
    try store.send(.add(2, "xyz"))
    let error = expectRewindError(.commitFailed) { try store.send(.swap(1, 2)) }
    #expect(error?.message.contains("tag_lower") == true, "\(String(describing: error))")
    #expect(error?.message.contains("an expression") == true, "\(String(describing: error))")
    #expect(store.state.tags[1]?.text == "abc")
    _ = try expectHealthy(path)
  }
}

struct CaseTag: Entity {
  static let databaseTableName = "tag"
  var id: Int64
  var text: String
  static func createTable(_ db: Database) throws {
    try db.execute(
      sql:
        "CREATE TABLE tag (id INTEGER PRIMARY KEY, text TEXT NOT NULL); CREATE UNIQUE INDEX tag_lower ON tag(lower(text))"
    )
  }
}

struct TagState: PersistentState, Equatable {
  var tags = EntityTable<CaseTag>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.tags)) }
}

enum TagAction: LoggedAction, Equatable {
  case add(Int64, String)
  case swap(Int64, Int64)
}

struct TagReducer: Reducer {
  func reduce(into state: inout TagState, action: TagAction) -> Effect<TagAction> {
    switch action {
    case .add(let id, let text): state.tags.insert(CaseTag(id: id, text: text))
    case .swap(let a, let b): (state.tags[a]!.text, state.tags[b]!.text) = (state.tags[b]!.text, state.tags[a]!.text)
    }
    return .none
  }
}

// An entity's `databaseEncodingUserInfo` reaches the values it stores as JSON (the first
// canonical encoder copied it into `JSONEncoder`'s, and crashed on a non-empty one), and
// 128-bit integers inside them are written as GRDB writes them.

struct Flavored: Codable, Hashable, Sendable {
  init() {}
  init(from decoder: any Decoder) throws {}
  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(encoder.userInfo[CodingUserInfoKey(rawValue: "flavor")!] as? String ?? "none")
  }
}

struct Cone: Entity {
  static let databaseTableName = "cone"
  var id: Int64
  var scoops: [Flavored] = [Flavored()]
  static func createTable(_ db: Database) throws {}
  static var databaseEncodingUserInfo: [CodingUserInfoKey: Any] { [CodingUserInfoKey(rawValue: "flavor")!: "vanilla"] }
}

private struct GRDBEncoding: EncodableRecord, Encodable {}

@Test func anEntitysEncodingUserInfoReachesItsNestedValues() throws {
  #expect(try Cone(id: 1).databaseRowImage()["scoops"] == #"["vanilla"]"#.databaseValue)
}

@Test func wideIntegersInNestedValuesAreWrittenAsGRDBWritesThem() throws {
  struct Wide: Codable {
    var signed: Int128 = -5
    var unsigned: UInt128 = 6
    var list: [Int128] = [1, -2]
  }
  let canonical = String(decoding: try Cone.databaseJSONEncoder(for: "x").encode(Wide()), as: UTF8.self)
  let grdb = String(decoding: try GRDBEncoding.databaseJSONEncoder(for: "x").encode(Wide()), as: UTF8.self)
  #expect(canonical == grdb)
}

// Tests of `Seat`, whose table each test sets: in `UniqueColumnTests`' serialized suite, so
// that no two of them set it at once.
extension UniqueColumnTests {
  @Test(arguments: [
    "CREATE TABLE seat (id INTEGER PRIMARY KEY, name TEXT NOT NULL ON CONFLICT ROLLBACK UNIQUE, badge INTEGER)",
    "CREATE TABLE seat (id INTEGER PRIMARY KEY, name TEXT UNIQUE, badge INTEGER); CREATE TRIGGER seat_named BEFORE UPDATE ON seat WHEN NEW.name IS NULL BEGIN SELECT RAISE(ROLLBACK, 'a seat needs a name'); END",
  ])
  func aConflictThatRollsBackEndsTheWrite(table: String) throws {
    Seat.tableSQL = table
    let path = directory.path("seats.sqlite")
    let open = { try Store(path: path, initialState: SeatingState(), reducer: SeatingReducer()) }
    let store = try open()
    try store.send(.add(1, "a"))
    try store.send(.add(2, "b"))
    // A swap sets a row aside through an upsert, whose update SQLite resolves by ABORT: it
    // goes through. A new seat taking a name held ends the transaction under ROLLBACK: the
    // write stops there, refused, rather than go on outside a transaction.
    try store.send(.rotate([1, 2]))
    let seq = store.lastSeq
    _ = try? store.send(.add(3, "a"))
    if table.contains("ON CONFLICT ROLLBACK") { #expect(store.lastSeq == seq) }
    let reopened = try open()
    #expect(reopened.state == store.state)
    #expect(reopened.lastSeq == store.lastSeq)
    #expect(reopened.state.seats[1]?.name == "b")
    _ = try expectHealthy(path)
  }

  @Test(arguments: [
    "CREATE TABLE seat (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, badge INTEGER UNIQUE CHECK (badge BETWEEN 0 AND 999))",
    "CREATE TABLE seat (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, badge INTEGER UNIQUE CHECK (badge > 0)) STRICT",
  ])
  func onlyTheValuesInConflictAreSetAsideAsTheirTypeHoldsThem(table: String) throws {
    Seat.tableSQL = table
    let path = directory.path("seats.sqlite")
    let store = try Store(path: path, initialState: SeatingState(), reducer: SeatingReducer())
    for (id, name) in [(1, "abc"), (2, "xyz"), (3, "mno")] {
      try store.send(.add(Int64(id), name))
      try store.send(.badge(Int64(id), Int64(id)))
    }
    // Names traded beside a badge whose CHECK takes no random value; badges traded in a
    // STRICT table, whose integers are set aside as positive ones.
    for _ in 0..<20 {
      try store.send(.rotate([1, 2]))
      try store.send(.rotate([1, 2, 3]))
      if table.contains("STRICT") { try store.send(.swapBadges(1, 2)) }
    }
    #expect(store.state.seats[1]?.name == "abc")
    #expect(store.state.seats[1]?.badge == 1)
    #expect(try Store(path: path, initialState: SeatingState(), reducer: SeatingReducer()).state == store.state)
    _ = try expectHealthy(path)
  }
}

// A conflict clause that resolves by changing other rows or dropping the write: a seat
// renamed to another's name deleted that seat (REPLACE), or the rename was dropped (IGNORE),
// behind the log's back, with memory and the log holding what the table did not (helper-46).
extension UniqueColumnTests {
  @Test(arguments: ["REPLACE", "IGNORE"])
  func aConflictClauseThatReplacesOrIgnoresIsRefusedAtTheFirstWrite(clause: String) throws {
    Seat.tableSQL =
      "CREATE TABLE seat (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE ON   conflict \(clause.lowercased()), badge INTEGER)"
    let path = directory.path("seats.sqlite")
    let store = try Store(path: path, initialState: SeatingState(), reducer: SeatingReducer())
    let error = expectRewindError(.schemaMismatch) { try store.send(.add(1, "a")) }
    #expect(error?.message.contains("ON CONFLICT \(clause)") == true, "\(String(describing: error))")
    #expect(store.state.seats.isEmpty)
    _ = try expectHealthy(path)
  }
}
