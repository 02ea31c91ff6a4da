import Foundation
import GRDB
import Testing

@testable import Rewind

/// Bad values from a reducer or a payload, and files edited behind the engine's back.
@MainActor
@Suite(.serialized) struct CanvasBadInputTests {
  /// Expects `body` to fail with `code` and leave memory, the file and the log as they were.
  func expectRefusedUnchanged(
    _ code: RewindError.Code, _ store: CanvasStore, _ path: String,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Any?
  ) throws {
    let memory = CanvasPlain(store.state)
    let seq = store.lastSeq
    let file = try dump(path)
    expectRewindError(code, sourceLocation: sourceLocation, body)
    #expect(CanvasPlain(store.state) == memory, "memory moved", sourceLocation: sourceLocation)
    #expect(store.lastSeq == seq, sourceLocation: sourceLocation)
    #expect(try dump(path) == file, "file changed", sourceLocation: sourceLocation)
  }

  @Test func nanIsRefusedInColumnsPayloadsAndViewState() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    try expectRefusedUnchanged(.invalidValue, store, path) {
      try store.send(.scaleWidth(id: "r1", scale: 0, divisor: 0))
    }
    try expectRefusedUnchanged(.invalidValue, store, path) {
      try store.send(.dragShape(id: "r1", x: .nan, y: 0, drag: 1))
    }
    try expectRefusedUnchanged(.invalidValue, store, path) { try store.send(.setZoom(.infinity)) }
    try expectRefusedUnchanged(.invalidValue, store, path) { try store.send(.setTool(.text(fontSize: -.nan))) }
    // The store still works after the refusals.
    try store.send(.dragShape(id: "r1", x: 1, y: 1, drag: 1))
    #expect(store.state.shapes["r1"]?.x == 1)
    try expectHealthy(path)
  }

  @Test func infinityInAnEntityColumnIsKeptThroughUndoReopenAndExport() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    try store.send(.scaleWidth(id: "r1", scale: 1, divisor: 0))
    #expect(store.state.shapes["r1"]?.width == .infinity)
    try store.send(.scaleWidth(id: "e1", scale: -1, divisor: 0))
    var reopened = try openCanvas(path)
    #expect(reopened.state.shapes["r1"]?.width == .infinity)
    #expect(reopened.state.shapes["e1"]?.width == -.infinity)
    let export = try RewindDatabase(path: path, readOnly: true).export()
    #expect(export.contains("inf"), "\(export)")
    try expectHealthy(path)
    try store.undo()
    try store.undo()
    #expect(store.state.shapes["r1"]?.width == 10)
    try store.redo()
    reopened = try openCanvas(path)
    #expect(reopened.state.shapes["r1"]?.width == .infinity)
    // The export of an infinite width imports back.
    let exported = dir.path("inf.json")
    var r = try runRewindTool(["export", path, "-o", exported])
    #expect(r.status == 0, "\(r.err)")
    let other = dir.path("o.sqlite")
    do {
      let o = try openCanvas(other)
      try o.send(.addLayer(id: "x", name: "X"))
    }
    r = try runRewindTool(["import", other, exported])
    #expect(r.status == 0, "\(r.err)")
    #expect(try openCanvas(other).state.shapes["r1"]?.width == .infinity)
    try expectHealthy(path)
  }

  @Test func negativeZeroCoordinateReadsBackEqual() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    try store.send(.dragShape(id: "e1", x: -0.0, y: 3, drag: 1))
    #expect(store.state.shapes["e1"]?.x == 0)
    let reopened = try openCanvas(path)
    #expect(CanvasPlain(reopened.state) == CanvasPlain(store.state))
    try expectHealthy(path)
  }

  @Test func hugeStringsRoundTripAndUndo() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    // About 3.6 MB of UTF-8, escapes among other characters: 396 s while the log's JSON
    // reader was quadratic in such text.
    let huge = String(repeating: "ab\u{1F600}\"\\\n", count: 400_000)
    try store.send(.setText(id: "t1", text: huge))
    try store.send(.addLayer(id: String(repeating: "L", count: 100_000), name: huge))
    #expect(try openCanvas(path).state.shapes["t1"]?.text == huge)
    #expect(try openCanvas(path).state.layers[String(repeating: "L", count: 100_000)]?.name == huge)
    try store.undo()
    try store.undo()
    #expect(store.state.shapes["t1"]?.text == "")
    try store.redo()
    #expect(try openCanvas(path).state.shapes["t1"]?.text == huge)
    try expectHealthy(path)
  }

  @Test func nulCharactersAreRefusedInColumnsAndKeysButKeptInViewState() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    try expectRefusedUnchanged(.invalidValue, store, path) { try store.send(.setText(id: "t1", text: "a\u{0}b")) }
    try expectRefusedUnchanged(.invalidValue, store, path) {
      try store.send(.addLayer(id: "bad\u{0}id", name: "x"))
    }
    // In view state (JSON) a NUL is escaped, and reads back.
    try store.send(.select(["no\u{0}such"]))
    let reopened = try openCanvas(path, readOnly: true)
    #expect(reopened.state.view.selection == ["no\u{0}such"])
  }

  @Test func emptyAndOddIdsWork() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try store.send(.addLayer(id: "", name: "Empty id"))
    try store.send(.addShape(id: "'; DROP TABLE shapes; --", layer: "", kind: .text, x: 1, y: 1, color: nil))
    try store.send(.addShape(id: "%_*", layer: "", kind: .text, x: 2, y: 2, color: "\u{200B}"))
    #expect(store.state.layerShapes[""].ids == ["'; DROP TABLE shapes; --", "%_*"])
    try store.send(.deleteLayer(id: ""))
    #expect(store.state.shapes.isEmpty)
    try store.undo()
    #expect(store.state.layerShapes[""].ids == ["'; DROP TABLE shapes; --", "%_*"])
    let reopened = try openCanvas(path)
    #expect(CanvasPlain(reopened.state) == CanvasPlain(store.state))
    try expectHealthy(path)
  }

  @Test func listingAShapeThatDoesNotExistIsARelationViolation() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try seedCanvas(store)
    try expectRefusedUnchanged(.relationViolation, store, path) {
      try store.send(.listAnyway(id: "ghost", layer: "bg"))
    }
    // A list of an owner that does not exist.
    try expectRefusedUnchanged(.relationViolation, store, path) {
      try store.send(.listAnyway(id: "r1", layer: "nolayer"))
    }
  }

  @Test func composedAndDecomposedIdsAreOneShapeInMemory() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try store.send(.addLayer(id: "bg", name: "Background"))
    let composed = "Caf\u{E9}"
    let decomposed = "Cafe\u{301}"
    try store.send(.addShape(id: composed, layer: "bg", kind: .rect, x: 0, y: 0, color: nil))
    // Dragging through the other spelling changes the shape's own row.
    try store.send(.dragShape(id: decomposed, x: 5, y: 5, drag: 1))
    let rows = try sqlite3Shell(path, "select hex(id), x from shapes")
    #expect(rows.out == "436166C3A9|5.0\n", "\(rows.out)")
    let reopened = try openCanvas(path)
    #expect(CanvasPlain(reopened.state) == CanvasPlain(store.state))
  }

  // MARK: - Tampered files

  @Test func editedLogImageIsFoundByVerify() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    do {
      let store = try openCanvas(path)
      try seedCanvas(store)
      try store.send(.dragShape(id: "r1", x: 10, y: 10, drag: 1))
    }
    let last = try RewindDatabase(path: path, readOnly: true).inspect().lastSeq
    let edit = try sqlite3Shell(
      path, "update action_log set changes = replace(changes, '\"x\":10.0', '\"x\":11.0') where seq = \(last)")
    #expect(edit.status == 0, "\(edit.err)")
    let changed = try sqlite3Shell(path, "select changes from action_log where seq = \(last)")
    #expect(changed.out.contains("11"), "the edit took: \(changed.out)")
    let r = try runRewindTool(["verify", path])
    #expect(r.status != 0, "\(r.out)")
    #expect(r.out.contains("problem"), "\(r.out)")
    #expect(r.out.contains("r1"), "names the row: \(r.out)")
  }

  @Test func deletedLogEntryIsRefusedByJumpAndVerify() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    do {
      let store = try openCanvas(path)
      try seedCanvas(store)
      try store.send(.setColor(id: "r1", color: "a"))
      try store.send(.setColor(id: "r1", color: "b"))
      try store.send(.setColor(id: "r1", color: "c"))
    }
    let last = try RewindDatabase(path: path, readOnly: true).inspect().lastSeq
    let del = try sqlite3Shell(path, "delete from action_log where seq = \(last - 1)")
    #expect(del.status == 0, "\(del.err)")
    let store = try openCanvas(path)
    #expect(store.state.shapes["r1"]?.color == "c")
    let before = try dump(path)
    let error = expectRewindError(.corruptData) { try store.jump(to: last - 3) }
    #expect(error?.description.contains("\(last - 1)") == true, "\(String(describing: error))")
    #expect(try dump(path) == before)
    let r = try runRewindTool(["verify", path])
    #expect(r.status != 0, "\(r.out)")
    let restore = try runRewindTool(["restore", path, "--to", "\(last - 3)"])
    #expect(restore.status != 0, "\(restore.out)")
    #expect(try dump(path) == before)
  }

  @Test func deletedShapeRowStillListedIsRefusedOnOpen() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    do {
      let store = try openCanvas(path)
      try seedCanvas(store)
    }
    let del = try sqlite3Shell(path, "pragma foreign_keys=off; delete from shapes where id = 'e1'")
    #expect(del.status == 0, "\(del.err)")
    let before = try dump(path)
    let error = expectRewindError(.corruptData) { try openCanvas(path) }
    #expect(error?.description.contains("layerShapes") == true, "\(String(describing: error))")
    #expect(error?.description.contains("e1") == true, "\(String(describing: error))")
    #expect(try dump(path) == before)
  }

  @Test func wrongTypedColumnIsFoundByVerify() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    do {
      let store = try openCanvas(path)
      try seedCanvas(store)
    }
    _ = try sqlite3Shell(path, "update shapes set x = 'left' where id = 'r1'")
    let r = try runRewindTool(["verify", path])
    #expect(r.status != 0, "\(r.out)")
    #expect(r.out.contains("r1"), "\(r.out)")
    // An unknown enum value in the kind column: the app cannot decode it.
    _ = try sqlite3Shell(path, "update shapes set x = 0.0, kind = 'hexagon' where id = 'r1'")
    do {
      _ = try openCanvas(path)
      Issue.record("opened a file whose shape kind is not a case")
    } catch {
      #expect("\(error)".contains("hexagon") || "\(error)".contains("kind"), "\(error)")
    }
  }

  @Test func flippedUndoStepIsFoundByVerify() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    do {
      let store = try openCanvas(path)
      try seedCanvas(store)
    }
    let flip = try sqlite3Shell(path, "update undo_steps set undone = 1 where id = (select max(id) from undo_steps)")
    #expect(flip.status == 0, "\(flip.err)")
    let r = try runRewindTool(["verify", path])
    #expect(r.status != 0, "\(r.out)")
    #expect(r.out.contains("undo_steps"), "\(r.out)")
  }

  @Test func editedSnapshotIsFoundByVerifyAndNotRestored() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    do {
      let store = try openCanvas(path)
      try seedCanvas(store)
    }
    var r = try runRewindTool(["snapshot", path, "--label", "s"])
    #expect(r.status == 0, "\(r.err)")
    do {
      let store = try openCanvas(path)
      try store.send(.deleteLayer(id: "fg"))
    }
    let edit = try sqlite3Shell(
      path, "update snapshots set rows = replace(rows, 'Foreground', 'Hacked') where label = 's'")
    #expect(edit.status == 0, "\(edit.err)")
    r = try runRewindTool(["verify", path])
    #expect(r.status != 0, "\(r.out)")
    #expect(r.out.contains("snapshot"), "\(r.out)")
    let before = try dump(path)
    r = try runRewindTool(["restore", path, "--snapshot", "s"])
    #expect(r.status != 0, "a snapshot whose checksum fails is not restored: \(r)")
    #expect(try dump(path) == before)
  }

  @Test func garbageFilesAreRefused() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    try Data("this is not a database at all, just text".utf8).write(to: URL(fileURLWithPath: path))
    expectRewindError(.notSQLite) { try openCanvas(path) }
    let truncated = dir.path("t.sqlite")
    do {
      let store = try openCanvas(truncated)
      try seedCanvas(store)
    }
    let data = try Data(contentsOf: URL(fileURLWithPath: truncated))
    try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: truncated))
    try? FileManager.default.removeItem(atPath: truncated + "-wal")
    try? FileManager.default.removeItem(atPath: truncated + "-shm")
    do {
      _ = try openCanvas(truncated)
      Issue.record("opened a truncated file")
    } catch let error as RewindError {
      #expect([.corruptData, .readFailed, .notSQLite].contains(error.code), "\(error)")
    }
  }
}
