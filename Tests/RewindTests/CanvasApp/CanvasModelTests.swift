import Foundation
import GRDB
import Testing

@testable import Rewind

// A plain-Swift reference model of the canvas and of the history rules the README states:
// column-by-column undo against the current rows, redo reverting what the undo did, undo groups
// that view-only and non-undoable actions do not end, view-only actions skipped, redo dropped by
// a new undoable document change, repairs joining the store's undo/redo/jump (and the move of
// the tool's undo or redo they follow), and jumps that are steps. Random sessions of two stores, the tool's undo
// and redo (in process) and reopens are compared with it after every step.

struct CanvasModelState: Equatable, CustomStringConvertible {
  var shapes: [String: CanvasShape] = [:]
  var lists: [String: [String]] = [:]
  var view = CanvasView()

  init() {}

  init(_ s: CanvasState) {
    let plain = CanvasPlain(s)
    shapes = plain.shapes
    lists = plain.layerShapes
    view = plain.view
  }

  var description: String {
    "shapes: \(shapes.values.sorted { $0.id < $1.id }.map { "\($0.id)@\($0.layerID)(\($0.x),\($0.y)) c=\($0.color ?? "-") v\($0.remoteVersion)" }) lists: \(lists.sorted { $0.key < $1.key }) view: \(view)"
  }

  var document: CanvasModelState {
    var d = self
    d.view = CanvasView()
    return d
  }
}

enum CanvasModelColumn: CaseIterable {
  case layerID, x, y, color, remoteVersion
  func same(_ a: CanvasShape, _ b: CanvasShape) -> Bool {
    switch self {
    case .layerID: a.layerID == b.layerID
    case .x: a.x == b.x
    case .y: a.y == b.y
    case .color: a.color == b.color
    case .remoteVersion: a.remoteVersion == b.remoteVersion
    }
  }
  func copy(from src: CanvasShape, into dst: inout CanvasShape) {
    switch self {
    case .layerID: dst.layerID = src.layerID
    case .x: dst.x = src.x
    case .y: dst.y = src.y
    case .color: dst.color = src.color
    case .remoteVersion: dst.remoteVersion = src.remoteVersion
    }
  }
}

enum CanvasModelViewProperty: CaseIterable {
  case selection, tool, zoom, inspector
  func same(_ a: CanvasView, _ b: CanvasView) -> Bool {
    switch self {
    case .selection: a.selection == b.selection
    case .tool: a.tool == b.tool
    case .zoom: a.zoom == b.zoom
    case .inspector: a.inspector == b.inspector
    }
  }
  func copy(from src: CanvasView, into dst: inout CanvasView) {
    switch self {
    case .selection: dst.selection = src.selection
    case .tool: dst.tool = src.tool
    case .zoom: dst.zoom = src.zoom
    case .inspector: dst.inspector = src.inspector
    }
  }
}

enum CanvasModelChange {
  case column(id: String, CanvasModelColumn, before: CanvasShape, after: CanvasShape)
  case row(id: String, before: CanvasShape?, after: CanvasShape?)
  case list(layer: String, before: [String], after: [String])
  case view(CanvasModelViewProperty, before: CanvasView, after: CanvasView)

  var key: String {
    switch self {
    case .column(let id, let column, _, _): "c:\(id):\(column)"
    case .row(let id, _, _): "r:\(id)"
    case .list(let layer, _, _): "l:\(layer)"
    case .view(let property, _, _): "v:\(property)"
    }
  }

  var isDocument: Bool {
    if case .view = self { return false }
    return true
  }

  /// The change with `later`'s after (the same key): a step that grows.
  func merged(with later: CanvasModelChange) -> CanvasModelChange {
    switch (self, later) {
    case (.column(let id, let c, let before, _), .column(_, _, _, let after)):
      .column(id: id, c, before: before, after: after)
    case (.row(let id, let before, _), .row(_, _, let after)): .row(id: id, before: before, after: after)
    case (.list(let l, let before, _), .list(_, _, let after)): .list(layer: l, before: before, after: after)
    case (.view(let p, let before, _), .view(_, _, let after)): .view(p, before: before, after: after)
    default: later
    }
  }
}

