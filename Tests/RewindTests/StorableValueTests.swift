import Foundation
import GRDB
import Testing

@testable import Rewind

// Values and keys that Swift holds one way and SQLite another: refused at the write, with the
// file and memory left as they were, rather than committed as a disagreement that `verify`
// then reports for good. (Found by an app written on the library: a rating computed as 0/0,
// and place names typed once composed and once decomposed.)

/// A place keyed by its name, with a rating an app computes.
struct RatedPlace: Entity {
  static let databaseTableName = "places"
  var id: String
  var note: String
  var rating: Double?

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("note", .text).notNull()
      t.column("rating", .double)
    }
  }
}

struct PlacesState: PersistentState, Equatable {
  var places = EntityTable<RatedPlace>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.places)) }
}

enum PlacesAction: LoggedAction, Equatable {
  case add(id: String, note: String)
  case rate(id: String, total: Double, votes: Double)
  case delete(id: String)
}

struct PlacesReducer: Reducer {
  func reduce(into state: inout PlacesState, action: PlacesAction) -> Effect<PlacesAction> {
    switch action {
    case .add(let id, let note): state.places.insert(RatedPlace(id: id, note: note))
    case .rate(let id, let total, let votes): state.places[id]?.rating = total / votes
    case .delete(let id): state.places.remove(id: id)
    }
    return .none
  }
}

@MainActor
struct StorableValueTests {
  let directory: TemporaryDirectory
  let path: String
  let store: Store<PlacesState, PlacesAction>

  /// "Café" with its é composed (U+00E9) and decomposed (e, U+0301): one string to Swift,
  /// two keys to SQLite.
  static let composed = "Caf\u{E9}"
  static let decomposed = "Cafe\u{301}"

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("places.sqlite")
    store = try Store(path: path, initialState: PlacesState(), reducer: PlacesReducer())
  }

  func reopened() throws -> PlacesState {
    try Store(path: path, initialState: PlacesState(), reducer: PlacesReducer()).state
  }

  func rows() throws -> [String] { try dump(path) }

  /// SQLite stores a NaN real as NULL: memory would hold NaN, the file NULL, the log NaN.
  @Test func aNaNAReducerComputesIsRefusedAndNothingIsWritten() throws {
    try store.send(.add(id: "Home", note: "mine"))
    try store.send(.rate(id: "Home", total: 9, votes: 2))
    let (state, file) = (store.state, try rows())
    let error = #expect(throws: RewindError.self) { try store.send(.rate(id: "Home", total: 0, votes: 0)) }
    #expect(error?.code == .invalidValue)
    #expect(error?.message.contains("places.rating would hold NaN") == true, "\(error?.message ?? "")")
    #expect(store.state == state)
    #expect(try rows() == file)
    // Infinity is a real SQLite holds: it round-trips.
    try store.send(.rate(id: "Home", total: 1, votes: 0))
    #expect(try reopened() == store.state)
    #expect(store.state.places["Home"]?.rating == .infinity)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  /// A negative zero is let through (README, "Failures"): SQLite stores it as 0, so memory
  /// holds -0.0 until the file is read again, which gives 0.0, equal to it; verify agrees.
  @Test func aNegativeZeroIsStoredAsZeroAndReadBackEqual() throws {
    try store.send(.add(id: "Home", note: "mine"))
    try store.send(.rate(id: "Home", total: -0.0, votes: 1))
    #expect(store.state.places["Home"]?.rating?.sign == .minus)
    let read = try #require(try reopened().places["Home"]?.rating)
    #expect(read == 0 && read.sign == .plus)
    #expect(try reopened() == store.state)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  /// Replacing "Café" with "Café" spelled in the other normalization form would insert a
  /// second row where memory holds one entity.
  @Test func aKeyEqualInSwiftButNotInBytesIsRefusedAsAReplacement() throws {
    try store.send(.add(id: Self.composed, note: "first"))
    let (state, file) = (store.state, try rows())
    let error = #expect(throws: RewindError.self) { try store.send(.add(id: Self.decomposed, note: "second")) }
    #expect(error?.code == .invalidValue)
    #expect(error?.message.contains("normalization form") == true, "\(error?.message ?? "")")
    #expect(store.state == state)
    #expect(try rows() == file)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  /// An entity reached by the other spelling of its key is the stored row: an edit updates it
  /// and a delete removes it, and undo puts it back under its own key.
  @Test func anEntityReachedByAnEquivalentKeyChangesItsOwnRow() throws {
    try store.send(.add(id: Self.composed, note: "first"))
    try store.send(.rate(id: Self.decomposed, total: 3, votes: 1))
    #expect(try reopened() == store.state)
    #expect(try reopened().places[Self.composed]?.rating == 3)
    try store.send(.delete(id: Self.decomposed))
    #expect(store.state.places.isEmpty)
    #expect(try reopened().places.isEmpty)
    let count = try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM places") }
    #expect(count == 0)
    try store.undo()
    let keys = try DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: "SELECT id FROM places") }
    #expect(keys.map { Array($0.utf8) } == [Array(Self.composed.utf8)])
    #expect(try reopened() == store.state)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  /// An entry whose after-image was edited leaves the replay wrong from there: the problem
  /// found at a later entry names the earlier one too.
  @Test func verifyNamesTheEntryThatLeftARowAsWellAsTheOneThatDisagrees() throws {
    try store.send(.add(id: "Home", note: "mine"))
    let rated = try #require(try store.send(.rate(id: "Home", total: 4, votes: 2)))
    let disagreeing = try #require(try store.send(.rate(id: "Home", total: 6, votes: 2)))
    try DatabaseQueue(path: path).write { db in
      try db.execute(
        sql:
          "UPDATE action_log SET changes = replace(changes, '\"after\":{\"id\":\"Home\",\"note\":\"mine\",\"rating\":2', '\"after\":{\"id\":\"Home\",\"note\":\"mine\",\"rating\":7') WHERE seq = ?",
        arguments: [rated])
    }
    let problems = try RewindDatabase(path: path).verify().problems
    #expect(
      problems.contains { $0.hasPrefix("seq \(disagreeing) (rate)") && $0.contains("as seq \(rated) left it") },
      "\(problems)")
  }
}

