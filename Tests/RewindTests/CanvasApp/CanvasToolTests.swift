import Foundation
import GRDB
import Testing

@testable import Rewind

/// Two stores on one file and the `rewind` tool run as a real process, interleaved with the
/// app's own undo, redo and jumps.
@MainActor
@Suite(.serialized) struct CanvasToolTests {
  func tool(_ args: String...) throws -> (status: Int32, out: String, err: String) {
    let result = try runRewindTool(args)
    return result
  }

  @Test func toolUndoRedoRestoreSnapshotExportVerifyCompact() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    var states: [Int64: CanvasPlain] = [:]
    func send(_ action: CanvasAction) throws {
      try store.send(action)
      states[store.lastSeq] = CanvasPlain(store.state)
    }
    try send(.addLayer(id: "bg", name: "Background"))
    try send(.addLayer(id: "fg", name: "Foreground"))
    try send(.addShape(id: "r1", layer: "bg", kind: .rect, x: 0, y: 0, color: "red"))
    try send(.addShape(id: "e1", layer: "fg", kind: .ellipse, x: 5, y: 5, color: nil))
    let beforeDrag = store.lastSeq
    for i in 1...4 { try send(.dragShape(id: "e1", x: Double(i), y: -Double(i), drag: 9)) }
    try send(.setTool(.draw(.rect, color: "#ff0000")))
    try send(.setZoom(1.25))
    let afterZoom = store.lastSeq

    // The tool's undo reverts the whole drag while the app has the file open.
    var r = try tool("undo", path)
    #expect(r.status == 0, "\(r.err)")
    #expect(r.out.contains("undo: reverted dragShape"), "\(r.out)")
    try store.reload()
    #expect(store.state.shapes["e1"]?.x == 5)
    #expect(store.state.view.zoom == 1.25, "view-only actions after the drag stay")
    var expected = states[afterZoom]!
    expected.shapes["e1"]?.x = 5
    expected.shapes["e1"]?.y = 5
    #expect(CanvasPlain(store.state) == expected)

    // The app redoes what the tool undid.
    try store.redo()
    #expect(CanvasPlain(store.state) == states[afterZoom]!)
    // The tool's undo, then the app's send without reloading first: the tool's change is applied.
    r = try tool("undo", path)
    #expect(r.status == 0, "\(r.err)")
    try store.send(.setColor(id: "r1", color: "blue"))
    #expect(store.state.shapes["e1"]?.x == 5, "the app caught up with the tool's undo")
    #expect(!store.canRedo, "the app's undoable action dropped the tool's redo")
    r = try tool("redo", path)
    #expect(r.status == 1 && r.err.contains("Nothing to redo."), "\(r)")

