import Foundation
import GRDB
import Testing

@testable import Rewind

@MainActor
@Suite struct CanvasScenarioTests {
  @Test func seededBoardIsInTheFileAsRows() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    try store.send(.setTool(.draw(.line, color: "blue")))
    try store.send(.setZoom(2.5))
    #expect(store.state.layerOrder.ids == ["bg", "fg"])
    #expect(store.state.layerShapes["fg"].ids == ["e1", "t1"])
    #expect(store.state.view.selection == ["t1"])
    let shapes = try sqlite3Shell(path, "select id, layerId, kind, x, color from shapes order by id")
    #expect(shapes.out == "e1|fg|ellipse|5.0|\nr1|bg|rect|0.0|red\nt1|fg|text|9.0|black\n", "\(shapes)")
    let view = try sqlite3Shell(path, "select path, value from view_state order by path")
    #expect(view.out.contains(#"tool|{"draw":{"_0":"line","color":"blue"}}"#), "\(view.out)")
    #expect(view.out.contains("zoom|2.5"), "\(view.out)")
    #expect(!view.out.contains("inspector"), "a nil inspector has no row: \(view.out)")
    let reopen = try expectCanvasReopenMatches(store, path)
    #expect(reopen.file == reopen.memory, "\(reopen.file)\n\(reopen.memory)")
    #expect(reopen.readOnly == reopen.memory)
    try expectHealthy(path)
  }

  @Test func aDragIsOneUndoStep() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    for step in 1...6 {
      try store.send(.dragShape(id: "r1", x: Double(step) * 10, y: Double(step) * 5, drag: 1))
    }
    #expect(store.state.shapes["r1"]?.x == 60)
    let stacks = try store.historyStacks()
    #expect(stacks.undo.first?.actions.count == 6, "\(stacks.undo.first as Any)")
    try store.undo()
    #expect(store.state.shapes["r1"]?.x == 0)
    #expect(store.state.shapes["r1"]?.y == 0)
    // The undo before it is the add of t1, not another drag event.
    #expect(try store.historyStacks().undo.first?.actions == ["addShape"])
    try store.redo()
    #expect(store.state.shapes["r1"]?.x == 60)
    #expect(store.state.shapes["r1"]?.y == 30)
    // A second drag of the same shape (another drag id) is a step of its own.
    try store.send(.dragShape(id: "r1", x: 1, y: 1, drag: 2))
    try store.undo()
    #expect(store.state.shapes["r1"]?.x == 60)
    // Grouping holds across a relaunch: the file records the group.
    let reopened = try openCanvas(path)
    try reopened.send(.dragShape(id: "e1", x: 100, y: 100, drag: 3))
    let again = try openCanvas(path)
    try again.send(.dragShape(id: "e1", x: 200, y: 200, drag: 3))
    try again.undo()
    #expect(again.state.shapes["e1"]?.x == 5, "both events of drag 3, sent by two stores, are one step")
    try expectHealthy(path)
  }

  @Test func remoteSyncInsideADragKeepsItsColumns() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    try store.send(.dragShape(id: "r1", x: 10, y: 10, drag: 1))
    try store.send(.remoteSync(id: "e1", x: 50, y: 50, version: 7))
    try store.send(.dragShape(id: "r1", x: 20, y: 20, drag: 1))
    // The sync did not end the group: one undo reverts both drag events.
    try store.undo()
    #expect(store.state.shapes["r1"]?.x == 0)
    #expect(store.state.shapes["e1"]?.x == 50, "the sync is not undone")
    #expect(store.state.shapes["e1"]?.remoteVersion == 7)
    // The sync is not an undo step: the next undo reverts the add of t1.
    try store.undo()
    #expect(store.state.shapes["t1"] == nil)
    #expect(store.state.shapes["e1"]?.x == 50)
    try store.redo()
    try store.redo()
    #expect(store.state.shapes["r1"]?.x == 20)

    // A sync of the dragged shape after the drag: undo keeps the sync's x and y (changed since).
    try store.send(.dragShape(id: "t1", x: 30, y: 30, drag: 2))
    try store.send(.remoteSync(id: "t1", x: 99, y: 98, version: 3))
    try store.undo()
    #expect(store.state.shapes["t1"]?.x == 99)
    #expect(store.state.shapes["t1"]?.y == 98)
    #expect(store.state.shapes["t1"]?.remoteVersion == 3)
    let reopen = try expectCanvasReopenMatches(store, path)
    #expect(reopen.file == reopen.memory)
    try expectHealthy(path)
  }

  @Test func viewOnlyActionsAreSkippedByUndoButKept() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    try store.send(.setZoom(3))
    try store.send(.setTool(.text(fontSize: 14)))
    try store.send(.present(.layer(id: "bg")))
    try store.send(.select(["r1", "e1"]))
    try store.undo()  // reverts the add of t1, not the view-only actions
    #expect(store.state.shapes["t1"] == nil)
    #expect(store.state.view.zoom == 3)
    #expect(store.state.view.tool == .text(fontSize: 14))
    #expect(store.state.view.inspector == .layer(id: "bg"))
    // The add of t1 set the selection to [t1]; it was changed since, so undo keeps it.
    #expect(store.state.view.selection == ["r1", "e1"])
    // A view-only action keeps the redo stack.
    try store.send(.setZoom(4))
    #expect(store.canRedo)
    // So does a non-undoable one.
    try store.send(.remoteSync(id: "r1", x: 3, y: 3, version: 1))
    #expect(store.canRedo)
    try store.redo()
    #expect(store.state.shapes["t1"] != nil)
    try store.undo()
    // A new undoable document action drops it.
    try store.send(.setColor(id: "r1", color: "green"))
    #expect(!store.canRedo)
    #expect(try store.redo() == nil)
    let reopen = try expectCanvasReopenMatches(store, path)
    #expect(reopen.file == reopen.memory)
  }

  @Test func undoOfAddRestoresTheSelectionItReplaced() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    try store.send(.select(["r1"]))
    try store.send(.addShape(id: "n1", layer: "bg", kind: .line, x: 1, y: 2, color: nil))
    #expect(store.state.view.selection == ["n1"])
    try store.undo()
    #expect(store.state.shapes["n1"] == nil)
    #expect(store.state.view.selection == ["r1"], "the step's view part is undone too")
    try store.redo()
    #expect(store.state.view.selection == ["n1"])
  }

  @Test func deletingALayerCascadesAndUndoBringsItAllBackInOrder() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    try store.send(.addShape(id: "l1", layer: "fg", kind: .line, x: 1, y: 1, color: nil))
    try store.send(.reorderShape(id: "l1", to: 0))
    try store.send(.select(["e1", "l1", "r1"]))
    try store.send(.present(.shape(id: "e1")))
    let before = CanvasPlain(store.state)
    #expect(before.layerShapes["fg"] == ["l1", "e1", "t1"])
    try store.send(.deleteLayer(id: "fg"))
    #expect(store.state.shapes.count == 1)
    #expect(store.state.layerShapes["fg"].isEmpty)
    #expect(store.state.view.selection == ["r1"], "the engine's cascade repairs the selection")
    #expect(store.state.view.inspector == nil)
    let rows = try sqlite3Shell(path, "select count(*) from list_entries where list = 'layerShapes'")
    #expect(rows.out == "1\n")
    try store.undo()
    #expect(CanvasPlain(store.state) == before, "\(CanvasPlain(store.state))\n\(before)")
    try store.redo()
    #expect(store.state.shapes["t1"] == nil)
    try store.undo()
    let reopen = try expectCanvasReopenMatches(store, path)
    #expect(reopen.file == before)
    try expectHealthy(path)
  }

  @Test func groupsKeyedByUUIDSetNullOnDelete() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    let group = UUID(uuidString: "12345678-ABCD-4EF0-9123-0123456789AB")!
    try store.send(.addGroup(id: group, name: "Logo"))
    try store.send(.setGroup(shape: "r1", group: group))
    try store.send(.setGroup(shape: "e1", group: group))
    let stored = try sqlite3Shell(path, "select id, groupId from shapes where groupId is not null order by id")
    #expect(stored.out == "e1|\(group.uuidString)\nr1|\(group.uuidString)\n", "\(stored)")
    try store.send(.deleteGroup(id: group))
    #expect(store.state.shapes["r1"]?.groupID == nil)
    #expect(store.state.shapes["e1"]?.groupID == nil)
    try store.undo()
    #expect(store.state.groups[group]?.name == "Logo")
    #expect(store.state.shapes["r1"]?.groupID == group)
    #expect(store.state.shapes["e1"]?.groupID == group)
    // A group that does not exist is a relation the engine refuses.
    let seq = store.lastSeq
    expectRewindError(.relationViolation) { try store.send(.setGroup(shape: "t1", group: UUID())) }
    #expect(store.lastSeq == seq)
    #expect(store.state.shapes["t1"]?.groupID == nil)
    let reopen = try expectCanvasReopenMatches(store, path)
    #expect(reopen.file == reopen.memory)
    try expectHealthy(path)
  }

  @Test func pasteEffectSendsActionsThatAreEachAnUndoStep() async throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    let seq = store.lastSeq
    #expect(try store.send(.paste(layer: "bg", prefix: "p", count: 3)) == nil, "the paste itself changes nothing")
    await store.finishEffects()
    #expect(store.state.layerShapes["bg"].ids == ["r1", "p0", "p1", "p2"])
    #expect(store.lastSeq == seq + 3)
    try store.undo()
    #expect(store.state.layerShapes["bg"].ids == ["r1", "p0", "p1"])
    let log = try RewindDatabase(path: path, readOnly: true).log(from: seq + 1)
    #expect(log.map(\.action) == ["addShape", "addShape", "addShape", "undo"])
  }

  @Test func documentJumpRepairsDanglingSelectionInTheSameStep() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try store.send(.addLayer(id: "bg", name: "Background"))
    let empty = store.lastSeq
    try store.send(.addShape(id: "a", layer: "bg", kind: .rect, x: 0, y: 0, color: nil))
    try store.send(.addShape(id: "b", layer: "bg", kind: .rect, x: 1, y: 1, color: nil))
    try store.send(.select(["a", "b"]))
    try store.send(.present(.shape(id: "b")))
    try store.send(.setZoom(0.5))
    try store.jump(to: empty, timeline: .document)
    #expect(store.state.shapes.isEmpty)
    #expect(store.state.view.selection.isEmpty, "repaired")
    #expect(store.state.view.inspector == nil, "repaired")
    #expect(store.state.view.zoom == 0.5, "a document jump keeps the view")
    let last = try RewindDatabase(path: path, readOnly: true).log(last: 2)
    #expect(last.map(\.kind) == ["jump", "repair"], "\(last.map(\.kind))")
    try store.undo()
    #expect(store.state.shapes.count == 2)
    #expect(store.state.view.selection == ["a", "b"], "undoing the jump brings back the repaired selection")
    #expect(store.state.view.inspector == .shape(id: "b"))
    let reopen = try expectCanvasReopenMatches(store, path)
    #expect(reopen.file == reopen.memory)
    try expectHealthy(path)
  }

  @Test func viewJumpMovesOnlyTheViewState() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    try store.send(.setTool(.pan))
    let panSeq = store.lastSeq
    try store.send(.setTool(.draw(.ellipse, color: nil)))
    try store.send(.setZoom(8))
    try store.send(.deleteShape(id: "t1"))
    try store.jump(to: panSeq, timeline: .view)
    #expect(store.state.view.tool == .pan)
    #expect(store.state.view.zoom == 1)
    #expect(store.state.shapes["t1"] == nil, "the document stays")
    // The selection at panSeq was [t1], which no longer exists: repaired.
    #expect(store.state.view.selection.isEmpty)
    let reopen = try expectCanvasReopenMatches(store, path)
    #expect(reopen.file == reopen.memory)
  }

  @Test func undoThatWouldDeleteRowsWrittenSinceIsAConflict() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try store.send(.addLayer(id: "bg", name: "Background"))
    try store.send(.addLayer(id: "new", name: "New"))
    try store.send(.remoteAddShape(id: "srv", layer: "new"))
    let before = try dump(path)
    let seq = store.lastSeq
    let error = expectRewindError(.conflict) { try store.undo() }
    #expect(error?.description.contains("srv") == true, "\(String(describing: error))")
    #expect(store.lastSeq == seq)
    #expect(try dump(path) == before)
    #expect(store.state.layers["new"] != nil)
    #expect(store.state.shapes["srv"] != nil)
  }

  @Test func layerReorderAndShapeMovesBetweenLayers() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    try store.send(.addLayer(id: "top", name: "Top"))
    try store.send(.reorderLayer(id: "top", to: 0))
    #expect(store.state.layerOrder.ids == ["top", "bg", "fg"])
    try store.send(.moveToLayer(id: "e1", layer: "bg"))
    #expect(store.state.layerShapes["bg"].ids == ["r1", "e1"])
    #expect(store.state.layerShapes["fg"].ids == ["t1"])
    #expect(store.state.layerShapes.owner(of: "e1") == "bg")
    try store.send(.bringToFront(id: "r1"))
    #expect(store.state.layerShapes["bg"].ids == ["e1", "r1"])
    try store.undo()
    try store.undo()
    #expect(store.state.layerShapes["fg"].ids == ["e1", "t1"])
    #expect(store.state.shapes["e1"]?.layerID == "fg")
    #expect(store.state.layerShapes["bg"].ids == ["r1"])
    let reopen = try expectCanvasReopenMatches(store, path)
    #expect(reopen.file == reopen.memory, "\(reopen.file)\n\(reopen.memory)")
    try expectHealthy(path)
  }
}
