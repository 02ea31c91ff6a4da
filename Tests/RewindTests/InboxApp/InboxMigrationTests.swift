import Foundation
import GRDB
import Testing

@testable import Rewind

@Suite("InboxMigration")
@MainActor
struct InboxMigrationTests {
  /// A v1 file with a long-ish history: posts, typing, syncs, attachments, undo and redo.
  func v1File(_ dir: TemporaryDirectory, extra: Int = 60) throws -> String {
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    for i in 0..<extra {
      switch i % 6 {
      case 0: try store.send(.type(id: u(101), text: "\(i)"))
      case 1:
        try store.send(
          .syncReceive(
            id: u(400 + i), conversation: u(i % 12 < 6 ? 1 : 2), body: "sync é\(i)", at: at(Int64(50_000 + i)),
            serverID: Int64(i)))
      case 2: try store.send(.setAttachment(id: u(201), i % 4 == 2 ? nil : Data([UInt8(i)])))
      case 3: try store.send(.markRead(id: u(102), i % 2 == 0))
      case 4: try store.undo()
      default: try store.send(.select(i % 12 < 6 ? u(1) : u(2)))
      }
    }
    try store.send(.setFilter(.search("q", caseSensitive: false)))
    try store.send(
      .post(
        id: u(150), conversation: u(1), body: "last v1 message, long", at: at(99_000), attachment: Data([5, 5]),
        sender: "me"))
    store.waitForSnapshots()
    return path
  }

  @Test func v1ToV2ToV3() throws {
    let dir = try TemporaryDirectory()
    let path = try v1File(dir)
    let v1State = InboxPlain(try openInbox(path).state)
    let v1Last = try openInbox(path).lastSeq
    // Exports at every seq of v1, for comparison after the update.
    var v1Exports: [Int64: String] = [:]
    let db1 = try RewindDatabase(path: path, readOnly: true)
    for seq in 0...v1Last { v1Exports[seq] = try db1.export(at: seq) }

    // v2
    do {
      let v2 = try InboxStore2(path: path, initialState: InboxStateV2(), reducer: InboxReducerV2())
      #expect(v2.state.messages[u(150)]?.preview == "last v1 ")
      #expect(v2.state.messages.count == v1State.messages.count)
      try expectHealthy(path)
      try v2.send(.type(id: u(150), text: "!"))
      try v2.send(
        .post(id: u(160), conversation: u(2), body: "v2", at: at(100_000), attachment: Data([1]), sender: nil))
      try v2.undo()
      try v2.undo()
      try v2.undo()  // the v1 post of 150, across the migration
      #expect(v2.state.messages[u(150)] == nil)
      try v2.redo()
      #expect(v2.state.messages[u(150)]?.preview == "last v1 ")
      try v2.jump(to: 3)
      #expect(v2.state.messages.isEmpty)
      try v2.undo()
      let reopened = try InboxStore2(path: path, initialState: InboxStateV2(), reducer: InboxReducerV2())
      #expect(reopened.state == v2.state)
      try expectHealthy(path)
    }
    // v3
    let v3 = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    #expect(v3.state.conversations[u(1)]?.subject == "Alice")
    #expect(v3.state.attachments[u(150)]?.data == Data([5, 5]))
    #expect(v3.state.attachments[u(102)]?.data == Data([0, 1, 2, 255]))
    #expect(v3.state.view.listFilter == .search("q", caseSensitive: false))
    try expectHealthy(path)
    try tool(["verify", path])
    // every seq of v1 still exports, and restores
    let db3 = try RewindDatabase(path: path, readOnly: true)
    for seq in 0...v1Last {
      let json = try db3.export(at: seq)
      #expect(!json.isEmpty)
    }
    try v3.send(.renameConversation(id: u(1), title: "Alice B."))
    try v3.send(.setAttachment(id: u(101), Data([42])))
    try v3.jump(to: 7)  // a v1 state: the seed
    #expect(v3.state.attachments[u(102)]?.data == Data([0, 1, 2, 255]))
    #expect(v3.state.attachments[u(202)]?.data == Data())
    #expect(v3.state.messages[u(202)]?.preview == "Yes")
    #expect(v3.state.conversations[u(1)]?.subject == "Alice")
    let reopen1 = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    #expect(reopen1.state == v3.state)
    try v3.undo()  // the jump
    #expect(v3.state.attachments[u(101)]?.data == Data([42]))
    var undos = 0
    do {
      while try v3.undo() != nil { undos += 1 }
    } catch let error as RewindError where error.code == .conflict {
      // the creation of a conversation that syncs added messages to since: refused, as documented
    }
    #expect(undos > 10)
    let reopen2 = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    #expect(reopen2.state == v3.state)
    try expectHealthy(path)
    while try v3.redo() != nil {}
    #expect(v3.state.conversations[u(1)]?.subject == "Alice")  // the jump to seq 7 was redone last
    try expectHealthy(path)
    try tool(["compact", path, "--keep", "3"])
    try v3.reload()
    let reopen3 = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    #expect(reopen3.state == v3.state)
    try tool(["verify", path])
  }

