import Foundation
import GRDB
import Testing

@testable import Rewind

@MainActor
@Suite(.serialized) struct NotebookToolTests {
  @Test func toolCommandsWithReopenAfterEach() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("n.sqlite")
    let store = try openNotebook(path)
    var states: [Int64: NotebookPlain] = [:]
    func send(_ a: NBAction) throws {
      try store.send(a)
      states[store.lastSeq] = NotebookPlain(store.state)
    }
    try seedNotebook(store)
    states[store.lastSeq] = NotebookPlain(store.state)
    let seeded = store.lastSeq
    try send(.moveBlockToPage(id: "b1", page: nbSlugEmoji, at: 1))
    try send(.typeText(id: "b3", text: "x"))
    try send(.typeText(id: "b3", text: "y"))
    try send(.open(nbSlugEmoji))
    try send(.deletePage(slug: nbSlugCafe))
    let afterDelete = store.lastSeq

    func reopenAndCheck(_ context: String) throws {
      try store.reload()
      try expectNotebookReopenMatches(store, path, context)
      let v = try runRewindTool(["verify", path])
      #expect(v.status == 0, "\(context): \(v.out)\(v.err)")
    }

    var r = try runRewindTool(["log", path, "--from", "\(seeded)"])
    #expect(r.status == 0 && r.out.contains("deletePage"), "\(r.out)\(r.err)")
    r = try runRewindTool(["undo", path])
    #expect(r.status == 0 && r.out.contains("deletePage"), "\(r.out)\(r.err)")
    try reopenAndCheck("tool undo")
    #expect(store.state.pages[nbSlugCafe] != nil)
    #expect(store.state.blocks["b4"] != nil)
    r = try runRewindTool(["redo", path])
    #expect(r.status == 0, "\(r.err)")
    try reopenAndCheck("tool redo")
    #expect(NotebookPlain(store.state) == states[afterDelete]!)

    r = try runRewindTool(["export", path, "--at", "\(seeded)", "-o", dir.path("at.json")])
    #expect(r.status == 0, "\(r.err)")
    r = try runRewindTool(["restore", path, "--to", "\(seeded)"])
    #expect(r.status == 0, "\(r.err)")
    try reopenAndCheck("restore")
    #expect(NotebookPlain(store.state) == states[seeded]!, "\(NotebookPlain(store.state))\n\(states[seeded]!)")
    r = try runRewindTool(["export", path])
    #expect(r.out == (try String(contentsOfFile: dir.path("at.json"), encoding: .utf8)))
    try store.undo()  // the app undoes the tool's restore
    try reopenAndCheck("app undo of restore")
    #expect(NotebookPlain(store.state) == states[afterDelete]!)

    r = try runRewindTool(["restore", path, "--to", "\(seeded + 1)", "--timeline", "document"])
    #expect(r.status == 0, "\(r.err)")
    try reopenAndCheck("restore document")
    #expect(store.state.blocks["b1"]?.pageID == nbSlugEmoji)
    #expect(store.state.view.openPage == nbSlugEmoji)

    r = try runRewindTool(["snapshot", path, "--label", "🧪 \"label\" '; --"])
    #expect(r.status == 0, "\(r.err)")
    try send(.addPage(slug: "after-snap", title: "x", createdAt: 9))
    r = try runRewindTool(["compact", path, "--keep", "3"])
    #expect(r.status == 0, "\(r.out)\(r.err)")
    try reopenAndCheck("compact")
    r = try runRewindTool(["restore", path, "--snapshot", "🧪 \"label\" '; --"])
    #expect(r.status == 0, "\(r.out)\(r.err)")
    try reopenAndCheck("restore snapshot")
    #expect(store.state.pages["after-snap"] == nil)
    // Jumps to compacted seqs are refused.
    expectRewindError(.unknownSeq) { try store.jump(to: seeded) }
    let compacted = try dump(path)
    r = try runRewindTool(["export", path, "--at", "\(seeded)"])
    #expect(r.status == 1 && r.out.isEmpty, "\(r)")
    #expect(r.err.contains("seq \(seeded) was compacted away: history starts after seq"), "\(r.err)")
    #expect(try dump(path) == compacted)
    // Undo all the way to the base, then the tool's undo says so.
    while try store.undo() != nil {}
    try reopenAndCheck("undo to base")
    r = try runRewindTool(["undo", path])
    #expect(r.status == 1 && r.err.contains("Nothing to undo."), "\(r)")
    while try store.redo() != nil {}
    try reopenAndCheck("redo all")
  }

  /// The tool undoes the app's last step between its sends; the app's next send catches up.
  /// The tool's redo after that finds nothing: the app's new steps cleared the redo stack.
  @Test func secondProcessWritesWhileTheAppSends() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("n.sqlite")
    let store = try openNotebook(path)
    try seedNotebook(store)
    for i in 0..<10 {
      try store.send(.typeText(id: "b1", text: "\(i)"))
      try store.send(.addBlock(id: "x\(i)", page: nbSlugEmoji, text: "\(i)", at: 0))
      let addSeq = store.lastSeq
      if i % 2 == 0 {
        let r = try runRewindTool(["undo", path])
        #expect(r.status == 0 && r.out.contains("undo: reverted addBlock (seq \(addSeq))"), "\(i): \(r)")
      } else {
        let before = try dump(path)
        let r = try runRewindTool(["redo", path])
        #expect(r.status == 1 && r.err == "Error: Nothing to redo.\n" && r.out.isEmpty, "\(i): \(r)")
        #expect(try dump(path) == before)
      }
      try store.send(.syncRevision(slug: nbSlugEmoji, revision: Int64(i)))
    }
    #expect(store.state.blocks["b1"]?.text == "first0123456789")
    #expect(store.state.pageBlocks[nbSlugEmoji].ids == ["x9", "x7", "x5", "x3", "x1", "b3"])
    #expect(store.state.pages[nbSlugEmoji]?.revision == 9)
    try expectNotebookReopenMatches(store, path)
    try expectHealthy(path)
  }
}

