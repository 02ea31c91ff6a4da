import Foundation
import GRDB
import Rewind

// A chat inbox, written as an outside user would from the README and DocC articles.
// Conversations own messages (ON DELETE CASCADE), keyed by UUID. Each conversation orders its
// messages (a keyed list family); a fixed list pins conversations. The view state has enums
// with associated values, a nested struct and optional selections. Server syncs are not
// undoable.

struct InboxConversation: Entity {
  static let databaseTableName = "conversations"
  var id: UUID
  var title: String
  var muted = false
  var priority: Double = 0
  var createdAt: Date

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("title", .text).notNull()
      t.column("muted", .boolean).notNull()
      t.column("priority", .double).notNull()
      t.column("createdAt", .datetime).notNull()
    }
  }
}

struct InboxMessage: Entity {
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

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.belongsTo("conversation", inTable: InboxConversation.databaseTableName, onDelete: .cascade).notNull()
      t.column("body", .text).notNull()
      t.column("sentAt", .datetime).notNull()
      t.column("attachment", .blob)
      t.column("score", .double).notNull()
      t.column("isRead", .boolean).notNull()
      t.column("senderName", .text)
      t.column("serverId", .integer)
    }
  }
}

struct InboxView: Codable, Equatable, Sendable {
  var selection: UUID?
  var highlighted: UUID?
  var route: Route = .list
  var composer = Composer()
  var filter: Filter = .all

  enum Route: Codable, Equatable, Sendable {
    case list
    case conversation(UUID, scroll: Double)
    case compose(to: UUID?, draft: Composer)
    case settings(Settings)
  }

  struct Settings: Codable, Equatable, Sendable {
    var notifications = true
    var signature: String?
  }

  struct Composer: Codable, Equatable, Sendable {
    var text = ""
    var attachment: Data?
    var replyTo: UUID?
    var tags: [String] = []
  }

  enum Filter: Codable, Equatable, Sendable {
    case all, unread
    case search(String, caseSensitive: Bool)
  }
}

struct InboxState: PersistentState, Equatable {
  var conversations = EntityTable<InboxConversation>()
  var messages = EntityTable<InboxMessage>()
  var conversationMessages = OrderedIDLists<UUID, UUID>()
  var pinned = OrderedIDList<UUID>()
  var view = InboxView()

  mutating func repairViewState() {
    if let id = view.selection, !conversations.contains(id: id) { view.selection = nil }
    if let id = view.highlighted, !messages.contains(id: id) { view.highlighted = nil }
    if case .conversation(let id, _) = view.route, !conversations.contains(id: id) { view.route = .list }
    if case .compose(let to?, _) = view.route, !conversations.contains(id: to) { view.route = .list }
    if let reply = view.composer.replyTo, !messages.contains(id: reply) { view.composer.replyTo = nil }
  }

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.conversations),
      .entities(\.messages),
      .lists(
        \.conversationMessages, named: "conversationMessages", of: InboxMessage.self, ownedBy: InboxConversation.self),
      .list(\.pinned, named: "pinned", of: InboxConversation.self),
      .view(\.view)
    )
  }
}

enum InboxAction: LoggedAction, Equatable {
  case createConversation(id: UUID, title: String, at: Date)
  case renameConversation(id: UUID, title: String)
  case deleteConversation(id: UUID)
  case toggleMute(id: UUID)
  case setPriority(id: UUID, Double)
  case post(id: UUID, conversation: UUID, body: String, at: Date, attachment: Data?, sender: String?)
  case type(id: UUID, text: String)
  case deleteMessage(id: UUID)
  case markRead(id: UUID, Bool)
  case setScore(id: UUID, Double)
  case computeScore(id: UUID, numerator: Double, denominator: Double)
  case setAttachment(id: UUID, Data?)
  case moveMessage(id: UUID, to: Int)
  /// Moves a message to the end of another conversation: its column and its list entry.
  case moveToConversation(id: UUID, conversation: UUID)
  case togglePin(id: UUID)
  case select(UUID?)
  case highlight(UUID?)
  case navigate(InboxView.Route)
  case setFilter(InboxView.Filter)
  case compose(String)
  /// From the server: not undoable.
  case syncReceive(id: UUID, conversation: UUID, body: String, at: Date, serverID: Int64)
  case syncRead(id: UUID)
  case syncRename(id: UUID, title: String)
  case syncDeleteMessage(id: UUID)

