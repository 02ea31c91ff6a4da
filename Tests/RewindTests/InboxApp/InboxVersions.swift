import Foundation
import GRDB
import Rewind

// App update v1 -> v2 -> v3.
// v2 (schema version 2): messages gain `preview`, the body's first 8 characters, computed by a
//   transform (a column whose value comes from another column).
// v3 (schema version 4): conversations' `title` is renamed `subject` and the view's `filter`
//   becomes `listFilter` (described, "3-names"); attachments move out of messages into a table
//   of their own (a transform split, "4-attachments"); and a new entity, contacts, is declared.

/// SQLite's substr counts code points.
func previewOf(_ body: String) -> String { String(String.UnicodeScalarView(body.unicodeScalars.prefix(8))) }

let inboxMigration2 = SchemaMigration.transform(
  "2-previews",
  migrate: { db in
    try db.execute(sql: "ALTER TABLE messages ADD COLUMN preview TEXT NOT NULL DEFAULT ''")
    try db.execute(sql: "UPDATE messages SET preview = substr(body, 1, 8)")
  },
  rows: { row in
    guard row.table == "messages", let body = row["body"] else { return [row] }
    var r = row
    r["preview"] = (String.fromDatabaseValue(body).map(previewOf) ?? "").databaseValue
    return [r]
  }
)

let inboxMigration3 = SchemaMigration(
  "3-names",
  .renameColumn("title", to: "subject", in: "conversations"),
  .renameViewProperty("filter", to: "listFilter")
)

let inboxMigration4 = SchemaMigration.transform(
  "4-attachments",
  migrate: { db in
    try db.create(table: "attachments") { t in
      t.primaryKey("id", .text)
      t.belongsTo("message", inTable: "messages", onDelete: .cascade).notNull()
      t.column("data", .blob).notNull()
    }
    try db.execute(
      sql:
        "INSERT INTO attachments (id, messageId, data) SELECT id, id, attachment FROM messages WHERE attachment IS NOT NULL"
    )
    try db.execute(sql: "ALTER TABLE messages DROP COLUMN attachment")
  },
  rows: { row in
    guard row.table == "messages", let id = row["id"], let attachment = row["attachment"] else { return [row] }
    var message = row
    message["attachment"] = nil
    if attachment.isNull { return [message] }
    return [message, HistoryRow(table: "attachments", columns: ["id": id, "messageId": id, "data": attachment])]
  }
)

// MARK: - v2

struct InboxMessageV2: Entity {
  static let databaseTableName = "messages"
  var id: UUID
  var conversationID: UUID
  var body: String
  var preview: String
  var sentAt: Date
  var attachment: Data?
  var score: Double = 0
  var isRead = false
  var senderName: String?
  var serverID: Int64?

  enum CodingKeys: String, CodingKey {
    case id, body, preview, sentAt, attachment, score, isRead, senderName
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
      t.column("preview", .text).notNull().defaults(to: "")
    }
  }
}

struct InboxStateV2: PersistentState, Equatable {
  var conversations = EntityTable<InboxConversation>()
  var messages = EntityTable<InboxMessageV2>()
  var conversationMessages = OrderedIDLists<UUID, UUID>()
  var pinned = OrderedIDList<UUID>()
  var view = InboxView()

  mutating func repairViewState() {
    if let id = view.selection, !conversations.contains(id: id) { view.selection = nil }
    if let id = view.highlighted, !messages.contains(id: id) { view.highlighted = nil }
  }

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.conversations),
      .entities(\.messages),
      .lists(
        \.conversationMessages, named: "conversationMessages", of: InboxMessageV2.self, ownedBy: InboxConversation.self),
      .list(\.pinned, named: "pinned", of: InboxConversation.self),
      .view(\.view)
    )
    .migrations(inboxMigration2)
  }
}

struct InboxReducerV2: Reducer {
  func reduce(into state: inout InboxStateV2, action: InboxAction) -> Effect<InboxAction> {
    switch action {
    case .createConversation(let id, let title, let at):
      state.conversations.insert(InboxConversation(id: id, title: title, createdAt: at))
      state.view.selection = id
    case .renameConversation(let id, let title), .syncRename(let id, let title):
      state.conversations[id]?.title = title
    case .deleteConversation(let id):
      state.conversations.remove(id: id)
      if state.view.selection == id { state.view.selection = nil }
    case .post(let id, let conversation, let body, let at, let attachment, let sender):
      guard state.conversations.contains(id: conversation) else { break }
      state.messages.insert(
        InboxMessageV2(
          id: id, conversationID: conversation, body: body, preview: previewOf(body), sentAt: at,
          attachment: attachment,
          isRead: true, senderName: sender))
      state.conversationMessages[conversation].append(id)
    case .syncReceive(let id, let conversation, let body, let at, let serverID):
      guard state.conversations.contains(id: conversation), !state.messages.contains(id: id) else { break }
      state.messages.insert(
        InboxMessageV2(
          id: id, conversationID: conversation, body: body, preview: previewOf(body), sentAt: at, serverID: serverID))
      state.conversationMessages[conversation].append(id)
    case .type(let id, let text):
      guard var m = state.messages[id] else { break }
      m.body += text
      m.preview = previewOf(m.body)
      state.messages[id] = m
    case .setAttachment(let id, let data):
      state.messages[id]?.attachment = data
    case .markRead(let id, let read):
      state.messages[id]?.isRead = read
    case .syncRead(let id):
      state.messages[id]?.isRead = true
    case .select(let id):
      state.view.selection = id
    case .setFilter(let f):
      state.view.filter = f
    default:
      break
    }
    return .none
  }
}