@MainActor
@Suite(.serialized) struct NotebookTamperTests {
  func seeded(_ dir: TemporaryDirectory) throws -> (NotebookStore, String) {
    let path = dir.path("n.sqlite")
    let store = try openNotebook(path)
    try seedNotebook(store)
    try store.send(.typeText(id: "b1", text: "!"))
    return (store, path)
  }

  @Test func editedColumnBehindTheLibrary() throws {
    let dir = try TemporaryDirectory()
    var (store, path) = try seeded(dir)
    try sqlite3Shell(path, "update blocks set text = 'tampered' where id = 'b1'")
    store = try openNotebook(path)
    #expect(store.state.blocks["b1"]?.text == "tampered")
    let v = try runRewindTool(["verify", path])
    #expect(v.status == 1 && v.out.contains("tampered"), "\(v.out)\(v.err)")
    // Undo of the typing keeps the column another writer changed.
    try store.undo()
    #expect(store.state.blocks["b1"]?.text == "tampered")
    try expectNotebookReopenMatches(store, path)
  }

  /// Text in a REAL column of the app's table reads as 0.0 (SQLite converts it, GRDB decodes
  /// it), so it is not refused on open; `rewind verify` names the row and what the log holds.
  @Test func wrongTypeInAColumn() throws {
    let dir = try TemporaryDirectory()
    var (store, path) = try seeded(dir)
    let r = try sqlite3Shell(path, "update blocks set weight = 'heavy' where id = 'b1'")
    #expect(r.status == 0, "\(r.err)")
    store = try openNotebook(path)
    #expect(store.state.blocks["b1"]?.weight == 0)
    var v = try runRewindTool(["verify", path])
    #expect(v.status == 1 && v.err.contains("failed verification with 1 problem"), "\(v.out)\(v.err)")
    #expect(
      v.out.contains(#"problem: blocks {"id":"b1"}: the table has "#) && v.out.contains(#""weight":"heavy""#)
        && v.out.contains(#"the log says {"id":"b1","pageId":"café-✨","text":"first!","weight":0.0}"#),
      "\(v.out)")
    // A send that writes the column replaces the bad value, through the log.
    try store.send(.setWeight(id: "b1", 2))
    #expect(store.state.blocks["b1"]?.weight == 2)
    try expectNotebookReopenMatches(store, path)
    v = try runRewindTool(["verify", path])
    #expect(v.status == 0 && v.out.contains("is healthy"), "\(v.out)\(v.err)")
  }

  @Test func deletedParentRowBehindTheLibrary() throws {
    let dir = try TemporaryDirectory()
    let (_, path) = try seeded(dir)
    let r = try sqlite3Shell(path, "delete from pages where id = 'café-✨'")
    #expect(r.status == 0, "\(r.err)")
    let damaged = try dump(path)
    let error = expectRewindError(.corruptData) { try openNotebook(path) }
    let message = error?.description ?? ""
    #expect(message.contains(#"list sidebar names pages "café-✨", which does not exist"#), "\(message)")
    #expect(message.contains("changed by hand") && message.contains("rewind verify"), "\(message)")
    // The page is simply missing, not there under another spelling: no normalization hint.
    #expect(!message.contains("normalization"), "\(message)")
    let v = try runRewindTool(["verify", path])
    #expect(v.status == 1, "\(v.out)\(v.err)")
    #expect(v.out.contains("problem: foreign keys: blocks row 1 refers to a missing row of pages"), "\(v.out)")
    #expect(v.out.contains(#"problem: pages {"id":"café-✨"}: the table has absent"#), "\(v.out)")
    // The tool's undo of the typing would write b1 back under the missing page: refused.
    let u = try runRewindTool(["undo", path])
    #expect(u.status == 1 && u.out.isEmpty, "\(u)")
    #expect(
      u.err.contains(#"undo cannot be done: blocks {"id":"b1"} refers to pages {"id":"café-✨"}, which does not exist"#)
        && u.err.contains("nothing was written"), "\(u.err)")
    #expect(try dump(path) == damaged)
    // A restore near the last seq walks back from the tables through the entries since: with
    // none to walk back it changes nothing, and it does not repair hand edits.
    let last = try RewindDatabase(path: path, readOnly: true).inspect().lastSeq
    let restore = try runRewindTool(["restore", path, "--to", "\(last)"])
    #expect(restore.status == 0 && restore.err.isEmpty, "\(restore)")
    #expect(
      restore.out
        == "Nothing to restore: the log shows the state as it was right after seq \(last). (That is the log's word, not a check of the tables: `rewind verify` finds rows edited by hand.)\n",
      "\(restore.out)")
    #expect(try dump(path) == damaged)
    expectRewindError(.corruptData) { try openNotebook(path) }
  }