  var undoGroup: String? {
    if case .type(let id, _) = self { return "typing-\(id)" }
    return nil
  }

  var isUndoable: Bool {
    switch self {
    case .syncReceive, .syncRead, .syncRename, .syncDeleteMessage: false
    default: true
    }
  }
}

struct InboxReducer: Reducer {
  func reduce(into state: inout InboxState, action: InboxAction) -> Effect<InboxAction> {
    switch action {
    case .createConversation(let id, let title, let at):
      state.conversations.insert(InboxConversation(id: id, title: title, createdAt: at))
      state.view.selection = id
    case .renameConversation(let id, let title):
      state.conversations[id]?.title = title
    case .deleteConversation(let id):
      guard state.conversations.contains(id: id) else { break }
      let doomed = Set(state.conversationMessages[id].ids)
      state.conversations.remove(id: id)
      if state.view.selection == id { state.view.selection = nil }
      if let h = state.view.highlighted, doomed.contains(h) { state.view.highlighted = nil }
      if case .conversation(id, _) = state.view.route { state.view.route = .list }
      if case .compose(id?, _) = state.view.route { state.view.route = .list }
      if let r = state.view.composer.replyTo, doomed.contains(r) { state.view.composer.replyTo = nil }
    case .toggleMute(let id):
      state.conversations[id]?.muted.toggle()
    case .setPriority(let id, let p):
      state.conversations[id]?.priority = p
    case .post(let id, let conversation, let body, let at, let attachment, let sender):
      guard state.conversations.contains(id: conversation) else { break }
      state.messages.insert(
        InboxMessage(
          id: id, conversationID: conversation, body: body, sentAt: at, attachment: attachment, isRead: true,
          senderName: sender))
      state.conversationMessages[conversation].append(id)
    case .type(let id, let text):
      state.messages[id]?.body += text
    case .deleteMessage(let id):
      guard state.messages.remove(id: id) != nil else { break }
      if let owner = state.conversationMessages.owner(of: id) { state.conversationMessages[owner].remove(id) }
      if state.view.highlighted == id { state.view.highlighted = nil }
      if state.view.composer.replyTo == id { state.view.composer.replyTo = nil }
    case .markRead(let id, let read):
      state.messages[id]?.isRead = read
    case .setScore(let id, let s):
      state.messages[id]?.score = s
    case .computeScore(let id, let n, let d):
      state.messages[id]?.score = n / d
    case .setAttachment(let id, let data):
      state.messages[id]?.attachment = data
    case .moveMessage(let id, let offset):
      if let owner = state.conversationMessages.owner(of: id) {
        let count = state.conversationMessages[owner].count
        state.conversationMessages[owner].move(id, to: min(max(offset, 0), count - 1))
      }
    case .moveToConversation(let id, let conversation):
      guard let message = state.messages[id], message.conversationID != conversation,
        state.conversations.contains(id: conversation)
      else { break }
      state.messages[id]?.conversationID = conversation
      state.conversationMessages[message.conversationID].remove(id)
      state.conversationMessages[conversation].append(id)
    case .togglePin(let id):
      if !state.pinned.remove(id), state.conversations.contains(id: id) { state.pinned.append(id) }
    case .select(let id):
      state.view.selection = id
    case .highlight(let id):
      state.view.highlighted = id
    case .navigate(let route):
      state.view.route = route
    case .setFilter(let filter):
      state.view.filter = filter
    case .compose(let text):
      state.view.composer.text = text
    case .syncReceive(let id, let conversation, let body, let at, let serverID):
      guard state.conversations.contains(id: conversation), !state.messages.contains(id: id) else { break }
      state.messages.insert(
        InboxMessage(id: id, conversationID: conversation, body: body, sentAt: at, serverID: serverID))
      state.conversationMessages[conversation].append(id)
    case .syncRead(let id):
      state.messages[id]?.isRead = true
    case .syncRename(let id, let title):
      state.conversations[id]?.title = title
    case .syncDeleteMessage(let id):
      guard state.messages.remove(id: id) != nil else { break }
      if let owner = state.conversationMessages.owner(of: id) { state.conversationMessages[owner].remove(id) }
      if state.view.highlighted == id { state.view.highlighted = nil }
      if state.view.composer.replyTo == id { state.view.composer.replyTo = nil }
    }
    return .none
  }
}

