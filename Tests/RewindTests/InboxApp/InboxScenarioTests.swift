import Foundation
import GRDB
import Testing

@testable import Rewind

@MainActor
func expectInboxReopenMatches(
  _ store: InboxStore, _ path: String, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let memory = InboxPlain(store.state)
  let readOnly = InboxPlain(try openInbox(path, readOnly: true).state)
  #expect(
    readOnly == memory, "read-only reopen differs \(context)\nmemory:\n\(memory)\nfile:\n\(readOnly)",
    sourceLocation: sourceLocation)
  let reopened = InboxPlain(try openInbox(path).state)
  #expect(
    reopened == memory, "reopen differs \(context)\nmemory:\n\(memory)\nfile:\n\(reopened)",
    sourceLocation: sourceLocation)
}

@Suite("InboxScenarios")
@MainActor
struct InboxScenarioTests {
  @Test func seedReopensAndVerifies() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    try store.send(
      .navigate(.compose(to: u(1), draft: .init(text: "x", attachment: Data([9]), replyTo: u(101), tags: ["a"]))))
    try store.send(.setFilter(.search("hé\"llo", caseSensitive: true)))
    try store.send(.highlight(u(102)))
    #expect(store.state.messages[u(102)]?.attachment == Data([0, 1, 2, 255]))
    #expect(store.state.messages[u(202)]?.attachment == Data())
    try expectInboxReopenMatches(store, path)
    try expectHealthy(path)
  }

  @Test func undoKeepsWhatASyncChanged() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    try store.send(.markRead(id: u(101), false))
    try store.send(.syncRead(id: u(101)))  // the server says read
    try store.send(.syncRename(id: u(1), title: "Alice (server)"))
    try store.undo()  // reverts markRead: but the sync set isRead since, so it stays
    #expect(store.state.messages[u(101)]?.isRead == true)
    try store.undo()  // reverts the post of 202
    #expect(store.state.messages[u(202)] == nil)
    #expect(store.state.conversations[u(1)]?.title == "Alice (server)")
    try store.redo()
    try store.redo()
    #expect(store.state.messages[u(202)]?.attachment == Data())
    try expectInboxReopenMatches(store, path)
    try expectHealthy(path)
  }

  @Test func groupedTypingWithSyncsInBetween() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    try store.send(.type(id: u(101), text: " there"))
    try store.send(.syncReceive(id: u(103), conversation: u(1), body: "from server", at: at(7_000), serverID: 1))
    try store.send(.type(id: u(101), text: "!"))
    try store.undo()  // one step: both typings
    #expect(store.state.messages[u(101)]?.body == "Hi")
    #expect(store.state.messages[u(103)]?.body == "from server")
    #expect(store.state.conversationMessages[u(1)].ids == [u(101), u(102), u(103)])
    try store.redo()
    #expect(store.state.messages[u(101)]?.body == "Hi there!")
    try expectInboxReopenMatches(store, path)
    try expectHealthy(path)
  }

  @Test func undoOfCreateAfterSyncedChildIsAConflict() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try store.send(.createConversation(id: u(9), title: "New", at: at(1)))
    try store.send(.syncReceive(id: u(901), conversation: u(9), body: "server", at: at(2), serverID: 7))
    store.waitForSnapshots()
    let before = try dump(path)
    let memory = InboxPlain(store.state)
    expectRewindError(.conflict) { try store.undo() }
    #expect(try dump(path) == before)
    #expect(InboxPlain(store.state) == memory)
    try expectHealthy(path)
  }

  @Test func twoStoresOneFile() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let a = try openInbox(path)
    try seedInbox(a)
    let b = try openInbox(path)
    try b.send(.syncReceive(id: u(103), conversation: u(1), body: "srv", at: at(9_000), serverID: 3))
    try a.send(.setScore(id: u(103), 2.5))  // a has not seen 103 until this write catches up
    #expect(a.state.messages[u(103)]?.score == 2.5)
    try b.undo()  // the file's undo stack: reverts a's setScore
    #expect(b.state.messages[u(103)]?.score == 0)
    try a.reload()
    #expect(a.state.messages[u(103)]?.score == 0)
    try a.send(.syncRead(id: u(201)))
    try b.undo()  // the post of 202
    try a.reload()
    #expect(InboxPlain(a.state) == InboxPlain(b.state))
    try expectInboxReopenMatches(b, path)
    try expectHealthy(path)
  }

  @Test func jumpsAcrossSyncs() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    let mark = store.lastSeq
    try store.send(.select(u(1)))
    let navigated = try #require(try store.send(.navigate(.conversation(u(2), scroll: 12.5))))
    try store.send(.deleteConversation(id: u(2)))
    #expect(store.state.view.route == .list)
    try store.send(.syncReceive(id: u(104), conversation: u(1), body: "late", at: at(10_000), serverID: 4))
    try store.jump(to: mark, timeline: .document)
    #expect(store.state.conversations[u(2)] != nil)
    #expect(store.state.messages[u(104)] == nil)
    try store.jump(to: navigated, timeline: .view)
    #expect(store.state.view.route == .conversation(u(2), scroll: 12.5))
    try store.undo()  // the document jump
    #expect(store.state.conversations[u(2)] == nil)
    #expect(store.state.view.route == .list)  // repaired
    try store.redo()
    try expectInboxReopenMatches(store, path)
    try expectHealthy(path)
  }
}