// MARK: - v3

struct InboxConversationV3: Entity {
  static let databaseTableName = "conversations"
  var id: UUID
  var subject: String
  var muted = false
  var priority: Double = 0
  var createdAt: Date

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("subject", .text).notNull()
      t.column("muted", .boolean).notNull()
      t.column("priority", .double).notNull()
      t.column("createdAt", .datetime).notNull()
    }
  }
}

struct InboxMessageV3: Entity {
  static let databaseTableName = "messages"
  var id: UUID
  var conversationID: UUID
  var body: String
  var preview: String
  var sentAt: Date
  var score: Double = 0
  var isRead = false
  var senderName: String?
  var serverID: Int64?

  enum CodingKeys: String, CodingKey {
    case id, body, preview, sentAt, score, isRead, senderName
    case conversationID = "conversationId"
    case serverID = "serverId"
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.belongsTo("conversation", inTable: InboxConversationV3.databaseTableName, onDelete: .cascade).notNull()
      t.column("body", .text).notNull()
      t.column("sentAt", .datetime).notNull()
      t.column("score", .double).notNull()
      t.column("isRead", .boolean).notNull()
      t.column("senderName", .text)
      t.column("serverId", .integer)
      t.column("preview", .text).notNull().defaults(to: "")
    }
  }
}

struct InboxAttachment: Entity {
  static let databaseTableName = "attachments"
  var id: UUID
  var messageID: UUID
  var data: Data

  enum CodingKeys: String, CodingKey {
    case id, data
    case messageID = "messageId"
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.belongsTo("message", inTable: "messages", onDelete: .cascade).notNull()
      t.column("data", .blob).notNull()
    }
  }
}

struct InboxContact: Entity {
  static let databaseTableName = "contacts"
  var id: UUID
  var name: String
  var email: String?

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("name", .text).notNull()
      t.column("email", .text)
    }
  }
}

struct InboxViewV3: Codable, Equatable, Sendable {
  var selection: UUID?
  var highlighted: UUID?
  var route: InboxView.Route = .list
  var composer = InboxView.Composer()
  var listFilter: InboxView.Filter = .all
}

struct InboxStateV3: PersistentState, Equatable {
  var conversations = EntityTable<InboxConversationV3>()
  var messages = EntityTable<InboxMessageV3>()
  var attachments = EntityTable<InboxAttachment>()
  var contacts = EntityTable<InboxContact>()
  var conversationMessages = OrderedIDLists<UUID, UUID>()
  var pinned = OrderedIDList<UUID>()
  var view = InboxViewV3()

  mutating func repairViewState() {
    if let id = view.selection, !conversations.contains(id: id) { view.selection = nil }
    if let id = view.highlighted, !messages.contains(id: id) { view.highlighted = nil }
  }

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.conversations),
      .entities(\.messages),
      .entities(\.attachments),
      .entities(\.contacts),
      .lists(
        \.conversationMessages, named: "conversationMessages", of: InboxMessageV3.self,
        ownedBy: InboxConversationV3.self),
      .list(\.pinned, named: "pinned", of: InboxConversationV3.self),
      .view(\.view)
    )
    .migrations(inboxMigration2, inboxMigration3, inboxMigration4)
  }
}

struct InboxReducerV3: Reducer {
  func reduce(into state: inout InboxStateV3, action: InboxAction) -> Effect<InboxAction> {
    switch action {
    case .createConversation(let id, let title, let at):
      state.conversations.insert(InboxConversationV3(id: id, subject: title, createdAt: at))
      state.view.selection = id
    case .renameConversation(let id, let title), .syncRename(let id, let title):
      state.conversations[id]?.subject = title
    case .deleteConversation(let id):
      state.conversations.remove(id: id)
      if state.view.selection == id { state.view.selection = nil }
    case .post(let id, let conversation, let body, let at, let attachment, let sender):
      guard state.conversations.contains(id: conversation) else { break }
      state.messages.insert(
        InboxMessageV3(
          id: id, conversationID: conversation, body: body, preview: previewOf(body), sentAt: at, isRead: true,
          senderName: sender))
      if let attachment { state.attachments.insert(InboxAttachment(id: id, messageID: id, data: attachment)) }
      state.conversationMessages[conversation].append(id)
    case .syncReceive(let id, let conversation, let body, let at, let serverID):
      guard state.conversations.contains(id: conversation), !state.messages.contains(id: id) else { break }
      state.messages.insert(
        InboxMessageV3(
          id: id, conversationID: conversation, body: body, preview: previewOf(body), sentAt: at, serverID: serverID))
      state.conversationMessages[conversation].append(id)
    case .type(let id, let text):
      guard var m = state.messages[id] else { break }
      m.body += text
      m.preview = previewOf(m.body)
      state.messages[id] = m
    case .setAttachment(let id, let data):
      guard state.messages.contains(id: id) else { break }
      if let data {
        state.attachments.insert(InboxAttachment(id: id, messageID: id, data: data))
      } else {
        state.attachments.remove(id: id)
      }
    case .markRead(let id, let read):
      state.messages[id]?.isRead = read
    case .syncRead(let id):
      state.messages[id]?.isRead = true
    case .select(let id):
      state.view.selection = id
    case .setFilter(let f):
      state.view.listFilter = f
    case .deleteMessage(let id):
      state.messages.remove(id: id)
      if let owner = state.conversationMessages.owner(of: id) { state.conversationMessages[owner].remove(id) }
    default:
      break
    }
    return .none
  }
}
