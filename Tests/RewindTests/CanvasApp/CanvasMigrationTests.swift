import Foundation
import GRDB
import Testing

@testable import Rewind

// Version 3 of the canvas app: `color` renamed `fill`, an `opacity` column added (version 2,
// described), and the text of a shape split into a `labels` table (version 3, a transform).

struct CanvasShapeV2: Entity {
  static let databaseTableName = "shapes"
  var id: String
  var layerID: String
  var kind: CanvasShapeKind
  var x: Double
  var y: Double
  var width: Double = 10
  var height: Double = 10
  var fill: String?
  var opacity: Double = 1
  var groupID: UUID?
  var remoteVersion: Int64 = 0

  enum CodingKeys: String, CodingKey {
    case id, kind, x, y, width, height, fill, opacity, remoteVersion
    case layerID = "layerId"
    case groupID = "groupId"
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.belongsTo("layer", inTable: CanvasLayer.databaseTableName, onDelete: .cascade).notNull()
      t.column("kind", .text).notNull()
      t.column("x", .double).notNull()
      t.column("y", .double).notNull()
      t.column("width", .double).notNull()
      t.column("height", .double).notNull()
      t.column("fill", .text)
      t.belongsTo("group", inTable: CanvasGroup.databaseTableName, onDelete: .setNull)
      t.column("remoteVersion", .integer).notNull()
      t.column("opacity", .double).notNull()
    }
  }
}

struct CanvasLabel: Entity {
  static let databaseTableName = "labels"
  var id: String
  var text: String

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("text", .text).notNull()
    }
  }
}

let canvasLabelsMigrate: @Sendable (Database) throws -> Void = { db in
  try db.create(table: "labels") { t in
    t.primaryKey("id", .text)
    t.column("text", .text).notNull()
  }
  try db.execute(sql: "INSERT INTO labels (id, text) SELECT id, text FROM shapes WHERE text != ''")
  try db.alter(table: "shapes") { $0.drop(column: "text") }
}

let canvasLabelsRows: @Sendable (HistoryRow) throws -> [HistoryRow] = { row in
  guard row.table == "shapes", let id = row["id"], let text = row["text"] else { return [row] }
  var shape = row
  shape["text"] = nil
  if let string = String.fromDatabaseValue(text), !string.isEmpty {
    return [shape, HistoryRow(table: "labels", columns: ["id": id, "text": text])]
  }
  return [shape]
}

struct CanvasStateV3: PersistentState, Equatable {
  var layers = EntityTable<CanvasLayer>()
  var shapes = EntityTable<CanvasShapeV2>()
  var groups = EntityTable<CanvasGroup>()
  var labels = EntityTable<CanvasLabel>()
  var layerOrder = OrderedIDList<String>()
  var layerShapes = OrderedIDLists<String, String>()
  var view = CanvasView()

  static let labelsMigration = SchemaMigration.transform(
    "3-labels", migrate: canvasLabelsMigrate, rows: canvasLabelsRows)

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.shapes),
      .entities(\.layers),
      .entities(\.groups),
      .entities(\.labels),
      .list(\.layerOrder, named: "layerOrder", of: CanvasLayer.self),
      .lists(\.layerShapes, named: "layerShapes", of: CanvasShapeV2.self, ownedBy: CanvasLayer.self),
      .view(\.view)
    )
    .migrations(
      SchemaMigration(
        "2-fill-opacity", .renameColumn("color", to: "fill", in: "shapes"),
        .addColumn("opacity", to: "shapes", .double, notNull: true, default: 1.0)),
      labelsMigration
    )
  }
}

enum CanvasActionV3: LoggedAction, Equatable {
  case setFill(id: String, fill: String?)
  case setOpacity(id: String, opacity: Double)
  case setLabel(id: String, text: String)
  case dragShape(id: String, x: Double, y: Double, drag: Int)
}

