import Foundation
import GRDB
import Testing

@testable import Rewind

// A view state that lists its properties (`ViewStateProperties`) has its changes found from the
// list, not by walking `encode(to:)`. The list must describe the value as `encode(to:)` does:
// opening a store checks it against the initial state and refuses a list that disagrees,
// naming the property, with the file left as it was; debug builds check every change too.
// (That the rows each change writes are those a walk would write is checked, at random, by
// `ViewPartDiffTests`.)

/// The view state the files are written with: walked, and with a property, `old`, that the
/// later versions below no longer have.
private struct PanelV1: Codable, Equatable, Sendable {
  var zoom = 1
  var title = "a"
  var old = true
}

/// The same view state without `old`, its properties listed.
private struct PanelV2: Codable, Equatable, Sendable, ViewStateProperties {
  var zoom = 1
  var title = "a"

  static let viewProperties: [ViewProperty<Self>] = [ViewProperty("zoom", \.zoom), ViewProperty("title", \.title)]
}

/// A list that leaves out a property `encode(to:)` writes.
private struct MissingTitle: Codable, Equatable, Sendable, ViewStateProperties {
  var zoom = 1
  var title = "a"

  static let viewProperties: [ViewProperty<Self>] = [ViewProperty("zoom", \.zoom)]
}

/// A list that names a property under another name than its coding key.
private struct RenamedTitle: Codable, Equatable, Sendable, ViewStateProperties {
  var zoom = 1
  var title = "a"

  enum CodingKeys: String, CodingKey {
    case zoom
    case title = "heading"
  }

  static let viewProperties: [ViewProperty<Self>] = [ViewProperty("zoom", \.zoom), ViewProperty("title", \.title)]
}

/// A list that names one property twice.
private struct TwiceZoom: Codable, Equatable, Sendable, ViewStateProperties {
  var zoom = 1
  var title = "a"

  static let viewProperties: [ViewProperty<Self>] = [
    ViewProperty("zoom", \.zoom), ViewProperty("title", \.title), ViewProperty("zoom", \.zoom),
  ]
}

/// An `encode(to:)` that writes `zoom` as text, and leaves it out when it is 0, while the list
/// encodes it as a number, always: the initial state (`zoom` 1) already disagrees.
private struct ZoomAsText: Codable, Equatable, Sendable, ViewStateProperties {
  var zoom = 1
  var title = "a"

  enum CodingKeys: String, CodingKey { case zoom, title }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    if zoom != 0 { try container.encode(String(zoom), forKey: .zoom) }
    try container.encode(title, forKey: .title)
  }

  static let viewProperties: [ViewProperty<Self>] = [ViewProperty("zoom", \.zoom), ViewProperty("title", \.title)]
}

/// An `encode(to:)` that leaves `zoom` out when it is 0, where the list writes `0`: the
/// initial state agrees, a change to 0 does not.
private struct ZoomLeftOutAtZero: Codable, Equatable, Sendable, ViewStateProperties {
  var zoom = 1
  var title = "a"

  enum CodingKeys: String, CodingKey { case zoom, title }

  init() {}

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    zoom = try container.decodeIfPresent(Int.self, forKey: .zoom) ?? 0
    title = try container.decode(String.self, forKey: .title)
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    if zoom != 0 { try container.encode(zoom, forKey: .zoom) }
    try container.encode(title, forKey: .title)
  }

  static let viewProperties: [ViewProperty<Self>] = [ViewProperty("zoom", \.zoom), ViewProperty("title", \.title)]
}

private struct PanelState<P: Codable & Equatable & Sendable>: PersistentState, Equatable {
  var panel: P
  /// Generic code does not know whether `P` lists its properties: the list is passed.
  static var schema: StateSchema<Self> {
    StateSchema(
      ViewPart(keyPath: \.panel, prefix: "", listed: (P.self as? any Listed.Type)?.listed as? [ViewProperty<P>]))
  }
}

/// The list of a view state known to list its properties, typed as `Any`.
private protocol Listed { static var listed: Any { get } }

extension PanelV2: Listed { static var listed: Any { viewProperties } }
extension MissingTitle: Listed { static var listed: Any { viewProperties } }
extension RenamedTitle: Listed { static var listed: Any { viewProperties } }
extension TwiceZoom: Listed { static var listed: Any { viewProperties } }
extension ZoomAsText: Listed { static var listed: Any { viewProperties } }
extension ZoomLeftOutAtZero: Listed { static var listed: Any { viewProperties } }

/// A concrete state, whose schema names its view state with its type: `.view` takes the list.
private struct ConcretePanelState: PersistentState, Equatable {
  var panel = PanelV2()
  static var schema: StateSchema<Self> { StateSchema(.view(\.panel)) }
}

private enum PanelAction<P: Codable & Equatable & Sendable>: LoggedAction {
  case set(P)
}