  @Test func oldAppRefusedAfterUpdate() throws {
    let dir = try TemporaryDirectory()
    let path = try v1File(dir, extra: 6)
    let old = try openInbox(path)
    _ = try InboxStore2(path: path, initialState: InboxStateV2(), reducer: InboxReducerV2())
    let before = try dump(path)
    expectRewindError(.newerAppSchema) { try old.send(.select(u(2))) }
    expectRewindError(.newerAppSchema) { try openInbox(path) }
    #expect(try dump(path) == before)
  }

  @Test func importOfV1ExportIntoV3File() throws {
    let dir = try TemporaryDirectory()
    let path = try v1File(dir, extra: 12)
    let exportV1 = try RewindDatabase(path: path, readOnly: true).export()
    _ = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    let before = try dump(path)
    // An export from before a transform is refused with the reason, nothing changed.
    let db = try RewindDatabase(path: path)
    expectRewindError(.invalidImport) { try db.importState(exportV1) }
    #expect(try dump(path) == before)
  }
}

typealias InboxStore2 = Store<InboxStateV2, InboxAction>
typealias InboxStore3 = Store<InboxStateV3, InboxAction>

@Suite("InboxMigrationReadOnly")
@MainActor
struct InboxMigrationReadOnlyTests {
  @Test func readOnlyOpenOfAnOlderFile() throws {
    let dir = try TemporaryDirectory()
    let path = try InboxMigrationTests().v1File(dir, extra: 12)
    let before = try dump(path)
    let bytes = contents(of: path)
    let ro = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3(), readOnly: true)
    #expect(ro.state.attachments[u(150)]?.data == Data([5]) || ro.state.attachments[u(150)]?.data == Data([5, 5]))
    #expect(ro.state.conversations[u(1)]?.subject == "Alice")
    #expect(try dump(path) == before)
    #expect(contents(of: path) == bytes)
    expectRewindError(.readOnly) { try ro.send(.select(u(2))) }
    // The tool's log and export on the migrated file.
    let rw = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    #expect(rw.state == ro.state)
    let log = try tool(["log", path, "--last", "5"])
    #expect(log.out.contains("4-attachments"))
    let out = dir.path("x.json")
    try tool(["export", path, "--at", "5", "-o", out])
    let json = try String(contentsOfFile: out, encoding: .utf8)
    #expect(json.contains("\"attachments\""))
    #expect(json.contains("\"subject\":\"Alice\""))
    #expect(!json.contains("\"attachment\":"))
  }
}

/// A plausible mistake: the transform counts Characters, SQLite's substr counts code points.
let inboxMigration2Wrong = SchemaMigration.transform(
  "2-previews",
  migrate: { db in
    try db.execute(sql: "ALTER TABLE messages ADD COLUMN preview TEXT NOT NULL DEFAULT ''")
    try db.execute(sql: "UPDATE messages SET preview = substr(body, 1, 8)")
  },
  rows: { row in
    guard row.table == "messages", let body = row["body"] else { return [row] }
    var r = row
    r["preview"] = String((String.fromDatabaseValue(body) ?? "").prefix(8)).databaseValue
    return [r]
  }
)