struct CanvasReducerV3: Reducer {
  func reduce(into state: inout CanvasStateV3, action: CanvasActionV3) -> Effect<CanvasActionV3> {
    switch action {
    case .setFill(let id, let fill): state.shapes[id]?.fill = fill
    case .setOpacity(let id, let opacity): state.shapes[id]?.opacity = opacity
    case .setLabel(let id, let text):
      if text.isEmpty { state.labels.remove(id: id) } else { state.labels.insert(CanvasLabel(id: id, text: text)) }
    case .dragShape(let id, let x, let y, _):
      state.shapes[id]?.x = x
      state.shapes[id]?.y = y
    }
    return .none
  }
}

typealias CanvasStoreV3 = Store<CanvasStateV3, CanvasActionV3>

@MainActor
func openCanvasV3(_ path: String) throws -> CanvasStoreV3 {
  try CanvasStoreV3(path: path, initialState: CanvasStateV3(), reducer: CanvasReducerV3())
}

@MainActor
@Suite(.serialized) struct CanvasMigrationTests {
  /// A version-1 file with history: a seeded board, texts, a drag, a colour change.
  func writeVersion1(_ path: String) throws -> (seeded: Int64, texted: Int64) {
    let store = try openCanvas(path)
    try seedCanvas(store)
    let seeded = store.lastSeq
    try store.send(.setText(id: "t1", text: "hello"))
    try store.send(.setText(id: "e1", text: "note"))
    let texted = store.lastSeq
    try store.send(.dragShape(id: "r1", x: 40, y: 41, drag: 1))
    try store.send(.dragShape(id: "r1", x: 50, y: 51, drag: 1))
    try store.send(.setColor(id: "r1", color: "green"))
    try store.send(.select(["r1"]))
    return (seeded, texted)
  }

  @Test func upgradeKeepsHistoryUndoableAcrossRenameAddAndSplit() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let (seeded, texted) = try writeVersion1(path)
    let v1Last = try RewindDatabase(path: path, readOnly: true).inspect().lastSeq

    let store = try openCanvasV3(path)
    let log = try RewindDatabase(path: path, readOnly: true).log(from: v1Last + 1)
    #expect(log.map(\.kind) == ["migration", "migration"], "\(log.map(\.kind))")
    #expect(log.map(\.action) == ["2-fill-opacity", "3-labels"])
    #expect(store.state.shapes["r1"]?.fill == "green")
    #expect(store.state.shapes["r1"]?.opacity == 1)
    #expect(store.state.shapes["r1"]?.x == 50)
    #expect(store.state.labels["t1"]?.text == "hello")
    #expect(store.state.labels["e1"]?.text == "note")
    #expect(store.state.labels["r1"] == nil)
    #expect(store.state.layerShapes["fg"].ids == ["e1", "t1"])
    let columns = try sqlite3Shell(path, "select group_concat(name) from pragma_table_info('shapes')")
    #expect(!columns.out.contains("text"), "\(columns.out)")
    #expect(columns.out.contains("fill") && columns.out.contains("opacity"), "\(columns.out)")

    // New writes in version 3.
    try store.send(.setOpacity(id: "r1", opacity: 0.5))
    try store.undo()
    #expect(store.state.shapes["r1"]?.opacity == 1)
    // Undo across the upgrade: the colour, then the drag, then the texts.
    try store.undo()
    #expect(store.state.shapes["r1"]?.fill == "red")
    try store.undo()
    #expect(store.state.shapes["r1"]?.x == 0)
    #expect(store.state.shapes["r1"]?.y == 0)
    try store.undo()
    #expect(store.state.labels["e1"] == nil, "the v1 setText reads as a label insert")
    #expect(store.state.labels["t1"]?.text == "hello")
    try store.redo()
    #expect(store.state.labels["e1"]?.text == "note")
    // A jump to a version-1 seq gives that state in the new shape.
    try store.jump(to: seeded)
    #expect(store.state.labels.isEmpty)
    #expect(store.state.shapes["r1"]?.fill == "red")
    #expect(store.state.shapes["t1"]?.opacity == 1)
    try store.undo()
    #expect(store.state.labels["e1"]?.text == "note")

