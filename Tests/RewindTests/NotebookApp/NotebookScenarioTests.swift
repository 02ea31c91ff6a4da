import Foundation
import GRDB
import Testing

@testable import Rewind

@MainActor
@Suite(.serialized) struct NotebookScenarioTests {
  @Test func seedReopenVerify() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("n.sqlite")
    let store = try openNotebook(path)
    try seedNotebook(store)
    #expect(store.state.pageBlocks[nbSlugCafe].ids == ["b4", "b1", "b2"])
    #expect(store.state.pageTags.count == 3)
    try expectNotebookReopenMatches(store, path)
    try expectHealthy(path)
  }

  @Test func deletingAPageCascadesAndUndoBringsItAllBack() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("n.sqlite")
    let store = try openNotebook(path)
    try seedNotebook(store)
    try store.send(.open(nbSlugCafe))
    try store.send(.select(["b1", "b3"]))
    try store.send(.setMode(.editing(block: "b1")))
    let before = NotebookPlain(store.state)
    try store.send(.deletePage(slug: nbSlugCafe))
    #expect(store.state.pages[nbSlugCafe] == nil)
    #expect(store.state.blocks["b1"] == nil && store.state.blocks["b4"] == nil)
    #expect(store.state.blocks["b3"] != nil)
    #expect(store.state.pageTags.count == 1, "\(store.state.pageTags.ids)")
    #expect(!store.state.sidebar.contains(nbSlugCafe))
    #expect(store.state.pageBlocks[nbSlugCafe].isEmpty)
    #expect(store.state.view.openPage == nil)
    #expect(store.state.view.selection == ["b3"])
    #expect(store.state.view.mode == .reading)
    try expectNotebookReopenMatches(store, path, "after delete")
    try store.undo()
    #expect(NotebookPlain(store.state) == before, "\(NotebookPlain(store.state))\n\(before)")
    try expectNotebookReopenMatches(store, path, "after undo")
    try store.redo()
    try expectNotebookReopenMatches(store, path, "after redo")
    try expectHealthy(path)
  }

  @Test func deletingATagCascadesThroughTheJoinTable() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("n.sqlite")
    let store = try openNotebook(path)
    try seedNotebook(store)
    let before = NotebookPlain(store.state)
    try store.send(.deleteTag(name: "todo"))
    #expect(store.state.pageTags.count == 1)
    try store.undo()
    #expect(NotebookPlain(store.state) == before)
    try expectNotebookReopenMatches(store, path)
    try expectHealthy(path)
  }

  @Test func movingBlocksBetweenPagesUndoRedoReopen() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("n.sqlite")
    let store = try openNotebook(path)
    try seedNotebook(store)
    let s0 = NotebookPlain(store.state)
    try store.send(.moveBlockToPage(id: "b1", page: nbSlugEmoji, at: 0))
    #expect(store.state.pageBlocks[nbSlugEmoji].ids == ["b1", "b3"])
    #expect(store.state.pageBlocks[nbSlugCafe].ids == ["b4", "b2"])
    #expect(store.state.blocks["b1"]?.pageID == nbSlugEmoji)
    let s1 = NotebookPlain(store.state)
    try expectNotebookReopenMatches(store, path, "after move")
    // To a page with no blocks yet, then delete the origin page: b1 must survive.
    try store.send(.moveBlockToPage(id: "b1", page: nbSlugSQL, at: 5))
    try store.send(.deletePage(slug: nbSlugEmoji))
    #expect(store.state.blocks["b1"] != nil)
    #expect(store.state.blocks["b3"] == nil)
    #expect(store.state.pageBlocks[nbSlugSQL].ids == ["b1"])
    try expectNotebookReopenMatches(store, path, "after delete")
    try store.undo()
    try store.undo()
    #expect(NotebookPlain(store.state) == s1, "\(NotebookPlain(store.state))\n\(s1)")
    try store.undo()
    #expect(NotebookPlain(store.state) == s0)
    try store.redo()
    try store.redo()
    try store.redo()
    try expectNotebookReopenMatches(store, path, "after redo")
    // Moving within the same page.
    try store.send(.moveBlockToPage(id: "b2", page: nbSlugCafe, at: 0))
    #expect(store.state.pageBlocks[nbSlugCafe].ids == ["b2", "b4"])
    try expectNotebookReopenMatches(store, path, "same page")
    try expectHealthy(path)
  }

  @Test func typingIsGroupedAndSyncIsNotUndone() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("n.sqlite")
    let store = try openNotebook(path)
    try seedNotebook(store)
    try store.send(.typeText(id: "b1", text: " a"))
    try store.send(.syncRevision(slug: nbSlugCafe, revision: 7))
    try store.send(.syncBlocks(page: nbSlugCafe, [NBSyncedBlock(id: "s1", text: "from server")]))
    try store.send(.search("x"))
    try store.send(.typeText(id: "b1", text: " b"))
    #expect(store.state.blocks["b1"]?.text == "first a b")
    try store.undo()
    #expect(store.state.blocks["b1"]?.text == "first")
    #expect(store.state.pages[nbSlugCafe]?.revision == 7)
    #expect(store.state.blocks["s1"]?.text == "from server")
    #expect(store.state.view.search == "x")
    try expectNotebookReopenMatches(store, path)
    try store.redo()
    #expect(store.state.blocks["b1"]?.text == "first a b")
    try expectNotebookReopenMatches(store, path)
    try expectHealthy(path)
  }

  @Test func twoStoresOnOneFile() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("n.sqlite")
    let a = try openNotebook(path)
    let b = try openNotebook(path)
    try seedNotebook(a)
    try b.send(.moveBlockToPage(id: "b2", page: nbSlugEmoji, at: 0))  // b catches up first
    #expect(b.state.pageBlocks[nbSlugEmoji].ids == ["b2", "b3"])
    try a.send(.typeText(id: "b2", text: "!"))
    #expect(a.state.blocks["b2"]?.pageID == nbSlugEmoji)
    try b.undo()  // b's undo: the typing of a (the top of the shared stack)
    try a.reload()
    #expect(a.state.blocks["b2"]?.text == "second")
    try a.undo()  // the move
    try b.reload()
    #expect(NotebookPlain(a.state) == NotebookPlain(b.state))
    #expect(a.state.pageBlocks[nbSlugCafe].ids == ["b4", "b1", "b2"])
    try b.send(.deletePage(slug: nbSlugCafe))
    try a.send(.typeText(id: "b3", text: "?"))
    #expect(a.state.blocks["b1"] == nil)
    try expectNotebookReopenMatches(a, path)
    try b.reload()
    try expectNotebookReopenMatches(b, path)
    try expectHealthy(path)
  }
}
