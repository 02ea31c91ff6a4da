import Foundation
import GRDB
import Testing

@testable import Rewind

@Suite("InboxLargeInitial")
@MainActor
struct InboxLargeInitialTests {
  /// An app that ships with a big pre-filled inbox: 12,000 messages in one conversation.
  static func bigInitialState() -> InboxState {
    var state = InboxState()
    state.conversations.insert(InboxConversation(id: u(1), title: "Archive", createdAt: at(0)))
    for i in 0..<12_000 {
      let id = u(100_000 + i)
      state.messages.insert(InboxMessage(id: id, conversationID: u(1), body: "old \(i)", sentAt: at(Int64(i))))
      state.conversationMessages[u(1)].append(id)
    }
    state.view.selection = u(1)
    state.view.highlighted = u(100_000 + 11_999)
    return state
  }

  @Test func jumpsIntoTheInitializeRun() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("big.sqlite")
    let store = try InboxStore(path: path, initialState: Self.bigInitialState(), reducer: InboxReducer())
    let created = store.lastSeq
    #expect(created > 1)
    try store.send(.post(id: u(5), conversation: u(1), body: "new", at: at(1), attachment: nil, sender: nil))
    try expectHealthy(path)
    // Seqs partway through the initialize run are no states to return to: a jump or an export
    // there is refused, naming the seq the created state is at, and changes nothing.
    for seq in 1..<created {
      let before = try dump(path)
      let error = expectRewindError(.unknownSeq) { try store.jump(to: seq) }
      #expect(error?.message.contains("partway through the file's creation") == true, "\(String(describing: error))")
      #expect(try dump(path) == before)
      let r = try tool(["export", path, "--at", "\(seq)"], ok: false)
      #expect(r.status != 0 && r.err.contains("the created state is the one at seq \(created)"), "\(r.err)")
    }
    try store.jump(to: created)
    #expect(store.state.messages.count == 12_000)
    try store.undo()
    #expect(store.state.messages.count == 12_001)
    try expectInboxReopenMatches(store, path)
    try expectHealthy(path)
  }
}
