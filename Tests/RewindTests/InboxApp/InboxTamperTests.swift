import Foundation
import GRDB
import Testing

@testable import Rewind

@Suite("InboxTamper")
@MainActor
struct InboxTamperTests {
  func seeded(_ dir: TemporaryDirectory) throws -> String {
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    try store.send(.navigate(.conversation(u(1), scroll: 4)))
    store.waitForSnapshots()
    return path
  }

  func edit(_ path: String, _ sql: String, _ arguments: StatementArguments = []) throws {
    let q = try DatabaseQueue(path: path)
    try q.write { db in
      try db.execute(sql: "PRAGMA foreign_keys = OFF")
      try db.execute(sql: sql, arguments: arguments)
    }
    try q.close()
  }

  /// Opening either refuses with a RewindError naming the table (and the file is unchanged),
  /// or opens; in both cases verify reports the edit.
  func openOrRefuse(_ path: String, naming: String, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> InboxStore?
  {
    let before = try dump(path)
    var store: InboxStore?
    do {
      store = try openInbox(path)
    } catch let error as RewindError {
      #expect("\(error)".contains(naming), "\(error)", sourceLocation: sourceLocation)
      #expect(try dump(path) == before, sourceLocation: sourceLocation)
    } catch {
      Issue.record("not a RewindError: \(type(of: error)) \(error)", sourceLocation: sourceLocation)
      #expect(try dump(path) == before, sourceLocation: sourceLocation)
    }
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(!report.isHealthy, "verify is clean after the edit", sourceLocation: sourceLocation)
    return store
  }

  @Test func garbageDate() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    try edit(path, "UPDATE messages SET sentAt = 'garbage' WHERE id = ?", [u(101).uuidString])
    _ = try openOrRefuse(path, naming: "sentAt")
  }

  @Test func integerInABlobColumn() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    try edit(path, "UPDATE messages SET attachment = 5 WHERE id = ?", [u(102).uuidString])
    _ = try openOrRefuse(path, naming: "attachment")
  }

  @Test func textInABooleanColumn() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    try edit(path, "UPDATE messages SET isRead = 'yes' WHERE id = ?", [u(101).uuidString])
    _ = try openOrRefuse(path, naming: "isRead")
  }

  @Test func nullInANotNullEntityField() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    do {
      let store = try openInbox(path)
      try seedInbox(store)
    }
    // The table's NOT NULL forbids it; make a table without it, as an older app might have.
    try edit(path, "UPDATE messages SET serverId = 'x' WHERE id = ?", [u(101).uuidString])
    _ = try openOrRefuse(path, naming: "serverId")
  }

  @Test func keyThatIsNotAUUID() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    try edit(path, "UPDATE messages SET id = 'hello' WHERE id = ?", [u(101).uuidString])
    try edit(path, "UPDATE list_entries SET id = 'hello' WHERE id = ?", [u(101).uuidString])
    _ = try openOrRefuse(path, naming: "messages")
  }

  @Test func lowercaseKeys() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    try edit(path, "UPDATE messages SET id = lower(id)")
    try edit(path, "UPDATE list_entries SET id = lower(id) WHERE list = 'conversationMessages'")
    _ = try openOrRefuse(path, naming: "messages")
  }

  @Test func viewStateThatNoLongerDecodes() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    try edit(
      path,
      "UPDATE view_state SET value = '{\"conversation\":{\"_0\":\"not-a-uuid\",\"scroll\":1}}' WHERE path = 'route'")
    // Documented: loads as the default, and the repair writes the default back through the log.
    let store = try openInbox(path)
    #expect(store.state.view.route == .list)
    let reopened = try openInbox(path, readOnly: true)
    #expect(reopened.state.view.route == .list)
    try store.send(.select(u(1)))
    try store.undo()
    try expectInboxReopenMatches(store, path)
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    print("verify after a repaired view edit:", report.problems)
  }

  @Test func editedLogBeforeImage() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    // The post of 202 (seq 7): make its JSON unreadable.
    try edit(path, "UPDATE action_log SET changes = '[{\"table\":\"messages\"' WHERE seq = 7")
    let store = try openInbox(path)
    let before = try dump(path)
    do {
      try store.undo()
      Issue.record("undo applied a log entry whose changes are not JSON")
    } catch let error as RewindError {
      #expect("\(error)".contains("7"), "\(error)")
    }
    #expect(try dump(path) == before)
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(!report.isHealthy)
  }

  /// A realistic mistake: v2 of the app adds `preview` to messages but forgets the migration.
  /// The table lacks a column the entity needs: the shape differs (schemaMismatch, per the
  /// error codes' documentation), nothing is corrupt.
  @Test func forgottenMigration() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    let before = try dump(path)
    let error = expectRewindError(.schemaMismatch) {
      try Store(path: path, initialState: ForgotMigrationState(), reducer: ForgotMigrationReducer())
    }
    #expect("\(error.map { "\($0)" } ?? "")".contains("preview"))
    #expect(try dump(path) == before)
  }

  /// The same mistake on a file whose messages table is empty: no row tells the missing column
  /// on opening, so the file opens; the first post is refused naming the column, and nothing
  /// is written.
  @Test func forgottenMigrationOnAnEmptyTable() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    do {
      let store = try openInbox(path)
      try store.send(.createConversation(id: u(1), title: "A", at: at(1)))
    }
    let before = try dump(path)
    let store = try Store(path: path, initialState: ForgotMigrationState(), reducer: ForgotMigrationReducer())
    let error = expectRewindError(.schemaMismatch) {
      try store.send(.post(id: u(5), conversation: u(1), body: "x", at: at(2), attachment: nil, sender: nil))
    }
    #expect("\(error.map { "\($0)" } ?? "")".contains("preview"))
    #expect(try dump(path) == before)
  }

  @Test func wrongApp() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    let before = try dump(path)
    expectRewindError(.schemaMismatch) { try openPlanner(path) }
    expectRewindError(.schemaMismatch) {
      try Store(path: path, initialState: FastStateOther(), reducer: FastOtherReducer())
    }
    #expect(try dump(path) == before)
  }
}