    // The tool reads old seqs in the new shape.
    let r = try runRewindTool(["export", path, "--at", "\(texted)"])
    #expect(r.status == 0, "\(r.err)")
    #expect(r.out.contains(#""labels""#), "\(r.out)")
    #expect(r.out.contains(#""fill":"red""#), "\(r.out)")
    #expect(!r.out.contains(#""color""#), "\(r.out)")
    #expect(r.out.contains(#""text":"hello""#), "\(r.out)")
    let restored = try runRewindTool(["restore", path, "--to", "\(texted)"])
    #expect(restored.status == 0, "\(restored.err)")
    try store.reload()
    #expect(store.state.shapes["r1"]?.x == 0)
    #expect(store.state.labels.count == 2)
    let v = try runRewindTool(["verify", path])
    #expect(v.status == 0, "\(v.out)\(v.err)")

    // Reopen equals memory.
    let memory = store.state
    #expect(try openCanvasV3(path).state == memory)
    // The old app is refused: the file is newer.
    expectRewindError(.newerAppSchema) { try openCanvas(path) }
  }

  @Test func aTransformThatDisagreesWithItsMigrateChangesNothing() throws {
    struct Wrong: PersistentState, Equatable {
      var layers = EntityTable<CanvasLayer>()
      var shapes = EntityTable<CanvasShapeV2>()
      var groups = EntityTable<CanvasGroup>()
      var labels = EntityTable<CanvasLabel>()
      var layerOrder = OrderedIDList<String>()
      var layerShapes = OrderedIDLists<String, String>()
      var view = CanvasView()
      static var schema: StateSchema<Self> {
        StateSchema(
          .entities(\.shapes), .entities(\.layers), .entities(\.groups), .entities(\.labels),
          .list(\.layerOrder, named: "layerOrder", of: CanvasLayer.self),
          .lists(\.layerShapes, named: "layerShapes", of: CanvasShapeV2.self, ownedBy: CanvasLayer.self),
          .view(\.view)
        )
        .migrations(
          SchemaMigration(
            "2-fill-opacity", .renameColumn("color", to: "fill", in: "shapes"),
            .addColumn("opacity", to: "shapes", .double, notNull: true, default: 1.0)),
          // Labels every shape, even those with no text, but the row transform says otherwise.
          .transform(
            "3-labels",
            migrate: { db in
              try db.create(table: "labels") { t in
                t.primaryKey("id", .text)
                t.column("text", .text).notNull()
              }
              try db.execute(sql: "INSERT INTO labels (id, text) SELECT id, text FROM shapes")
              try db.alter(table: "shapes") { $0.drop(column: "text") }
            }, rows: canvasLabelsRows)
        )
      }
    }
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    _ = try writeVersion1(path)
    let before = try dump(path)
    let error = expectRewindError(.migrationFailed) {
      try Store<Wrong, CanvasActionV3>(path: path, initialState: Wrong(), reducer: EmptyCanvasReducer())
    }
    #expect(error?.description.contains("r1") == true, "names a row that differs: \(String(describing: error))")
    #expect(try dump(path) == before, "nothing changed")
    // The version-1 app still opens it.
    let store = try openCanvas(path)
    #expect(store.state.shapes["r1"]?.color == "green")
  }

  @Test func versionTwoOnlyFileThenVersionThree() throws {
    // Open with the v1 app, then a v3 app; also a file created new at v3 has its migrations recorded.
    let dir = try TemporaryDirectory()
    let fresh = dir.path("fresh.sqlite")
    do {
      let store = try openCanvasV3(fresh)
      #expect(store.state.shapes.isEmpty)
    }
    let inspection = try RewindDatabase(path: fresh, readOnly: true).inspect()
    #expect(inspection.appMigrations == ["2-fill-opacity", "3-labels"], "\(inspection.appMigrations)")
    let r = try runRewindTool(["verify", fresh])
    #expect(r.status == 0, "\(r.out)\(r.err)")
  }
}

struct EmptyCanvasReducer<State: PersistentState>: Reducer {
  func reduce(into state: inout State, action: CanvasActionV3) -> Effect<CanvasActionV3> { .none }
}