    // restore --to a past seq equals the state recorded there.
    r = try tool("restore", path, "--to", "\(beforeDrag)")
    #expect(r.status == 0, "\(r.err)")
    try store.reload()
    #expect(CanvasPlain(store.state) == states[beforeDrag]!, "\(CanvasPlain(store.state))\n\(states[beforeDrag]!)")
    // Export --at that seq is byte-for-byte the export of the restored state.
    let atPath = dir.path("at.json")
    r = try tool("export", path, "--at", "\(beforeDrag)", "-o", atPath)
    #expect(r.status == 0, "\(r.err)")
    r = try tool("export", path)
    #expect(r.status == 0, "\(r.err)")
    #expect(
      r.out == (try String(contentsOfFile: atPath, encoding: .utf8)), "export after restore differs from export --at")

    // The app undoes the tool's restore.
    try store.undo()
    var afterUndoRestore = states[afterZoom]!
    afterUndoRestore.shapes["e1"]?.x = 5
    afterUndoRestore.shapes["e1"]?.y = 5
    afterUndoRestore.shapes["r1"]?.color = "blue"
    #expect(CanvasPlain(store.state) == afterUndoRestore, "\(CanvasPlain(store.state))\n\(afterUndoRestore)")

    // Snapshot, change, restore the snapshot.
    r = try tool("snapshot", path, "--label", "before-delete")
    #expect(r.status == 0, "\(r.err)")
    let atLabel = CanvasPlain(store.state)
    try store.send(.deleteLayer(id: "bg"))
    try store.send(.present(.document))
    r = try tool("snapshot", path, "--label", "before-delete")
    #expect(r.status != 0, "a label already taken is refused: \(r)")
    r = try tool("restore", path, "--snapshot", "before-delete")
    #expect(r.status == 0, "\(r.err)")
    try store.reload()
    #expect(CanvasPlain(store.state) == atLabel, "\(CanvasPlain(store.state))\n\(atLabel)")

    r = try tool("verify", path)
    #expect(r.status == 0, "\(r.out)\(r.err)")
    #expect(r.out.contains("is healthy"))

    // Compact, keeping 3 entries: the state is the same, old seqs are refused, undo stops.
    let beforeCompact = CanvasPlain(store.state)
    r = try tool("compact", path, "--keep", "3")
    #expect(r.status == 0, "\(r.out)\(r.err)")
    try store.reload()
    #expect(CanvasPlain(store.state) == beforeCompact)
    #expect(CanvasPlain(try openCanvas(path).state) == beforeCompact)
    expectRewindError(.unknownSeq) { try store.jump(to: beforeDrag) }
    r = try tool("restore", path, "--to", "\(beforeDrag)")
    #expect(r.status != 0, "\(r)")
    var undos = 0
    while try store.undo() != nil {
      undos += 1
      if undos > 40 { break }
    }
    #expect(undos < 40)
    // The labelled snapshot compaction kept still restores.
    r = try tool("restore", path, "--snapshot", "before-delete")
    #expect(r.status == 0, "\(r)")
    try store.reload()
    #expect(CanvasPlain(store.state).document == atLabel.document)
    r = try tool("verify", path)
    #expect(r.status == 0, "\(r.out)\(r.err)")
    let reopen = try expectCanvasReopenMatches(store, path)
    #expect(reopen.file == reopen.memory)
  }

  @Test func twoStoresShareOneUndoHistory() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let a = try openCanvas(path)
    try seedCanvas(a)
    let b = try openCanvas(path)
    try a.send(.dragShape(id: "r1", x: 10, y: 10, drag: 1))
    try a.send(.dragShape(id: "r1", x: 20, y: 20, drag: 1))
    // B undoes A's drag: the stacks belong to the file.
    try b.undo()
    #expect(b.state.shapes["r1"]?.x == 0)
    // A sends the next event of the same drag id without reloading: the undo ended the group.
    try a.send(.dragShape(id: "r1", x: 30, y: 30, drag: 1))
    #expect(a.state.shapes["r1"]?.x == 30)
    try a.undo()
    #expect(a.state.shapes["r1"]?.x == 0, "only the last event was a new step")
    // B writes a non-undoable sync; A's redo does not overwrite it.
    try b.send(.remoteSync(id: "r1", x: 7, y: 7, version: 2))
    try a.redo()
    #expect(a.state.shapes["r1"]?.x == 7, "redo keeps the sync's column (changed since)")
    #expect(a.state.shapes["r1"]?.remoteVersion == 2)
    try b.reload()
    #expect(CanvasPlain(a.state) == CanvasPlain(b.state))
    // B jumps; A undoes the jump.
    try b.jump(to: 3)
    try a.undo()
    try b.reload()
    #expect(CanvasPlain(a.state) == CanvasPlain(b.state))
    #expect(a.state.shapes.count == 3)
    let reopen = try expectCanvasReopenMatches(a, path)
    #expect(reopen.file == reopen.memory, "\(reopen.file)\n\(reopen.memory)")
    try expectHealthy(path)
  }

  @Test func reopenBetweenEveryStepWithTheToolInBetween() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    var expected: CanvasPlain
    do {
      let store = try openCanvas(path)
      try seedCanvas(store)
      expected = CanvasPlain(store.state)
    }
    do {
      let store = try openCanvas(path)
      #expect(CanvasPlain(store.state) == expected)
      try store.send(.dragShape(id: "t1", x: 1, y: 1, drag: 1))
    }
    do {
      let store = try openCanvas(path)
      try store.send(.dragShape(id: "t1", x: 2, y: 2, drag: 1))
      #expect(store.state.shapes["t1"]?.x == 2)
    }
    var r = try runRewindTool(["undo", path])
    #expect(r.status == 0, "\(r.err)")
    #expect(r.out.contains("dragShape + dragShape"), "one step across two processes: \(r.out)")
    do {
      let store = try openCanvas(path)
      #expect(CanvasPlain(store.state) == expected)
      try store.redo()
      #expect(store.state.shapes["t1"]?.x == 2)
      try store.send(.setText(id: "t1", text: "hello"))
    }
    r = try runRewindTool(["undo", path])
    #expect(r.status == 0, "\(r.err)")
    do {
      let store = try openCanvas(path)
      #expect(store.state.shapes["t1"]?.text == "")
      #expect(store.canRedo)
    }
    r = try runRewindTool(["redo", path])
    #expect(r.status == 0, "\(r.err)")
    do {
      let store = try openCanvas(path)
      #expect(store.state.shapes["t1"]?.text == "hello")
      try store.undo()
      try store.undo()
      #expect(store.state.shapes["t1"]?.x == 9)
    }
    r = try runRewindTool(["verify", path])
    #expect(r.status == 0, "\(r.out)\(r.err)")
  }

  @Test func toolRestoreOfViewTimelineIsNotAnUndoStep() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    let seeded = store.lastSeq
    try store.send(.setColor(id: "r1", color: "green"))
    try store.send(.setZoom(5))
    try store.send(.setTool(.pan))
    var r = try runRewindTool(["restore", path, "--to", "\(seeded)", "--timeline", "view"])
    #expect(r.status == 0, "\(r.err)")
    try store.reload()
    #expect(store.state.view.zoom == 1)
    #expect(store.state.view.tool == .select)
    #expect(store.state.shapes["r1"]?.color == "green")
    // Undo then reverts the step before it: the colour.
    r = try runRewindTool(["undo", path])
    #expect(r.status == 0, "\(r.err)")
    #expect(r.out.contains("setColor"), "\(r.out)")
    try store.reload()
    #expect(store.state.shapes["r1"]?.color == "red")
    #expect(store.state.view.zoom == 1)
  }

  @Test func toolImportOfAnExportFromAnotherFileAndUndo() throws {
    let dir = try TemporaryDirectory()
    let pathA = dir.path("a.sqlite")
    let pathB = dir.path("b.sqlite")
    let a = try openCanvas(pathA)
    try seedCanvas(a)
    try a.send(.setText(id: "t1", text: "imported"))
    let b = try openCanvas(pathB)
    try b.send(.addLayer(id: "only", name: "Only"))
    let before = CanvasPlain(b.state)
    let exported = dir.path("a.json")
    var r = try runRewindTool(["export", pathA, "-o", exported])
    #expect(r.status == 0, "\(r.err)")
    r = try runRewindTool(["import", pathB, exported])
    #expect(r.status == 0, "\(r.err)")
    try b.reload()
    #expect(CanvasPlain(b.state) == CanvasPlain(a.state))
    try b.undo()
    #expect(CanvasPlain(b.state) == before)
    r = try runRewindTool(["verify", pathB])
    #expect(r.status == 0, "\(r.out)\(r.err)")
  }

  @Test func logAndInspectShowTheCanvas() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    try store.send(.dragShape(id: "r1", x: 1, y: 1, drag: 1))
    let r = try runRewindTool(["log", path, "--last", "1"])
    #expect(r.status == 0)
    #expect(r.out.contains("dragShape  shapes ~1"), "\(r.out)")
    let inspect = try runRewindTool(["inspect", path])
    #expect(inspect.status == 0, "\(inspect.err)")
    #expect(inspect.out.contains("shapes"), "\(inspect.out)")
    #expect(inspect.out.contains("layerShapes"), "\(inspect.out)")
  }
}