/// An app sharing the messages table name only, with different columns.
struct OtherMessage: Entity {
  static let databaseTableName = "messages"
  var id: Int64
  var text: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("text", .text).notNull()
    }
  }
}

struct FastStateOther: PersistentState, Equatable {
  var messages = EntityTable<OtherMessage>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.messages)) }
}

struct FastOtherReducer: Reducer {
  func reduce(into state: inout FastStateOther, action: FastAction) -> Effect<FastAction> { .none }
}

struct ForgotMigrationState: PersistentState, Equatable {
  var conversations = EntityTable<InboxConversation>()
  var messages = EntityTable<InboxMessageV2>()
  var conversationMessages = OrderedIDLists<UUID, UUID>()
  var pinned = OrderedIDList<UUID>()
  var view = InboxView()

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.conversations),
      .entities(\.messages),
      .lists(
        \.conversationMessages, named: "conversationMessages", of: InboxMessageV2.self, ownedBy: InboxConversation.self),
      .list(\.pinned, named: "pinned", of: InboxConversation.self),
      .view(\.view)
    )
  }
}

struct ForgotMigrationReducer: Reducer {
  func reduce(into state: inout ForgotMigrationState, action: InboxAction) -> Effect<InboxAction> {
    if case .post(let id, let conversation, let body, let at, _, _) = action {
      state.messages.insert(InboxMessageV2(id: id, conversationID: conversation, body: body, preview: "", sentAt: at))
      state.conversationMessages[conversation].append(id)
    }
    return .none
  }
}

/// The forgotten migration with an entity that names its columns (`databaseColumnOrder`):
/// ModelingState says a column the table does not have "is refused by name when a store opens".
struct OrderedMessageV2: Entity {
  static let databaseTableName = "messages"
  var id: UUID
  var conversationID: UUID
  var body: String
  var preview: String

  enum CodingKeys: String, CodingKey {
    case id, body, preview
    case conversationID = "conversationId"
  }
  static func createTable(_ db: Database) throws {}
  static var databaseColumnOrder: [String]? {
    ["attachment", "body", "conversationId", "id", "isRead", "preview", "score", "senderName", "sentAt", "serverId"]
  }
  init(orderedRow row: Row) throws {
    body = try row.decode(atIndex: 1)
    conversationID = try row.decode(atIndex: 2)
    id = try row.decode(atIndex: 3)
    preview = try row.decode(atIndex: 5)
  }
}

struct OrderedForgotState: PersistentState, Equatable {
  var conversations = EntityTable<InboxConversation>()
  var messages = EntityTable<OrderedMessageV2>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.conversations), .entities(\.messages)) }
}

struct OrderedForgotReducer: Reducer {
  func reduce(into state: inout OrderedForgotState, action: InboxAction) -> Effect<InboxAction> { .none }
}

@Suite("InboxForgottenMigrationOrdered")
@MainActor
struct InboxForgottenMigrationOrderedTests {
  @Test func orderedEntityWithAColumnTheTableLacks() throws {
    for withRows in [true, false] {
      let dir = try TemporaryDirectory()
      let path = dir.path("inbox.sqlite")
      do {
        let store = try openInbox(path)
        try store.send(.createConversation(id: u(1), title: "A", at: at(1)))
        if withRows {
          try store.send(.post(id: u(11), conversation: u(1), body: "m", at: at(2), attachment: nil, sender: nil))
        }
      }
      let error = expectRewindError(.schemaMismatch) {
        try Store(path: path, initialState: OrderedForgotState(), reducer: OrderedForgotReducer())
      }
      print("withRows \(withRows):", error.map { "\($0.code): \($0)" } ?? "opened")
    }
  }
}