  @Test func garbageViewStateAndLog() throws {
    let dir = try TemporaryDirectory()
    var (store, path) = try seeded(dir)
    try store.send(.setMode(.editing(block: "b2")))
    // A view-state row that no longer decodes loads as the property's default, and the
    // repair after the load writes that default back through the log.
    var r = try sqlite3Shell(path, #"update view_state set value = '{"editing":42}' where path = 'mode'"#)
    #expect(r.status == 0, "\(r.err)")
    store = try openNotebook(path)
    #expect(store.state.view.mode == .reading)
    r = try sqlite3Shell(path, "select value from view_state where path = 'mode'")
    #expect(r.out == #"{"reading":{}}"# + "\n", "\(r)")
    r = try sqlite3Shell(path, "select kind from action_log where seq = \(store.lastSeq)")
    #expect(r.out == "repair\n", "\(r)")
    try expectNotebookReopenMatches(store, path)
    // A log entry's changes made garbage: undo refuses with a clear error, nothing changes.
    let seq = try sqlite3Shell(path, "select max(seq) from action_log where kind = 'action' and action = 'typeText'")
      .out
      .trimmingCharacters(in: .whitespacesAndNewlines)
    r = try sqlite3Shell(path, "update action_log set changes = '[{\"x\":' where seq = \(seq)")
    #expect(r.status == 0, "\(r.err)")
    let before = try dump(path)
    store = try openNotebook(path)
    let error = expectRewindError(.corruptData) { try store.undo() }
    #expect(
      error?.description.contains("action_log seq \(seq): row changes are not a JSON array of objects") == true,
      "\(String(describing: error))")
    #expect(store.state.blocks["b1"]?.text == "first!")
    #expect(try dump(path) == before)
    let u = try runRewindTool(["undo", path])
    #expect(u.status == 1 && u.err.contains("action_log seq \(seq): row changes are not a JSON array"), "\(u)")
    #expect(try dump(path) == before)
    let v = try runRewindTool(["verify", path])
    #expect(v.status == 1, "\(v.out)\(v.err)")
    #expect(v.out.contains("problem: action_log seq \(seq): its payload or changes are not valid JSON"), "\(v.out)")
  }

  @Test func listEntryPositionsTampered() throws {
    let dir = try TemporaryDirectory()
    var (store, path) = try seeded(dir)
    // Two entries of one page at the same position: the tie is broken by id, so the order
    // reads as before, and an insert between them keeps it; `verify` names the edited entry.
    var r = try sqlite3Shell(
      path,
      "update list_entries set position = (select position from list_entries where id = 'b1' and list = 'pageBlocks') where id = 'b2' and list = 'pageBlocks'"
    )
    #expect(r.status == 0, "\(r.err)")
    store = try openNotebook(path)
    #expect(store.state.pageBlocks[nbSlugCafe].ids == ["b4", "b1", "b2"])
    try store.send(.addBlock(id: "n", page: nbSlugCafe, text: "n", at: 1))
    #expect(store.state.pageBlocks[nbSlugCafe].ids == ["b4", "n", "b1", "b2"])
    try expectNotebookReopenMatches(store, path)
    let v = try runRewindTool(["verify", path])
    #expect(v.status == 1 && v.err.contains("failed verification with 1 problem"), "\(v.out)\(v.err)")
    #expect(v.out.contains(#"problem: list_entries {"id":"b2","list":"pageBlocks"}"#), "\(v.out)")
    // A position that is not a key: opening refuses, naming the entry, and writes nothing.
    r = try sqlite3Shell(path, "update list_entries set position = '' where id = 'b4' and list = 'pageBlocks'")
    #expect(r.status == 0, "\(r.err)")
    let before = try dump(path)
    let error = expectRewindError(.corruptData) { try openNotebook(path) }
    #expect(
      error?.description.contains(#"list family pageBlocks has an invalid entry: owner "café-✨", id "b4", position """#)
        == true, "\(String(describing: error))")
    #expect(try dump(path) == before)
    // The store opened before the edit does not read the entry again: its move writes b4 a
    // new position, and the file opens again.
    try store.send(.moveBlock(id: "b4", to: 1))
    #expect(store.state.pageBlocks[nbSlugCafe].ids == ["n", "b4", "b1", "b2"])
    try expectNotebookReopenMatches(store, path)
  }
}
