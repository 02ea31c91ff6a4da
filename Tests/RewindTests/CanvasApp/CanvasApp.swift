import Foundation
import GRDB

@testable import Rewind

// A whiteboard / canvas editor, written as a second-opinion app. Layers (String ids) own their
// shapes (ON DELETE CASCADE) and order them (a keyed list family: the z-order of each layer);
// a fixed list orders the layers. Groups have UUID ids; a shape may belong to one (ON DELETE
// SET NULL). The view state holds the selected shape ids, a tool mode enum with payloads, the
// zoom and a presented inspector. A drag is many `dragShape` actions in one undo group; a
// remote sync is not undoable; an effect "pastes" shapes by sending actions back.

enum CanvasShapeKind: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
  case rect, ellipse, line, text
}

struct CanvasLayer: Entity {
  static let databaseTableName = "layers"
  var id: String
  var name: String
  var isHidden = false

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("name", .text).notNull()
      t.column("isHidden", .boolean).notNull()
    }
  }
}

struct CanvasGroup: Entity {
  static let databaseTableName = "shapeGroups"
  var id: UUID
  var name: String

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("name", .text).notNull()
    }
  }
}

struct CanvasShape: Entity {
  static let databaseTableName = "shapes"
  var id: String
  var layerID: String
  var kind: CanvasShapeKind
  var x: Double
  var y: Double
  var width: Double = 10
  var height: Double = 10
  var color: String?
  var text: String = ""
  var groupID: UUID?
  var remoteVersion: Int64 = 0

  enum CodingKeys: String, CodingKey {
    case id, kind, x, y, width, height, color, text, remoteVersion
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
      t.column("color", .text)
      t.column("text", .text).notNull()
      t.belongsTo("group", inTable: CanvasGroup.databaseTableName, onDelete: .setNull)
      t.column("remoteVersion", .integer).notNull()
    }
  }
}

struct CanvasView: Codable, Equatable, Sendable {
  var selection: [String] = []
  var tool: Tool = .select
  var zoom: Double = 1
  var inspector: Inspector?

  enum Tool: Codable, Equatable, Sendable {
    case select
    case pan
    case draw(CanvasShapeKind, color: String?)
    case text(fontSize: Double)
  }

  enum Inspector: Codable, Equatable, Sendable {
    case shape(id: String)
    case layer(id: String)
    case document
  }
}

struct CanvasState: PersistentState, Equatable {
  var layers = EntityTable<CanvasLayer>()
  var shapes = EntityTable<CanvasShape>()
  var groups = EntityTable<CanvasGroup>()
  /// The layers, bottom first.
  var layerOrder = OrderedIDList<String>()
  /// Each layer's shapes, back to front (z-order).
  var layerShapes = OrderedIDLists<String, String>()
  var view = CanvasView()

  mutating func repairViewState() {
    let kept = view.selection.filter { shapes.contains(id: $0) }
    if kept != view.selection { view.selection = kept }
    switch view.inspector {
    case .shape(let id)? where !shapes.contains(id: id): view.inspector = nil
    case .layer(let id)? where !layers.contains(id: id): view.inspector = nil
    default: break
    }
  }

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.shapes),
      .entities(\.layers),
      .entities(\.groups),
      .list(\.layerOrder, named: "layerOrder", of: CanvasLayer.self),
      .lists(\.layerShapes, named: "layerShapes", of: CanvasShape.self, ownedBy: CanvasLayer.self),
      .view(\.view)
    )
  }
}

