import Foundation
import GRDB
import Testing

@testable import Rewind

@MainActor
@Suite(.serialized) struct NotebookMigrationTests {
  struct V1History {
    var seeded: Int64
    var pinned: Int64
    var last: Int64
  }

  /// A version-1 file with history: the seed, a pin and a goal, typing, a move, a search.
  func writeVersion1(_ path: String) throws -> V1History {
    let store = try openNotebook(path)
    try seedNotebook(store)
    let seeded = store.lastSeq
    try store.send(.setPinned(slug: nbSlugCafe, true))
    try store.send(.setGoal(slug: nbSlugEmoji, 500))
    let pinned = store.lastSeq
    try store.send(.typeText(id: "b1", text: " typed"))
    try store.send(.moveBlockToPage(id: "b2", page: nbSlugEmoji, at: 0))
    try store.send(.search("find me"))
    try store.send(.syncRevision(slug: nbSlugCafe, revision: 3))
    return V1History(seeded: seeded, pinned: pinned, last: store.lastSeq)
  }

  @Test func v1ToV2ToV3WithUndoAcrossBothUpgrades() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("n.sqlite")
    let h = try writeVersion1(path)

    // Version 2: the rename, the new column, the view property renamed.
    do {
      let v2 = try openNotebookV2(path)
      #expect(v2.state.blocks["b1"]?.body == "first typed")
      #expect(v2.state.pages[nbSlugCafe]?.icon == nil)
      #expect(v2.state.view.query == "find me")
      try v2.send(.setIcon(slug: nbSlugCafe, icon: "☕️"))
      try v2.send(.typeText(id: "b1", text: " v2"))
      try v2.undo()
      #expect(v2.state.blocks["b1"]?.body == "first typed")
      try v2.undo()
      #expect(v2.state.pages[nbSlugCafe]?.icon == nil)
      try v2.undo()  // a v1 move
      #expect(v2.state.blocks["b2"]?.pageID == nbSlugCafe)
      try v2.redo()
      try v2.redo()
      #expect(v2.state.pages[nbSlugCafe]?.icon == "☕️")
      try expectHealthy(path)
    }
    let v2Last = try RewindDatabase(path: path, readOnly: true).inspect().lastSeq

    // Version 3: the split.
    let v3 = try openNotebookV3(path)
    #expect(v3.state.settings[nbSlugCafe]?.pinned == true)
    #expect(v3.state.settings[nbSlugEmoji]?.wordGoal == 500)
    #expect(v3.state.settings.count == 3)
    #expect(v3.state.pages[nbSlugCafe]?.icon == "☕️")
    #expect(v3.state.pages[nbSlugCafe]?.revision == 3)
    #expect(v3.state.favorites.isEmpty)
    try expectHealthy(path)
    try v3.send(.favorite(slug: nbSlugEmoji))
    try v3.send(.setPinned(slug: nbSlugEmoji, true))
    try v3.send(.addPage(slug: "v3-page", title: "New"))
    try v3.send(.addBlock(id: "v3b", page: "v3-page", body: "v3"))
    try v3.send(.moveBlockToPage(id: "b1", page: "v3-page"))
    try v3.send(.deletePage(slug: nbSlugEmoji))
    #expect(v3.state.favorites.isEmpty)
    #expect(v3.state.settings[nbSlugEmoji] == nil)
    try expectHealthy(path)
    let afterV3 = v3.state
    // Undo everything, back across both migrations, to the first seed action.
    var undos = 0
    while try v3.undo() != nil { undos += 1 }
    #expect(v3.state.pages.isEmpty && v3.state.settings.isEmpty && v3.state.blocks.isEmpty, "\(v3.state)")
    #expect(try openNotebookV3(path).state == v3.state)
    try expectHealthy(path)
    while try v3.redo() != nil {}
    #expect(v3.state == afterV3, "redo all: \(v3.state)\nexpected: \(afterV3)")
    #expect(try openNotebookV3(path).state == v3.state)