private struct PanelReducer<P: Codable & Equatable & Sendable>: Reducer {
  func reduce(into state: inout PanelState<P>, action: PanelAction<P>) -> Effect<PanelAction<P>> {
    if case .set(let panel) = action { state.panel = panel }
    return .none
  }
}

@MainActor
struct ViewStatePropertiesTests {
  private func open<P>(_ path: String, _ initial: P) throws -> Store<PanelState<P>, PanelAction<P>> {
    try Store(path: path, initialState: PanelState(panel: initial), reducer: PanelReducer<P>())
  }

  private func viewRows(_ path: String) throws -> [String: String] {
    try DatabaseQueue(path: path).read { db in
      try Dictionary(
        uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT path, value FROM view_state").map {
          (
            try $0.checked("path", in: "view_state", as: String.self),
            try $0.checked("value", in: "view_state", as: String.self)
          )
        })
    }
  }

  private func logCount(_ path: String) throws -> Int {
    try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM action_log") ?? 0 }
  }

  @Test func aListThatDisagreesWithEncodeIsRefusedOnOpenNamingTheProperty() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("panel.sqlite")
    do {
      let store = try open(path, PanelV1())
      try store.send(.set(PanelV1(zoom: 2, title: "b", old: true)))
    }
    let (rows, entries) = (try viewRows(path), try logCount(path))

    func refusal<P: Codable & Equatable & Sendable>(_ initial: P) throws -> RewindError {
      let error = #expect(throws: RewindError.self) { _ = try open(path, initial) }
      return try #require(error)
    }
    let missing = try refusal(MissingTitle())
    #expect(missing.code == .schemaMismatch)
    #expect(missing.message.contains("MissingTitle.viewProperties"))
    #expect(missing.message.contains("does not list \"title\""))
    #expect(try refusal(RenamedTitle()).message.contains("\"title\" encodes as \"a\" where encode(to:) writes nothing"))
    #expect(try refusal(TwiceZoom()).message.contains("lists \"zoom\" twice"))
    #expect(try refusal(ZoomAsText()).message.contains("\"zoom\" encodes as 1 where encode(to:) writes \"1\""))

    // Nothing was written by the refused opens.
    #expect(try viewRows(path) == rows)
    #expect(try logCount(path) == entries)
  }

  @Test func aListedViewStateIsComparedPropertyByPropertyAfterTheFirstWalk() throws {
    // `.view` takes the list of a type that lists its properties, sorted by name (the order
    // changes are logged in), and none from one that does not.
    let part = ConcretePanelState.schema.parts.first as? ViewPart<ConcretePanelState, PanelV2>
    #expect(part?.listed?.map(\.name) == ["title", "zoom"])
    #expect(
      (PanelState<PanelV1>.schema.parts.first as? ViewPart<PanelState<PanelV1>, PanelV1>).map { $0.listed == nil }
        == true)

    let directory = try TemporaryDirectory()
    let store = try open(directory.path("panel.sqlite"), PanelV2())
    try store.send(.set(PanelV2(zoom: 2, title: "a")))
    try store.send(.set(PanelV2(zoom: 2, title: "b")))
    let changes = try RowChange.decodeJSON(
      try #require(
        try store.repository.database.read { db in
          try String.fetchOne(db, sql: "SELECT changes FROM action_log ORDER BY seq DESC LIMIT 1")
        }))
    #expect(changes.map { $0.key["path"].flatMap(String.fromDatabaseValue) } == ["title"])
    #expect(changes.first?.after?["value"] == "\"b\"".databaseValue)
  }

  @Test func rowsOfPropertiesTheListedValueNoLongerHasGoAtItsFirstChange() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("panel.sqlite")
    do { _ = try open(path, PanelV1()) }
    #expect(try viewRows(path) == ["zoom": "1", "title": "\"a\"", "old": "true"])

    let store = try open(path, PanelV2())
    try store.send(.set(PanelV2(zoom: 3, title: "a")))
    #expect(try viewRows(path) == ["zoom": "3", "title": "\"a\""])
    try store.send(.set(PanelV2(zoom: 3, title: "c")))
    #expect(try viewRows(path) == ["zoom": "3", "title": "\"c\""])
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  #if DEBUG
    @Test func debugBuildsRefuseAChangeTheListDescribesOtherwiseThanEncode() throws {
      let directory = try TemporaryDirectory()
      let path = directory.path("panel.sqlite")
      let store = try open(path, ZoomLeftOutAtZero())
      var panel = ZoomLeftOutAtZero()
      panel.title = "b"
      try store.send(.set(panel))
      let (rows, entries) = (try viewRows(path), try logCount(path))

      panel.zoom = 0
      let error = #expect(throws: RewindError.self) { try store.send(.set(panel)) }
      #expect(error?.message.contains("\"zoom\" encodes as 0 where encode(to:) writes nothing") == true)
      // The send is refused whole: memory and file as they were.
      #expect(store.state.panel.zoom == 1)
      #expect(try viewRows(path) == rows)
      #expect(try logCount(path) == entries)
    }
  #endif
}