enum CanvasAction: LoggedAction, Equatable {
  case addLayer(id: String, name: String)
  case renameLayer(id: String, name: String)
  case deleteLayer(id: String)
  case reorderLayer(id: String, to: Int)
  case addShape(id: String, layer: String, kind: CanvasShapeKind, x: Double, y: Double, color: String?)
  /// One pointer event of a drag: all events of one drag are one undo step.
  case dragShape(id: String, x: Double, y: Double, drag: Int)
  case setColor(id: String, color: String?)
  case setText(id: String, text: String)
  case resize(id: String, width: Double, height: Double)
  /// The width computed in the reducer (scale / divisor): 0/0 is NaN, 1/0 infinity.
  case scaleWidth(id: String, scale: Double, divisor: Double)
  case bringToFront(id: String)
  case reorderShape(id: String, to: Int)
  case moveToLayer(id: String, layer: String)
  case deleteShape(id: String)
  case addGroup(id: UUID, name: String)
  case setGroup(shape: String, group: UUID?)
  case deleteGroup(id: UUID)
  case select([String])
  case setTool(CanvasView.Tool)
  case setZoom(Double)
  case present(CanvasView.Inspector?)
  /// What the server says: not undoable.
  case remoteSync(id: String, x: Double, y: Double, version: Int64)
  case remoteAddShape(id: String, layer: String)
  /// An effect: pastes `count` shapes into `layer`, each as an action of its own.
  case paste(layer: String, prefix: String, count: Int)
  /// A reducer bug: lists a shape that does not exist.
  case listAnyway(id: String, layer: String)

  var undoGroup: String? {
    if case .dragShape(let id, _, _, let drag) = self { return "drag-\(id)-\(drag)" }
    return nil
  }

  var isUndoable: Bool {
    switch self {
    case .remoteSync, .remoteAddShape: false
    default: true
    }
  }
}

struct CanvasReducer: Reducer {
  func reduce(into state: inout CanvasState, action: CanvasAction) -> Effect<CanvasAction> {
    switch action {
    case .addLayer(let id, let name):
      guard !state.layers.contains(id: id) else { break }
      state.layers.insert(CanvasLayer(id: id, name: name))
      state.layerOrder.append(id)
    case .renameLayer(let id, let name):
      state.layers[id]?.name = name
    case .deleteLayer(let id):
      // Only the layer (and its place in the order): the engine cascades to its shapes.
      state.layers.remove(id: id)
      state.layerOrder.remove(id)
      if state.view.inspector == .layer(id: id) { state.view.inspector = nil }
    case .reorderLayer(let id, let offset):
      guard state.layerOrder.contains(id) else { break }
      state.layerOrder.move(id, to: min(max(offset, 0), state.layerOrder.count - 1))
    case .addShape(let id, let layer, let kind, let x, let y, let color):
      guard state.layers.contains(id: layer), !state.shapes.contains(id: id) else { break }
      state.shapes.insert(CanvasShape(id: id, layerID: layer, kind: kind, x: x, y: y, color: color))
      state.layerShapes[layer].append(id)
      state.view.selection = [id]
    case .dragShape(let id, let x, let y, _):
      state.shapes[id]?.x = x
      state.shapes[id]?.y = y
    case .setColor(let id, let color):
      state.shapes[id]?.color = color
    case .setText(let id, let text):
      state.shapes[id]?.text = text
    case .resize(let id, let width, let height):
      state.shapes[id]?.width = width
      state.shapes[id]?.height = height
    case .scaleWidth(let id, let scale, let divisor):
      state.shapes[id]?.width = scale / divisor
    case .bringToFront(let id):
      if let layer = state.layerShapes.owner(of: id) {
        state.layerShapes[layer].move(id, to: state.layerShapes[layer].count - 1)
      }
    case .reorderShape(let id, let offset):
      if let layer = state.layerShapes.owner(of: id) {
        let count = state.layerShapes[layer].count
        state.layerShapes[layer].move(id, to: min(max(offset, 0), count - 1))
      }
    case .moveToLayer(let id, let layer):
      guard state.shapes.contains(id: id), state.layers.contains(id: layer),
        state.shapes[id]?.layerID != layer
      else { break }
      state.shapes[id]?.layerID = layer
      state.layerShapes[layer].append(id)
    case .deleteShape(let id):
      state.shapes.remove(id: id)
      state.layerShapes.remove(id)
      state.view.selection.removeAll { $0 == id }
      if state.view.inspector == .shape(id: id) { state.view.inspector = nil }
    case .addGroup(let id, let name):
      state.groups.insert(CanvasGroup(id: id, name: name))
    case .setGroup(let shape, let group):
      state.shapes[shape]?.groupID = group
    case .deleteGroup(let id):
      state.groups.remove(id: id)
    case .select(let ids):
      state.view.selection = ids
    case .setTool(let tool):
      state.view.tool = tool
    case .setZoom(let zoom):
      state.view.zoom = zoom
    case .present(let inspector):
      state.view.inspector = inspector
    case .remoteSync(let id, let x, let y, let version):
      state.shapes[id]?.x = x
      state.shapes[id]?.y = y
      state.shapes[id]?.remoteVersion = version
    case .remoteAddShape(let id, let layer):
      guard state.layers.contains(id: layer), !state.shapes.contains(id: id) else { break }
      state.shapes.insert(CanvasShape(id: id, layerID: layer, kind: .rect, x: 0, y: 0, color: "remote"))
      state.layerShapes[layer].append(id)
    case .paste(let layer, let prefix, let count):
      return .run { send in
        for index in 0..<count {
          try await send(
            .addShape(
              id: "\(prefix)\(index)", layer: layer, kind: .ellipse, x: Double(index), y: Double(index), color: nil))
        }
      }
    case .listAnyway(let id, let layer):
      state.layerShapes[layer].append(id)
    }
    return .none
  }
}