struct InboxStateV2Wrong: PersistentState, Equatable {
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
    .migrations(inboxMigration2Wrong)
  }
}

struct InboxReducerV2Wrong: Reducer {
  func reduce(into state: inout InboxStateV2Wrong, action: InboxAction) -> Effect<InboxAction> { .none }
}

@Suite("InboxMigrationMistakes")
@MainActor
struct InboxMigrationMistakeTests {
  @Test func transformThatDisagreesIsRefused() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    do {
      let store = try openInbox(path)
      try seedInbox(store)
      try store.send(.type(id: u(101), text: " e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}"))
      store.waitForSnapshots()
    }
    let before = try dump(path)
    let error = expectRewindError(.migrationFailed) {
      try Store(path: path, initialState: InboxStateV2Wrong(), reducer: InboxReducerV2Wrong())
    }
    let text = error.map { "\($0)" } ?? ""
    #expect(text.contains("2-previews") && text.contains(u(101).uuidString), "\(text)")
    #expect(try dump(path) == before)
    // the right one works on the same file
    let v2 = try InboxStore2(path: path, initialState: InboxStateV2(), reducer: InboxReducerV2())
    #expect(v2.state.messages[u(101)]?.preview == previewOf("Hi e\u{301}e\u{301}e\u{301}e\u{301}e\u{301}"))
    try expectHealthy(path)
  }

  @Test func subMillisecondDatesMatchTheFile() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    let dates = [
      Date(timeIntervalSince1970: 1.0006), Date(timeIntervalSince1970: -0.0004),
      Date(timeIntervalSince1970: 1_700_000_000.9999),
      Date(timeIntervalSinceReferenceDate: 721_692_800.123456), Date(timeIntervalSince1970: -1.9995),
    ]
    for (i, date) in dates.enumerated() {
      try store.send(.syncReceive(id: u(600 + i), conversation: u(1), body: "d", at: date, serverID: 1))
      try store.send(.post(id: u(700 + i), conversation: u(2), body: "d", at: date, attachment: nil, sender: nil))
    }
    let reopened = try openInbox(path)
    for i in dates.indices {
      #expect(
        store.state.messages[u(600 + i)]?.sentAt == reopened.state.messages[u(600 + i)]?.sentAt, "date \(dates[i])")
    }
    try store.undo()
    try store.redo()
    #expect(InboxPlain(store.state) == InboxPlain(try openInbox(path).state))
    try expectHealthy(path)
  }
}

@Suite("InboxMigrationUndoRedo")
@MainActor
struct InboxMigrationUndoRedoTests {
  @Test func undoAndRedoOfV1TypingAfterTheTransform() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    do {
      let store = try openInbox(path)
      try seedInbox(store)
      try store.send(.type(id: u(101), text: " there, long"))  // step T1
      try store.send(.syncRead(id: u(101)))
      try store.send(.type(id: u(201), text: " now"))  // step T2
      try store.undo()  // T2 undone: on the redo stack across the update
      try store.send(.setAttachment(id: u(201), Data([9])))  // drops the redo stack? (a new undoable action)
      try store.undo()  // the attachment
    }
    let v2 = try InboxStore2(path: path, initialState: InboxStateV2(), reducer: InboxReducerV2())
    #expect(v2.state.messages[u(101)]?.preview == previewOf("Hi there, long"))
    try v2.redo()  // the attachment again
    #expect(v2.state.messages[u(201)]?.attachment == Data([9]))
    try v2.undo()
    try v2.undo()  // T1
    #expect(v2.state.messages[u(101)]?.body == "Hi")
    #expect(v2.state.messages[u(101)]?.preview == "Hi", "preview after undoing v1 typing")
    try v2.redo()
    #expect(v2.state.messages[u(101)]?.preview == previewOf("Hi there, long"))
    try v2.undo()
    let v3 = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    try v3.redo()  // T1 again, now in v3
    #expect(v3.state.messages[u(101)]?.body == "Hi there, long")
    #expect(v3.state.messages[u(101)]?.preview == previewOf("Hi there, long"))
    try v3.redo()  // the attachment, as a row of attachments now
    #expect(v3.state.attachments[u(201)]?.data == Data([9]))
    try v3.undo()
    #expect(v3.state.attachments[u(201)] == nil)
    let reopened = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    #expect(reopened.state == v3.state)
    try expectHealthy(path)
  }
}