func canvasModelDiff(_ old: CanvasModelState, _ new: CanvasModelState) -> [CanvasModelChange] {
  var changes: [CanvasModelChange] = []
  for id in Set(old.shapes.keys).union(new.shapes.keys).sorted() {
    switch (old.shapes[id], new.shapes[id]) {
    case (let a?, let b?):
      for column in CanvasModelColumn.allCases where !column.same(a, b) {
        changes.append(.column(id: id, column, before: a, after: b))
      }
    case (let a, let b):
      changes.append(.row(id: id, before: a, after: b))
    }
  }
  for layer in Set(old.lists.keys).union(new.lists.keys).sorted() where old.lists[layer] ?? [] != new.lists[layer] ?? []
  {
    changes.append(.list(layer: layer, before: old.lists[layer] ?? [], after: new.lists[layer] ?? []))
  }
  for property in CanvasModelViewProperty.allCases where !property.same(old.view, new.view) {
    changes.append(.view(property, before: old.view, after: new.view))
  }
  return changes
}

/// Reverts `changes` column by column against `state`: what was changed since keeps its value.
func canvasModelRevert(_ changes: [CanvasModelChange], in state: inout CanvasModelState) {
  for change in changes.reversed() {
    switch change {
    case .column(let id, let column, let before, let after):
      if var current = state.shapes[id], column.same(current, after) {
        column.copy(from: before, into: &current)
        state.shapes[id] = current
      }
    case .row(let id, let before, let after):
      if after != nil {
        state.shapes[id] = nil  // inserted by the change: deleted, with what changed since
      } else if state.shapes[id] == nil {
        state.shapes[id] = before
      }
    case .list(let layer, let before, let after):
      if state.lists[layer] ?? [] == after {
        state.lists[layer] = before.isEmpty ? nil : before
      }
    case .view(let property, let before, let after):
      if property.same(state.view, after) { property.copy(from: before, into: &state.view) }
    }
  }
}

func canvasModelRepair(_ state: inout CanvasModelState) {
  state.view.selection = state.view.selection.filter { state.shapes[$0] != nil }
  if case .shape(let id)? = state.view.inspector, state.shapes[id] == nil { state.view.inspector = nil }
}

struct CanvasHistoryModel {
  var state = CanvasModelState()
  var undo: [[CanvasModelChange]] = []
  var redo: [[CanvasModelChange]] = []
  var openGroup: String?
  /// The tool's undo or redo left view state dangling: the next store write repairs it.
  var pendingRepair = false
  /// The tool's last undo or redo: the state before it, and whether it put its step on the redo
  /// stack (an undo) or the undo stack (a redo). The repair logged right after it joins that
  /// move, so the step's next move reverts it too (README: "Redo reverts ... what the undo did
  /// (and the repair after it)").
  var toolMove: (before: CanvasModelState, ontoRedo: Bool)?

  mutating func catchUpRepair() {
    defer { toolMove = nil }
    guard pendingRepair else { return }
    pendingRepair = false
    let unrepaired = state
    canvasModelRepair(&state)
    guard let move = toolMove, state != unrepaired else { return }
    let application = canvasModelDiff(move.before, state)
    if move.ontoRedo { redo[redo.count - 1] = application } else { undo[undo.count - 1] = application }
  }