    // Jumps to v1 seqs read in the v3 shape.
    try v3.jump(to: h.pinned)
    #expect(v3.state.settings[nbSlugCafe]?.pinned == true)
    #expect(v3.state.settings[nbSlugEmoji]?.wordGoal == 500)
    #expect(v3.state.blocks["b1"]?.body == "first")
    #expect(v3.state.pages[nbSlugCafe]?.icon == nil)
    #expect(try openNotebookV3(path).state == v3.state)
    try v3.jump(to: h.seeded)
    #expect(v3.state.settings[nbSlugCafe]?.pinned == false)
    try v3.jump(to: v2Last)
    #expect(v3.state.pages[nbSlugCafe]?.icon == "☕️")
    try expectHealthy(path)

    // The tool at old seqs.
    var r = try runRewindTool(["export", path, "--at", "\(h.pinned)"])
    #expect(r.status == 0, "\(r.err)")
    #expect(r.out.contains(#""pageSettings""#) && r.out.contains(#""body""#), "\(r.out.prefix(3000))")
    #expect(!r.out.contains(#""text":"first""#), "old column name in export")
    r = try runRewindTool(["restore", path, "--to", "\(h.last)"])
    #expect(r.status == 0, "\(r.err)")
    try v3.reload()
    #expect(v3.state.view.query == "find me")
    #expect(v3.state.blocks["b2"]?.pageID == nbSlugEmoji)
    #expect(try openNotebookV3(path).state == v3.state)
    r = try runRewindTool(["verify", path])
    #expect(r.status == 0, "\(r.out)\(r.err)")
    r = try runRewindTool(["compact", path, "--keep", "5"])
    #expect(r.status == 0, "\(r.out)\(r.err)")
    try v3.reload()
    #expect(try openNotebookV3(path).state == v3.state)
    r = try runRewindTool(["verify", path])
    #expect(r.status == 0, "\(r.out)\(r.err)")
    // The old apps are refused.
    expectRewindError(.newerAppSchema) { try openNotebook(path) }
    expectRewindError(.newerAppSchema) { try openNotebookV2(path) }
  }

  @Test func v1StraightToV3AndAFreshV3File() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("n.sqlite")
    let h = try writeVersion1(path)
    let v3 = try openNotebookV3(path)
    #expect(v3.state.settings[nbSlugCafe]?.pinned == true)
    #expect(v3.state.blocks["b1"]?.body == "first typed")
    #expect(v3.state.view.query == "find me")
    try expectHealthy(path)
    try v3.undo()  // the v1 move (the search and sync are not steps)
    #expect(v3.state.blocks["b2"]?.pageID == nbSlugCafe)
    try v3.undo()
    #expect(v3.state.blocks["b1"]?.body == "first")
    try v3.undo()
    #expect(v3.state.settings[nbSlugEmoji]?.wordGoal == nil)
    try v3.undo()
    #expect(v3.state.settings[nbSlugCafe]?.pinned == false)
    #expect(try openNotebookV3(path).state == v3.state)
    try v3.jump(to: h.last)
    #expect(try openNotebookV3(path).state == v3.state)
    try expectHealthy(path)

    let fresh = dir.path("fresh.sqlite")
    let f = try openNotebookV3(fresh)
    try f.send(.addPage(slug: "a", title: "A"))
    try f.send(.setGoal(slug: "a", 3))
    try f.send(.deletePage(slug: "a"))
    try f.undo()
    #expect(f.state.settings["a"]?.wordGoal == 3)
    try expectHealthy(fresh)
  }

  /// Two stores: an old version still running when a newer one migrates the file.
  @Test func oldVersionStillRunningStopsWriting() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("n.sqlite")
    _ = try writeVersion1(path)
    let old = try openNotebook(path)
    let v3 = try openNotebookV3(path)
    let before = try dump(path)
    expectRewindError(.newerAppSchema) { try old.send(.setTitle(slug: nbSlugCafe, title: "old")) }
    expectRewindError(.newerAppSchema) { try old.undo() }
    #expect(try dump(path) == before)
    try v3.send(.setIcon(slug: nbSlugCafe, icon: "x"))
    try expectHealthy(path)
  }
}
