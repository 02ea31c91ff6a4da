import Foundation
import GRDB
import Testing

@testable import Rewind

// The inbox with the documented fast paths: messages read by position and built as row
// images, the view state's properties listed, and a fetch effect that sends syncs.

struct FastMessage: Entity {
  static let databaseTableName = "messages"
  var id: UUID
  var conversationID: UUID
  var body: String
  var sentAt: Date
  var attachment: Data?
  var score: Double = 0
  var isRead = false
  var senderName: String?
  var serverID: Int64?

  enum CodingKeys: String, CodingKey {
    case id, body, sentAt, attachment, score, isRead, senderName
    case conversationID = "conversationId"
    case serverID = "serverId"
  }

  static func createTable(_ db: Database) throws { try InboxMessage.createTable(db) }

  static let columns = RowImage.Columns([
    "attachment", "body", "conversationId", "id", "isRead", "score", "senderName", "sentAt", "serverId",
  ])

  func databaseRowImage() -> RowImage {
    RowImage(
      Self.columns,
      [
        attachment.databaseValue, body.databaseValue, conversationID.uuidString.databaseValue,
        id.uuidString.databaseValue,
        isRead.databaseValue, score.databaseValue, senderName.databaseValue, sentAt.databaseValue,
        serverID.databaseValue,
      ])
  }

  static var databaseColumnOrder: [String]? { columns.names }

  init(
    id: UUID, conversationID: UUID, body: String, sentAt: Date, attachment: Data? = nil, score: Double = 0,
    isRead: Bool = false, senderName: String? = nil, serverID: Int64? = nil
  ) {
    (self.id, self.conversationID, self.body, self.sentAt, self.attachment) = (
      id, conversationID, body, sentAt, attachment
    )
    (self.score, self.isRead, self.senderName, self.serverID) = (score, isRead, senderName, serverID)
  }

  init(orderedRow row: Row) throws {
    attachment = try row.decode(atIndex: 0)
    body = try row.decode(atIndex: 1)
    conversationID = try row.decode(atIndex: 2)
    id = try row.decode(atIndex: 3)
    isRead = try row.decode(atIndex: 4)
    score = try row.decode(atIndex: 5)
    senderName = try row.decode(atIndex: 6)
    sentAt = try row.decode(atIndex: 7)
    serverID = try row.decode(atIndex: 8)
  }
}

extension InboxView: ViewStateProperties {
  static let viewProperties: [ViewProperty<Self>] = [
    ViewProperty("selection", \.selection),
    ViewProperty("highlighted", \.highlighted),
    ViewProperty("route", \.route),
    ViewProperty("composer", \.composer),
    ViewProperty("filter", \.filter),
  ]
}

struct FastState: PersistentState, Equatable {
  var conversations = EntityTable<InboxConversation>()
  var messages = EntityTable<FastMessage>()
  var conversationMessages = OrderedIDLists<UUID, UUID>()
  var view = InboxView()

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.conversations),
      .entities(\.messages),
      .lists(
        \.conversationMessages, named: "conversationMessages", of: FastMessage.self, ownedBy: InboxConversation.self),
      .view(\.view)
    )
  }
}

enum FastAction: LoggedAction, Equatable {
  case create(id: UUID, title: String)
  case post(id: UUID, conversation: UUID, body: String, at: Date, attachment: Data?)
  case type(id: UUID, text: String)
  case navigate(InboxView.Route)
  case fetch(conversation: UUID, count: Int)
  case receive(id: UUID, conversation: UUID, body: String, at: Date)

  var isUndoable: Bool { if case .receive = self { false } else { true } }
}

struct FastReducer: Reducer {
  func reduce(into state: inout FastState, action: FastAction) -> Effect<FastAction> {
    switch action {
    case .create(let id, let title):
      state.conversations.insert(InboxConversation(id: id, title: title, createdAt: at(0)))
    case .post(let id, let conversation, let body, let date, let attachment):
      state.messages.insert(
        FastMessage(id: id, conversationID: conversation, body: body, sentAt: date, attachment: attachment))
      state.conversationMessages[conversation].append(id)
    case .type(let id, let text):
      state.messages[id]?.body += text
    case .navigate(let route):
      state.view.route = route
    case .fetch(let conversation, let count):
      return .run { send in
        for i in 0..<count {
          try await Task.sleep(nanoseconds: 1_000_000)
          try await send(.receive(id: u(7000 + i), conversation: conversation, body: "server \(i)", at: at(Int64(i))))
        }
      }
    case .receive(let id, let conversation, let body, let date):
      guard state.conversations.contains(id: conversation) else { break }
      state.messages.insert(FastMessage(id: id, conversationID: conversation, body: body, sentAt: date, isRead: false))
      state.conversationMessages[conversation].append(id)
    }
    return .none
  }
}

@Suite("InboxFastPath")
@MainActor
struct InboxFastPathTests {
  @Test func fastPathsRoundTrip() async throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("fast.sqlite")
    let store = try Store(path: path, initialState: FastState(), reducer: FastReducer())
    try store.send(.create(id: u(1), title: "A"))
    try store.send(.post(id: u(11), conversation: u(1), body: "hi", at: at(5), attachment: Data([1, 2, 3])))
    try store.send(.post(id: u(12), conversation: u(1), body: "no att", at: at(-5), attachment: nil))
    try store.send(.navigate(.compose(to: u(1), draft: .init(text: "d", attachment: Data(), replyTo: nil, tags: []))))
    try store.send(.navigate(.conversation(u(1), scroll: 2)))
    try store.send(.fetch(conversation: u(1), count: 5))
    await store.finishEffects()
    #expect(store.state.messages.count == 7)
    try store.send(.type(id: u(11), text: "!"))
    try store.undo()  // the typing; the received messages stay
    try store.undo()  // the post of 12
    #expect(store.state.messages.count == 6)
    let reopened = try Store(path: path, initialState: FastState(), reducer: FastReducer())
    #expect(reopened.state == store.state)
    try expectHealthy(path)
  }

  @Test func undoWhileAFetchIsInFlight() async throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("fast.sqlite")
    let store = try Store(path: path, initialState: FastState(), reducer: FastReducer())
    try store.send(.create(id: u(1), title: "A"))
    try store.send(.post(id: u(11), conversation: u(1), body: "hi", at: at(5), attachment: nil))
    try store.send(.fetch(conversation: u(1), count: 20))
    try await Task.sleep(nanoseconds: 5_000_000)
    try store.undo()  // the post
    do {
      try store.undo()  // the create: refused once a received message is in the conversation
    } catch let error as RewindError where error.code == .conflict {}
    await store.finishEffects()
    let reopened = try Store(path: path, initialState: FastState(), reducer: FastReducer())
    #expect(reopened.state == store.state)
    try expectHealthy(path)
  }
}
