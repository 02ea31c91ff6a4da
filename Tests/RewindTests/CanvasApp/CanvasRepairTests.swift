import Foundation
import Testing

@testable import Rewind

/// Found by `CanvasModelTests` (seed 424242, 80 sessions of 150 steps, session 2 step 83),
/// while its model kept the repair after the tool's undo out of every step.
@MainActor
@Suite(.serialized) struct CanvasRepairTests {
  /// README: "Redo reverts, column by column, what the undo did (and the repair after it)",
  /// and the repair a store logs when it catches up with the tool's undo belongs to that move.
  /// So after the tool's undo of the add of `b` (the selection [a, b], made since, is kept and
  /// dangles) and the store's catch-up repair ([a]), the store's redo brings back `b` and the
  /// selection, as it does after the store's own undo: undo then redo returns to where it
  /// started, whichever process undid.
  @Test func storeRedoAfterToolUndoRevertsTheCatchUpRepairToo() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("c.sqlite")
    let store = try openCanvas(path)
    try store.send(.addLayer(id: "bg", name: "Background"))
    try store.send(.addShape(id: "a", layer: "bg", kind: .rect, x: 0, y: 0, color: nil))
    try store.send(.addShape(id: "b", layer: "bg", kind: .rect, x: 1, y: 1, color: nil))
    try store.send(.select(["a", "b"]))
    let undone = try RewindDatabase(path: path).undo()
    #expect(undone != nil)
    #expect(try openCanvas(path, readOnly: true).state.view.selection == ["a", "b"], "the tool does not repair")
    try store.reload()
    #expect(store.state.shapes["b"] == nil)
    #expect(store.state.view.selection == ["a"], "catching up repairs the selection")
    try store.redo()
    #expect(store.state.shapes["b"] != nil)
    #expect(store.state.view.selection == ["a", "b"])
    #expect(CanvasPlain(try openCanvas(path).state) == CanvasPlain(store.state))
    // The same as the store's own undo and redo.
    try store.undo()
    #expect(store.state.view.selection == ["a"])
    try store.redo()
    #expect(store.state.view.selection == ["a", "b"])
    try expectHealthy(path)
  }
}