  /// The canvas reducer, written again for the actions the sessions send.
  static func reduce(_ s: inout CanvasModelState, _ action: CanvasAction) {
    switch action {
    case .addShape(let id, let layer, let kind, let x, let y, let color):
      guard s.shapes[id] == nil else { return }
      s.shapes[id] = CanvasShape(id: id, layerID: layer, kind: kind, x: x, y: y, color: color)
      s.lists[layer, default: []].append(id)
      s.view.selection = [id]
    case .dragShape(let id, let x, let y, _):
      s.shapes[id]?.x = x
      s.shapes[id]?.y = y
    case .setColor(let id, let color):
      s.shapes[id]?.color = color
    case .deleteShape(let id):
      guard let shape = s.shapes.removeValue(forKey: id) else { return }
      s.lists[shape.layerID]?.removeAll { $0 == id }
      if s.lists[shape.layerID]?.isEmpty == true { s.lists[shape.layerID] = nil }
      s.view.selection.removeAll { $0 == id }
      if s.view.inspector == .shape(id: id) { s.view.inspector = nil }
    case .reorderShape(let id, let offset):
      guard let layer = s.shapes[id]?.layerID, var list = s.lists[layer] else { return }
      list.removeAll { $0 == id }
      list.insert(id, at: min(max(offset, 0), list.count))
      s.lists[layer] = list
    case .moveToLayer(let id, let layer):
      guard let old = s.shapes[id]?.layerID, old != layer else { return }
      s.shapes[id]?.layerID = layer
      s.lists[old]?.removeAll { $0 == id }
      if s.lists[old]?.isEmpty == true { s.lists[old] = nil }
      s.lists[layer, default: []].append(id)
    case .select(let ids): s.view.selection = ids
    case .setZoom(let zoom): s.view.zoom = zoom
    case .setTool(let tool): s.view.tool = tool
    case .present(let inspector): s.view.inspector = inspector
    case .remoteSync(let id, let x, let y, let version):
      s.shapes[id]?.x = x
      s.shapes[id]?.y = y
      s.shapes[id]?.remoteVersion = version
    default:
      fatalError("not modelled: \(action)")
    }
  }

  /// Returns whether the action is logged.
  mutating func send(_ action: CanvasAction) -> Bool {
    catchUpRepair()
    var next = state
    Self.reduce(&next, action)
    let changes = canvasModelDiff(state, next)
    state = next
    guard !changes.isEmpty else { return false }
    guard action.isUndoable, changes.contains(where: \.isDocument) else { return true }
    redo = []
    if let group = action.undoGroup, group == openGroup, var top = undo.popLast() {
      for change in changes {
        if let index = top.firstIndex(where: { $0.key == change.key }) {
          top[index] = top[index].merged(with: change)
        } else {
          top.append(change)
        }
      }
      undo.append(top)
    } else {
      undo.append(changes)
    }
    openGroup = action.undoGroup
    return true
  }

  /// The store's undo (repairing in the same application), or the tool's (`repairs: false`).
  mutating func undoStep(repairs: Bool = true) -> Bool {
    if repairs { catchUpRepair() }
    guard let step = undo.popLast() else { return false }
    openGroup = nil
    let before = state
    canvasModelRevert(step, in: &state)
    if repairs { canvasModelRepair(&state) } else { (pendingRepair, toolMove) = (true, (before, true)) }
    redo.append(canvasModelDiff(before, state))
    return true
  }

  mutating func redoStep(repairs: Bool = true) -> Bool {
    if repairs { catchUpRepair() }
    guard let step = redo.popLast() else { return false }
    openGroup = nil
    let before = state
    canvasModelRevert(step, in: &state)
    if repairs { canvasModelRepair(&state) } else { (pendingRepair, toolMove) = (true, (before, false)) }
    undo.append(canvasModelDiff(before, state))
    return true
  }

  /// A store's jump, whole or document only; returns whether it was logged.
  mutating func jump(to target: CanvasModelState, documentOnly: Bool) -> Bool {
    catchUpRepair()
    var next = target
    if documentOnly { next.view = state.view }
    guard next.document != state.document else { return false }  // the sessions only jump where the document moves
    openGroup = nil
    let before = state
    state = next
    canvasModelRepair(&state)
    redo = []
    undo.append(canvasModelDiff(before, state))
    return true
  }
}

