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
}

struct MapReducer: Reducer {
  func reduce(into state: inout MapState, action: MapAction) -> Effect<MapAction> {
    switch action {
    case .add(let id): state.places.insert(RatedPlace(id: id, note: ""))
    case .zoom(let zoom): state.view.zoom = zoom
    case .zoomToFit(let width, let span): state.view.zoom = width / span
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