// A value JSON cannot hold (a NaN or an infinity) in what the log stores as JSON: an action's
// payload, or view state. Refused as an invalid value, as one SQLite cannot hold is, with the
// file and memory as they were. (Found by an app written on the library: a zoom computed as
// 0/0 was reported as a failed commit.)

struct MapView: Codable, Equatable, Sendable {
  var zoom = 1.0
  var budget: Decimal?
}

struct MapState: PersistentState, Equatable {
  var places = EntityTable<RatedPlace>()
  var view = MapView()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.places), .view(\.view)) }
}

enum MapAction: LoggedAction, Equatable {
  case add(id: String)
  case zoom(Double)
  case zoomToFit(width: Double, span: Double)
  /// A budget to show, each part's share, kept in view state.
  case budget(total: Decimal, parts: Decimal)
  /// A note of a budget, in the payload only.
  case noteBudget(Decimal)
}

struct MapReducer: Reducer {
  func reduce(into state: inout MapState, action: MapAction) -> Effect<MapAction> {
    switch action {
    case .add(let id): state.places.insert(RatedPlace(id: id, note: ""))
    case .zoom(let zoom): state.view.zoom = zoom
    case .zoomToFit(let width, let span): state.view.zoom = width / span
    case .budget(let total, let parts): state.view.budget = total / parts
    case .noteBudget: break
    }
    return .none
  }
}

