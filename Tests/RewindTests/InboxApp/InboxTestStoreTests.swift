import Foundation
import RewindTesting
import Testing

@testable import Rewind

@Suite("InboxTestStore")
@MainActor
struct InboxTestStoreTests {
  @Test func exhaustiveInbox() async throws {
    let store = try TestStore(initialState: InboxState(), reducer: InboxReducer())
    try await store.send(.createConversation(id: u(1), title: "Alice", at: at(1_000))) {
      $0.conversations.insert(InboxConversation(id: u(1), title: "Alice", createdAt: at(1_000)))
      $0.view.selection = u(1)
    }
    let created = store.store.lastSeq
    try await store.send(
      .post(id: u(11), conversation: u(1), body: "Hi", at: at(2_000), attachment: Data([1]), sender: nil)
    ) {
      $0.messages.insert(
        InboxMessage(
          id: u(11), conversationID: u(1), body: "Hi", sentAt: at(2_000), attachment: Data([1]), isRead: true))
      $0.conversationMessages[u(1)].append(u(11))
    }
    try await store.send(.syncReceive(id: u(12), conversation: u(1), body: "Yo", at: at(3_000), serverID: 9)) {
      $0.messages.insert(InboxMessage(id: u(12), conversationID: u(1), body: "Yo", sentAt: at(3_000), serverID: 9))
      $0.conversationMessages[u(1)].append(u(12))
    }
    try await store.send(.moveMessage(id: u(12), to: 0)) {
      $0.conversationMessages[u(1)].move(u(12), to: 0)
    }
    try await store.send(
      .navigate(.compose(to: u(1), draft: .init(text: "x", attachment: Data([2]), replyTo: u(11), tags: ["t"])))
    ) {
      $0.view.route = .compose(to: u(1), draft: .init(text: "x", attachment: Data([2]), replyTo: u(11), tags: ["t"]))
    }
    try await store.undo {
      $0.conversationMessages[u(1)].move(u(12), to: 1)
    }
    try await store.undo {
      $0.messages.remove(id: u(11))
      $0.conversationMessages[u(1)].remove(u(11))
      // the app's repairViewState checks the composer's replyTo, not the route's draft
    }
    try await store.jump(to: created, timeline: .document) {
      $0.messages.remove(id: u(12))
      $0.conversationMessages[u(1)].remove(u(12))
    }
    try await store.undo {
      $0.messages.insert(InboxMessage(id: u(12), conversationID: u(1), body: "Yo", sentAt: at(3_000), serverID: 9))
      $0.conversationMessages[u(1)].append(u(12))
    }
    await store.finish()
  }
}