@Suite("InboxOldStoreAfterUpdate")
@MainActor
struct InboxOldStoreAfterUpdateTests {
  @Test func oldStoreHistoryOperationsAfterANewerOneMigrated() throws {
    let dir = try TemporaryDirectory()
    let path = try InboxMigrationTests().v1File(dir, extra: 6)
    let old = try openInbox(path)
    let oldMemory = InboxPlain(old.state)
    _ = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    let before = try dump(path)
    expectRewindError(.newerAppSchema) { try old.undo() }
    expectRewindError(.newerAppSchema) { try old.redo() }
    expectRewindError(.newerAppSchema) { try old.jump(to: 3) }
    let reloadError = expectRewindError(.newerAppSchema) { try old.reload() }
    _ = reloadError
    #expect(try dump(path) == before)
    #expect(InboxPlain(old.state) == oldMemory)
    expectRewindError(.newerAppSchema) { try openInbox(path, readOnly: true) }
  }
}

@Suite("InboxExportShape")
@MainActor
struct InboxExportShapeTests {
  @Test func exportAtAV1SeqReadsInTheNewShape() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let filterSeq: Int64
    do {
      let store = try openInbox(path)
      try seedInbox(store)
      filterSeq = try #require(try store.send(.setFilter(.unread)))
      try store.send(.setFilter(.all))
    }
    _ = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    let json = try RewindDatabase(path: path, readOnly: true).export(at: filterSeq)
    #expect(json.contains("\"listFilter\": {\"unread\":{}}"), "\(json)")
    #expect(!json.contains("\"filter\":"))
    #expect(json.contains("\"subject\":\"Alice\""))
    let restored = try RewindDatabase(path: path).restore(to: filterSeq, timeline: .view)
    #expect(restored != nil)
    let store = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    #expect(store.state.view.listFilter == .unread)
    try expectHealthy(path)
  }
}

@Suite("InboxJumpEverywhere")
@MainActor
struct InboxJumpEverywhereTests {
  /// Jump to every seq of an updated file (v1 actions, undos, migrations, a compaction, repairs):
  /// the document after the jump is what `export --at` said it was.
  @Test func jumpToEverySeqMatchesExportAt() throws {
    let dir = try TemporaryDirectory()
    let path = try InboxMigrationTests().v1File(dir, extra: 30)
    do {
      let v2 = try InboxStore2(path: path, initialState: InboxStateV2(), reducer: InboxReducerV2())
      try v2.send(.type(id: u(101), text: " v2"))
    }
    let v3 = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    try v3.send(.setAttachment(id: u(101), Data([1, 2])))
    try v3.send(.select(u(1)))
    try tool(["compact", path, "--keep", "25"])
    try v3.reload()
    try v3.send(.renameConversation(id: u(2), title: "Team 2"))
    let db = try RewindDatabase(path: path, readOnly: true)
    let base = try db.inspect().baseSeq
    let last = v3.lastSeq
    func document(_ json: String) -> String { String(json.split(separator: "\"view\"")[0]) }
    var checked = 0
    for seq in base...last {
      let expected = try document(db.export(at: seq))
      let before = try db.export()
      do {
        let moved = try v3.jump(to: seq, timeline: .document)
        let now = try document(db.export())
        #expect(now == expected, "jump to \(seq)")
        if moved != nil { try v3.undo() }
        #expect(try document(db.export()) == document(before), "undo of the jump to \(seq)")
        checked += 1
      } catch let error as RewindError {
        Issue.record("jump to \(seq): \(error)")
      }
    }
    print("checked \(checked) seqs from \(base) to \(last)")
    let reopened = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    #expect(reopened.state == v3.state)
    try expectHealthy(path)
  }
}