@MainActor
struct UnencodableValueTests {
  let directory: TemporaryDirectory
  let path: String
  let store: Store<MapState, MapAction>

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("map.sqlite")
    store = try Store(path: path, initialState: MapState(), reducer: MapReducer())
    try store.send(.add(id: "Home"))
    try store.send(.zoom(2))
  }

  /// Sends `action`, which must be refused as an invalid value whose message contains
  /// `naming`, and checks that memory, the file and the log are as they were.
  func expectRefused(_ action: MapAction, naming: String) throws {
    let (state, seq, file) = (store.state, store.lastSeq, try dump(path))
    let error = #expect(throws: RewindError.self) { try store.send(action) }
    #expect(error?.code == .invalidValue, "\(String(describing: error))")
    #expect(error.map { "\($0)" }?.contains(naming) == true, "\(String(describing: error))")
    #expect(store.state == state)
    #expect(store.lastSeq == seq)
    #expect(try dump(path) == file)
    let reopened = try Store(path: path, initialState: MapState(), reducer: MapReducer())
    #expect(reopened.state == state)
    // The store goes on as before.
    try store.send(.zoom(3))
    #expect(store.state.view.zoom == 3)
  }

  @Test func aNaNInAnActionsPayloadIsAnInvalidValue() throws {
    try expectRefused(.zoom(.nan), naming: "MapAction could not be encoded as JSON")
  }

  @Test func anInfinityInAnActionsPayloadIsAnInvalidValue() throws {
    try expectRefused(.zoom(.infinity), naming: "MapAction could not be encoded as JSON")
  }

  // `Decimal.nan` describes itself as "NaN": it was committed as a payload no JSON reader
  // takes (`verify` reported the entry, `compact` refused the file), and in view state it was
  // refused by SQLite's check of the JSON, as a failed commit.
  @Test func aDecimalNaNInAnActionsPayloadIsAnInvalidValue() throws {
    try expectRefused(.noteBudget(.nan), naming: "MapAction could not be encoded as JSON")
    try store.send(.noteBudget(12.5))
    _ = try expectHealthy(path)
  }

  @Test func aDecimalNaNAReducerPutsInViewStateIsAnInvalidValue() throws {
    // (`Decimal` divided by zero is NaN.)
    try expectRefused(.budget(total: 25, parts: 0), naming: "view state MapView could not be encoded as JSON")
    try store.send(.budget(total: 25, parts: 2))
    #expect(try Store(path: path, initialState: MapState(), reducer: MapReducer()).state.view.budget == 12.5)
  }

  @Test func aNaNAReducerPutsInViewStateIsAnInvalidValue() throws {
    try expectRefused(.zoomToFit(width: 0, span: 0), naming: "view state MapView could not be encoded as JSON")
  }

  @Test func anInitialStateWithANaNInViewStateIsRefusedAndNothingIsSetUp() throws {
    let path = directory.path("new.sqlite")
    var initial = MapState()
    initial.view.zoom = .nan
    let error = #expect(throws: RewindError.self) {
      _ = try Store(path: path, initialState: initial, reducer: MapReducer())
    }
    #expect(error?.code == .invalidValue, "\(String(describing: error))")
    #expect(error.map { "\($0)" }?.contains("view state MapView could not be encoded as JSON") == true)
    // The file was not set up with the refused state: a valid one creates it.
    let created = try Store(path: path, initialState: MapState(), reducer: MapReducer())
    #expect(created.state == MapState())
    #expect(created.lastSeq == 1)
  }
}

// A NaN inside a value an entity stores as JSON text (a nested struct): GRDB's JSON encoder
// refuses it, and the refusal reached the app as a failed commit naming neither the entity
// nor the column (found by a ledger app written on the library).

struct Attachment: Entity {
  struct Meta: Codable, Equatable, Sendable {
    var ratio: Double
  }
  static let databaseTableName = "attachments"
  var id: Int64
  var meta: Meta?

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("meta", .text)
    }
  }
}

struct AttachmentsState: PersistentState, Equatable {
  var attachments = EntityTable<Attachment>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.attachments)) }
}

enum AttachmentAction: LoggedAction, Equatable {
  case attach(id: Int64, width: Double, height: Double)
}

struct AttachmentReducer: Reducer {
  func reduce(into state: inout AttachmentsState, action: AttachmentAction) -> Effect<AttachmentAction> {
    if case .attach(let id, let width, let height) = action {
      state.attachments.insert(Attachment(id: id, meta: .init(ratio: width / height)))
    }
    return .none
  }
}

@MainActor
struct NestedValueTests {
  @Test func aNaNInAColumnStoredAsJSONIsAnInvalidValueNamingTheColumn() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("attachments.sqlite")
    let store = try Store(path: path, initialState: AttachmentsState(), reducer: AttachmentReducer())
    try store.send(.attach(id: 1, width: 4, height: 3))
    let (state, file) = (store.state, try dump(path))
    let error = #expect(throws: RewindError.self) { try store.send(.attach(id: 2, width: 0, height: 0)) }
    #expect(error?.code == .invalidValue, "\(String(describing: error))")
    #expect(
      error?.message.contains(#"attachments.meta.ratio of Attachment {"id":2}"#) == true, "\(String(describing: error))"
    )
    #expect(store.state == state)
    #expect(try dump(path) == file)
  }
}