typealias CanvasStore = Store<CanvasState, CanvasAction>

@MainActor
func openCanvas(_ path: String, readOnly: Bool = false) throws -> CanvasStore {
  try CanvasStore(path: path, initialState: CanvasState(), reducer: CanvasReducer(), readOnly: readOnly)
}

/// The state with its lists as plain arrays, for readable comparisons.
struct CanvasPlain: Equatable, CustomStringConvertible {
  var layers: [String: CanvasLayer]
  var shapes: [String: CanvasShape]
  var groups: [UUID: CanvasGroup]
  var layerOrder: [String]
  var layerShapes: [String: [String]]
  var view: CanvasView

  init(_ s: CanvasState) {
    layers = Dictionary(uniqueKeysWithValues: s.layers.values.map { ($0.id, $0) })
    shapes = Dictionary(uniqueKeysWithValues: s.shapes.values.map { ($0.id, $0) })
    groups = Dictionary(uniqueKeysWithValues: s.groups.values.map { ($0.id, $0) })
    layerOrder = s.layerOrder.ids
    layerShapes = Dictionary(uniqueKeysWithValues: s.layerShapes.ownersWithLists.map { ($0, s.layerShapes[$0].ids) })
    view = s.view
  }

  var document: CanvasPlain {
    var d = self
    d.view = CanvasView()
    return d
  }

  var description: String {
    """
    layers: \(layerOrder) \(layers.values.sorted { $0.id < $1.id }.map { "\($0.id)'\($0.name)'" })
    shapes: \(shapes.values.sorted { $0.id < $1.id }.map { "\($0.id)@\($0.layerID) \($0.kind) (\($0.x),\($0.y)) \($0.width)x\($0.height) c=\($0.color ?? "-") g=\($0.groupID?.uuidString.prefix(4) ?? "-") v\($0.remoteVersion) t=\($0.text.prefix(10))" })
    groups: \(groups.values.map(\.name).sorted())
    layerShapes: \(layerShapes.sorted { $0.key < $1.key })
    view: \(view)
    """
  }
}

/// The memory of `store` must equal what a new store and a read-only one read from the file.
@MainActor
func expectCanvasReopenMatches(_ store: CanvasStore, _ path: String) throws -> (
  memory: CanvasPlain, file: CanvasPlain, readOnly: CanvasPlain
) {
  let memory = CanvasPlain(store.state)
  let readOnly = CanvasPlain(try openCanvas(path, readOnly: true).state)
  let reopened = CanvasPlain(try openCanvas(path).state)
  return (memory, reopened, readOnly)
}

/// A small board: two layers, three shapes.
@MainActor
func seedCanvas(_ store: CanvasStore) throws {
  try store.send(.addLayer(id: "bg", name: "Background"))
  try store.send(.addLayer(id: "fg", name: "Foreground"))
  try store.send(.addShape(id: "r1", layer: "bg", kind: .rect, x: 0, y: 0, color: "red"))
  try store.send(.addShape(id: "e1", layer: "fg", kind: .ellipse, x: 5, y: 5, color: nil))
  try store.send(.addShape(id: "t1", layer: "fg", kind: .text, x: 9, y: 9, color: "black"))
}
