import Foundation
import GRDB
import Testing

@testable import Rewind

@discardableResult
func tool(_ args: [String], ok: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws -> (
  status: Int32, out: String, err: String
) {
  let r = try runRewindTool(args)
  if ok {
    #expect(r.status == 0, "rewind \(args): \(r.err)", sourceLocation: sourceLocation)
  }
  return r
}

@Suite("InboxTool")
@MainActor
struct InboxToolTests {
  @Test func toolWritesWhileTheStoreIsOpen() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    try store.send(.type(id: u(101), text: " you"))
    try tool(["undo", path])  // reverts the typing
    try store.send(.syncRead(id: u(201)))  // catches up first
    #expect(store.state.messages[u(101)]?.body == "Hi")
    try tool(["redo", path])
    try store.reload()
    #expect(store.state.messages[u(101)]?.body == "Hi you")
    try tool(["snapshot", path, "--label", "before-delete"])
    try store.send(.deleteConversation(id: u(1)))
    try tool(["restore", path, "--snapshot", "before-delete"])
    try store.reload()
    #expect(store.state.messages[u(102)]?.attachment == Data([0, 1, 2, 255]))
    try store.undo()  // the restore
    #expect(store.state.conversations[u(1)] == nil)
    try expectInboxReopenMatches(store, path)
    try tool(["verify", path])
  }

  @Test func exportAtEqualsExportAfterRestore() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    try store.send(.computeScore(id: u(101), numerator: 1, denominator: 0))
    try store.send(.setScore(id: u(102), 0.1 + 0.2))
    try store.send(.navigate(.settings(.init(notifications: false, signature: "—"))))
    try store.send(.setAttachment(id: u(201), Data(repeating: 7, count: 70_000)))
    try store.send(.deleteConversation(id: u(2)))
    let last = store.lastSeq
    for seq in stride(from: last, through: 0, by: -1) {
      let at = dir.path("at\(seq).json")
      try tool(["export", path, "--at", "\(seq)", "-o", at])
      let r = try tool(["restore", path, "--to", "\(seq)"])
      _ = r
      let now = dir.path("now\(seq).json")
      try tool(["export", path, "-o", now])
      #expect(contents(of: at) == contents(of: now), "seq \(seq)")
      try store.reload()
      try expectInboxReopenMatches(store, path, "after restore to \(seq)")
    }
    try tool(["verify", path])
    // Undo all the restores back, through the store.
    while try store.undo() != nil {}
    try expectInboxReopenMatches(store, path)
    try tool(["verify", path])
  }

  @Test func compactThenUndoRedoJump() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    for i in 0..<20 {
      try store.send(.type(id: u(101), text: "\(i)"))
      try store.send(
        .syncReceive(id: u(300 + i), conversation: u(2), body: "s\(i)", at: at(Int64(20_000 + i)), serverID: Int64(i)))
      try store.send(.markRead(id: u(300 + i), true))
    }
    try store.undo()
    try store.undo()
    let beforeCompact = InboxPlain(store.state)
    let r = try tool(["compact", path, "--keep", "5"])
    #expect(r.status == 0)
    try store.reload()
    #expect(InboxPlain(store.state) == beforeCompact)
    let base = try RewindDatabase(path: path, readOnly: true).inspect().baseSeq
    #expect(base > 0)
    expectRewindError(.unknownSeq) { try store.jump(to: base - 1) }
    try store.redo()
    try store.redo()
    var undos = 0
    while try store.undo() != nil { undos += 1 }
    try expectInboxReopenMatches(store, path, "after \(undos) undos")
    try tool(["verify", path])
    while try store.redo() != nil {}
    try expectInboxReopenMatches(store, path)
    try store.jump(to: base)
    try expectInboxReopenMatches(store, path)
    try tool(["verify", path])
    // Compact again, twice, with the store writing in between.
    try tool(["compact", path, "--keep", "1"])
    try store.send(.togglePin(id: u(1)))
    try tool(["compact", path, "--keep", "0"])
    try store.undo()
    try expectInboxReopenMatches(store, path)
    try tool(["verify", path])
  }

  @Test func inspectAndLog() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    try store.send(.syncReceive(id: u(103), conversation: u(1), body: "srv", at: at(9), serverID: 3))
    let inspect = try tool(["inspect", path])
    #expect(inspect.out.contains("messages"))
    let log = try tool(["log", path, "--json"])
    let lines = log.out.split(separator: "\n")
    #expect(lines.count == Int(store.lastSeq))
    for line in lines {
      #expect(throws: Never.self) { try JSONSerialization.jsonObject(with: Data(line.utf8)) }
    }
    let bad = try tool(["restore", path, "--to", "999"], ok: false)
    #expect(bad.status != 0)
    #expect(bad.err.contains("999"))
  }

  @Test func restoreViewTimelineOnly() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    let mark = store.lastSeq
    try store.send(.navigate(.conversation(u(1), scroll: 3)))
    try store.send(.highlight(u(101)))
    try store.send(.deleteMessage(id: u(101)))
    try tool(["restore", path, "--to", "\(mark + 2)", "--timeline", "view"])
    try store.reload()
    // 101 is gone in the document: the highlight is repaired away on reload
    #expect(store.state.view.highlighted == nil)
    #expect(store.state.view.route == .conversation(u(1), scroll: 3))
    try expectInboxReopenMatches(store, path)
    try tool(["verify", path])
  }
}

@Suite("InboxLogSearch")
@MainActor
struct InboxLogSearchTests {
  /// LogQuery.text: "Only entries whose payload or row changes contain this text" (the `rewind ui`
  /// search box and `GET /api/log?q=`). Messages whose text JSON escapes are not found by it,
  /// and a search with a NUL character finds every entry.
  @Test func searchingForMessageText() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try store.send(.createConversation(id: u(1), title: "A", at: at(0)))
    let bodies = [
      "plain words", "say \"cheese\"", "line one\nline two", "C:\\Users\\me", "tab\there", "caf\u{E9} cr\u{E8}me",
    ]
    var seqs: [String: Int64] = [:]
    for (i, body) in bodies.enumerated() {
      seqs[body] = try store.send(
        .post(id: u(10 + i), conversation: u(1), body: body, at: at(0), attachment: nil, sender: nil))
    }
    let db = try RewindDatabase(path: path, readOnly: true)
    for body in bodies {
      let found = try db.log(LogQuery(text: body)).map(\.seq)
      #expect(found.contains(seqs[body]!), "search for \(body.debugDescription) found \(found)")
    }
    let nul = try db.log(LogQuery(text: "\u{0}no such text")).map(\.seq)
    #expect(nul.isEmpty, "a search containing NUL found \(nul)")
  }
}