typealias InboxStore = Store<InboxState, InboxAction>

@MainActor
func openInbox(_ path: String, readOnly: Bool = false) throws -> InboxStore {
  try InboxStore(path: path, initialState: InboxState(), reducer: InboxReducer(), readOnly: readOnly)
}

/// A deterministic UUID: `u(5)` is 00000000-0000-0000-0000-000000000005.
func u(_ n: Int) -> UUID {
  UUID(uuidString: String(format: "00000000-0000-0000-0000-%012X", n))!
}

/// A date at whole milliseconds (what the table holds).
func at(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }

/// The state with lists as plain arrays, for readable comparisons.
struct InboxPlain: Equatable, CustomStringConvertible {
  var conversations: [UUID: InboxConversation]
  var messages: [UUID: InboxMessage]
  var conversationMessages: [UUID: [UUID]]
  var pinned: [UUID]
  var view: InboxView

  init(_ s: InboxState) {
    conversations = Dictionary(uniqueKeysWithValues: s.conversations.values.map { ($0.id, $0) })
    messages = Dictionary(uniqueKeysWithValues: s.messages.values.map { ($0.id, $0) })
    conversationMessages = Dictionary(
      uniqueKeysWithValues: s.conversationMessages.ownersWithLists.map { ($0, s.conversationMessages[$0].ids) })
    pinned = s.pinned.ids
    view = s.view
  }

  var description: String {
    func short(_ id: UUID) -> String { String(id.uuidString.suffix(3)) }
    return """
      conversations: \(conversations.values.sorted { $0.id.uuidString < $1.id.uuidString }.map { "\(short($0.id))'\($0.title)' m=\($0.muted) p=\($0.priority)" })
      messages: \(messages.values.sorted { $0.id.uuidString < $1.id.uuidString }.map { "\(short($0.id))@\(short($0.conversationID))'\($0.body)' r=\($0.isRead) s=\($0.score) a=\($0.attachment?.count ?? -1) srv=\($0.serverID.map(String.init) ?? "-")" })
      lists: \(conversationMessages.sorted { $0.key.uuidString < $1.key.uuidString }.map { "\(short($0.key)): \($0.value.map(short))" }) pinned: \(pinned.map(short))
      view: \(view)
      """
  }
}

/// A small inbox: two conversations, four messages (one with an attachment).
@MainActor
func seedInbox(_ store: InboxStore) throws {
  try store.send(.createConversation(id: u(1), title: "Alice", at: at(1_000)))
  try store.send(.createConversation(id: u(2), title: "Team", at: at(2_000)))
  try store.send(.post(id: u(101), conversation: u(1), body: "Hi", at: at(3_000), attachment: nil, sender: "me"))
  try store.send(
    .post(id: u(102), conversation: u(1), body: "Photo", at: at(4_000), attachment: Data([0, 1, 2, 255]), sender: nil))
  try store.send(.post(id: u(201), conversation: u(2), body: "Standup?", at: at(5_000), attachment: nil, sender: "Bob"))
  try store.send(.post(id: u(202), conversation: u(2), body: "Yes", at: at(6_000), attachment: Data(), sender: nil))
}