@MainActor
@Suite(.serialized) struct CanvasModelTests {
  static let sessions = Int(ProcessInfo.processInfo.environment["CANVAS_MODEL_COUNT"] ?? "") ?? 12
  static let steps = Int(ProcessInfo.processInfo.environment["CANVAS_MODEL_STEPS"] ?? "") ?? 60

  @Test func randomSessionsMatchTheModel() throws {
    let seed = UInt64(ProcessInfo.processInfo.environment["CANVAS_MODEL_SEED"] ?? "") ?? 0xC0FFEE
    for session in 0..<Self.sessions {
      var random = SplitMix64(seed: seed &+ UInt64(session) &* 7919)
      let ok = try runSession(&random, session: session)
      if !ok { break }
    }
  }

  /// Returns false after the first mismatch (recorded), so one failure is reported, not hundreds.
  func runSession(_ random: inout SplitMix64, session: Int) throws -> Bool {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    // The two layers are the initial state: never undone.
    var initial = CanvasState()
    initial.layers.insert(CanvasLayer(id: "bg", name: "Background"))
    initial.layers.insert(CanvasLayer(id: "fg", name: "Foreground"))
    initial.layerOrder.append("bg")
    initial.layerOrder.append("fg")
    func open(readOnly: Bool = false) throws -> CanvasStore {
      try CanvasStore(path: path, initialState: initial, reducer: CanvasReducer(), readOnly: readOnly)
    }
    var a = try open()
    var b = try open()
    var model = CanvasHistoryModel()
    var states: [Int64: CanvasModelState] = [:]
    var nextShape = 0
    var drag = 0
    var trace: [String] = []
    func layers() -> [String] { ["bg", "fg"] }

    for stepIndex in 0..<Self.steps {
      let shapeIDs = model.state.shapes.keys.sorted()
      let useB = random.next(4) == 0
      let store = useB ? b : a
      let name = useB ? "B" : "A"
      var description = ""
      var logged: Bool
      var seq: Int64?
      let roll = random.next(100)
      do {
        if roll < 30 || shapeIDs.isEmpty {
          // Document actions.
          let action: CanvasAction
          let pick = shapeIDs.isEmpty ? 0 : random.next(7)
          let id = shapeIDs.isEmpty ? "" : shapeIDs[random.next(shapeIDs.count)]
          switch pick {
          case 0:
            nextShape += 1
            action = .addShape(
              id: "s\(nextShape)", layer: layers()[random.next(2)], kind: .rect, x: Double(random.next(50)),
              y: Double(random.next(50)), color: random.next(2) == 0 ? nil : "c\(random.next(3))")
          case 1: action = .setColor(id: id, color: random.next(3) == 0 ? nil : "c\(random.next(3))")
          case 2: action = .deleteShape(id: id)
          case 3: action = .reorderShape(id: id, to: random.next(4))
          case 4: action = .moveToLayer(id: id, layer: layers()[random.next(2)])
          default:
            if random.next(3) == 0 { drag += 1 }
            action = .dragShape(id: id, x: Double(random.next(100)), y: Double(random.next(100)), drag: drag)
          }
          description = "\(name) send \(action)"
          logged = model.send(action)
          seq = try store.send(action)
        } else if roll < 40 {
          let id = shapeIDs[random.next(shapeIDs.count)]
          let action = CanvasAction.remoteSync(
            id: id, x: Double(random.next(100)), y: Double(random.next(100)), version: Int64(random.next(5)))
          description = "\(name) send \(action)"
          logged = model.send(action)
          seq = try store.send(action)
        } else if roll < 52 {
          let action: CanvasAction
          switch random.next(4) {
          case 0:
            var selection = shapeIDs.filter { _ in random.next(2) == 0 }
            if selection.count > 3 { selection = Array(selection.prefix(3)) }
            action = .select(selection)
          case 1: action = .setZoom(Double(random.next(8)) / 2)
          case 2: action = .setTool([.select, .pan, .draw(.line, color: "k"), .text(fontSize: 12)][random.next(4)])
          default:
            action = .present(random.next(3) == 0 ? nil : .shape(id: shapeIDs[random.next(shapeIDs.count)]))
          }
          description = "\(name) send \(action)"
          logged = model.send(action)
          seq = try store.send(action)
        } else if roll < 68 {
          description = "\(name) undo"
          logged = model.undoStep()
          seq = try store.undo()
        } else if roll < 80 {
          description = "\(name) redo"
          logged = model.redoStep()
          seq = try store.redo()
        } else if roll < 86 {
          let tool = try RewindDatabase(path: path)
          if random.next(2) == 0 {
            description = "tool undo"
            logged = model.undoStep(repairs: false)
            seq = try tool.undo()
          } else {
            description = "tool redo"
            logged = model.redoStep(repairs: false)
            seq = try tool.redo()
          }
          if let seq { states[seq] = model.state }
        } else if roll < 93 {
          // A jump to a recorded state where the document differs.
          let documentOnly = random.next(2) == 0
          let targets = states.keys.sorted().filter { states[$0]!.document != model.state.document }
          guard let target = targets.isEmpty ? nil : targets[random.next(targets.count)] else { continue }
          description = "\(name) jump to \(target)\(documentOnly ? " --document" : "")"
          logged = model.jump(to: states[target]!, documentOnly: documentOnly)
          seq = try store.jump(to: target, timeline: documentOnly ? .document : .all)
        } else {
          description = "reopen \(name)"
          // Opening repairs (and logs) what the tool left dangling, in no step.
          model.catchUpRepair()
          if useB { b = try open() } else { a = try open() }
          logged = false
          seq = nil
        }
      } catch {
        trace.append(description)
        Issue.record(
          "session \(session) step \(stepIndex): \(description) threw \(error)\ntrace:\n\(trace.suffix(25).joined(separator: "\n"))"
        )
        return false
      }
      trace.append(description)
      let acting = description.hasPrefix("B") || description == "reopen B" ? b : a
      if !description.hasPrefix("tool") && !description.hasPrefix("reopen") {
        if logged != (seq != nil) {
          Issue.record(
            "session \(session) step \(stepIndex): \(description): model logged \(logged), store returned \(String(describing: seq))\ntrace:\n\(trace.suffix(25).joined(separator: "\n"))"
          )
          return false
        }
        if seq != nil { states[acting.lastSeq] = model.state }
      } else if description.hasPrefix("tool"), logged != (seq != nil) {
        Issue.record(
          "session \(session) step \(stepIndex): \(description): model \(logged), tool \(String(describing: seq))")
        return false
      }
      let memory = CanvasModelState(acting.state)
      let expected = model.state
      if description.hasPrefix("tool") {
        // The tool changed the file: compare what a read-only store reads (no repair).
        let read = CanvasModelState(try open(readOnly: true).state)
        if read != expected {
          Issue.record(
            "session \(session) step \(stepIndex): after \(description)\nfile:  \(read)\nmodel: \(expected)\ntrace:\n\(trace.suffix(25).joined(separator: "\n"))"
          )
          return false
        }
        continue
      }
      if memory != expected {
        Issue.record(
          "session \(session) step \(stepIndex): after \(description)\nstore: \(memory)\nmodel: \(expected)\ntrace:\n\(trace.suffix(25).joined(separator: "\n"))"
        )
        return false
      }
      if stepIndex % 15 == 14 {
        let reopened = CanvasModelState(try open().state)
        model.catchUpRepair()
        if reopened != model.state {
          Issue.record(
            "session \(session) step \(stepIndex): reopen differs\nfile:  \(reopened)\nmodel: \(model.state)\ntrace:\n\(trace.suffix(25).joined(separator: "\n"))"
          )
          return false
        }
      }
    }
    a.waitForSnapshots()
    b.waitForSnapshots()
    #expect(trace.count >= Self.steps / 2, "the session ran")
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(report.isHealthy, "session \(session): \(report.problems)")
    return report.isHealthy
  }
}

extension SplitMix64 {
  /// A number in `0..<bound`.
  fileprivate mutating func next(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
