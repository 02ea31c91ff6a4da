import Foundation
import GRDB
import Testing

@testable import Rewind

@Suite("InboxProbe")
@MainActor
struct InboxProbeTests {
  /// (Not -0.0: SQLite keeps no sign of zero, so the file holds 0, as the README's
  /// "Failures" says and `aNegativeZeroIsStoredAsZeroAndReadBackEqual` pins.)
  @Test func undoRestoresDoublesBitForBit() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    let values: [Double] = [
      .leastNonzeroMagnitude, 0x1p-1030, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 0.1 + 0.2, 1.0 / 3.0, 3.0,
      1e22, 1e23,
      (0x1p53 as Double).nextUp, .infinity, -.infinity, 2.2250738585072014e-308, .leastNonzeroMagnitude.nextUp,
    ]
    for value in values {
      if value.isInfinite {
        try store.send(.computeScore(id: u(101), numerator: value > 0 ? 1 : -1, denominator: 0))
      } else {
        try store.send(.computeScore(id: u(101), numerator: value, denominator: 1))
      }
      try store.send(.setScore(id: u(101), 7))
      try store.undo()
      #expect(store.state.messages[u(101)]?.score.bitPattern == value.bitPattern, "undo to \(value)")
      let reopened = try openInbox(path)
      #expect(reopened.state.messages[u(101)]?.score.bitPattern == value.bitPattern, "reopen at \(value)")
    }
    try expectHealthy(path)
  }

  @Test func extremeIntegersAndDates() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    let dates = [
      Date(timeIntervalSince1970: -62_135_596_800), Date(timeIntervalSince1970: 253_402_300_799.999), at(-1), at(1),
    ]
    var n = 0
    for serverID: Int64 in [Int64.max, Int64.min, 0, -1, (1 << 53) + 1] {
      for date in dates {
        n += 1
        try store.send(.syncReceive(id: u(500 + n), conversation: u(1), body: "x", at: date, serverID: serverID))
        let m = try #require(store.state.messages[u(500 + n)])
        #expect(m.serverID == serverID)
      }
    }
    try expectInboxReopenMatches(store, path)
    try expectHealthy(path)
    let db = try RewindDatabase(path: path)
    let exported = try db.export()
    try store.send(.deleteConversation(id: u(1)))
    #expect(try db.importState(exported) != nil)
    try store.reload()
    #expect(store.state.messages[u(501)]?.serverID == Int64.max)
    #expect(store.state.messages[u(506)]?.serverID == Int64.min)
    try expectInboxReopenMatches(store, path)
    try expectHealthy(path)
  }

  @Test func invalidUTF8InATextColumn() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    do {
      let store = try openInbox(path)
      try seedInbox(store)
      store.waitForSnapshots()
    }
    let q = try DatabaseQueue(path: path)
    try q.write { db in
      try db.execute(
        sql: "UPDATE messages SET body = CAST(X'48FF69' AS TEXT) WHERE id = ?", arguments: [u(101).uuidString])
    }
    try q.close()
    let before = try dump(path)
    // Either opening refuses it naming the row, or verify finds it; nothing changes by opening.
    var opened: InboxStore?
    do {
      opened = try openInbox(path)
    } catch let error as RewindError {
      #expect("\(error)".contains("messages"), "\(error)")
    }
    #expect(try dump(path) == before)
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(!report.isHealthy, "verify passed a body that is not UTF-8")
    if let store = opened {
      // The app types into it: the file should keep what memory shows.
      try store.send(.type(id: u(101), text: "!"))
      let reopened = try openInbox(path)
      #expect(reopened.state.messages[u(101)]?.body == store.state.messages[u(101)]?.body)
      try store.undo()
      let again = try openInbox(path)
      #expect(again.state.messages[u(101)]?.body == store.state.messages[u(101)]?.body)
    }
  }

  @Test func toolCompactsUnderAnOpenStoreThatDoesNotReload() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    for i in 0..<10 {
      try store.send(.type(id: u(201), text: "\(i)"))
      try store.send(.markRead(id: u(201), i % 2 == 0))
    }
    let old = store.lastSeq - 15
    try tool(["compact", path, "--keep", "4"])
    // The store has not reloaded: history it remembers was folded.
    expectRewindError(.unknownSeq) { try store.jump(to: old) }
    var undos = 0
    while try store.undo() != nil { undos += 1 }
    #expect(undos >= 1)
    try expectInboxReopenMatches(store, path)
    try tool(["verify", path])
    while try store.redo() != nil {}
    try expectInboxReopenMatches(store, path)
    try tool(["verify", path])
  }

  @Test func restoreToZeroAndSeqOneWithTheStoreOpen() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    try store.send(
      .navigate(.compose(to: u(1), draft: .init(text: "hi", attachment: Data([1, 2]), replyTo: u(101), tags: ["x"]))))
    try tool(["restore", path, "--to", "0"])
    try store.send(.syncRead(id: u(101)))  // nothing left to read: catches up first
    #expect(store.state.messages.isEmpty)
    #expect(store.state.view == InboxView())
    try expectInboxReopenMatches(store, path)
    try store.undo()  // the restore
    #expect(store.state.messages.count == 4)
    #expect(store.state.view.composer == InboxView.Composer())  // the route holds the draft
    if case .compose(let to, let draft) = store.state.view.route {
      #expect(to == u(1))
      #expect(draft.attachment == Data([1, 2]))
    } else {
      Issue.record("route: \(store.state.view.route)")
    }
    try expectInboxReopenMatches(store, path)
    try tool(["verify", path])
    try store.jump(to: 0)
    #expect(store.state.messages.isEmpty)
    try store.jump(to: 1)
    try expectInboxReopenMatches(store, path)
    try tool(["verify", path])
  }

  @Test func toolImportOfAnEditedExport() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    let out = dir.path("e.json")
    try tool(["export", path, "-o", out])
    var text = try String(contentsOfFile: out, encoding: .utf8)
    text = text.replacingOccurrences(of: "\"Hi\"", with: "\"Hi, edited\"")
    try text.write(toFile: out, atomically: true, encoding: .utf8)
    try tool(["import", path, out])
    try store.reload()
    #expect(store.state.messages[u(101)]?.body == "Hi, edited")
    #expect(store.state.messages[u(102)]?.attachment == Data([0, 1, 2, 255]))
    try expectInboxReopenMatches(store, path)
    try tool(["verify", path])
    // A bad export: a message whose conversation does not exist.
    let bad = text.replacingOccurrences(
      of: "\"conversationId\":\"\(u(2).uuidString)\",\"id\":\"\(u(201).uuidString)\"",
      with: "\"conversationId\":\"\(u(77).uuidString)\",\"id\":\"\(u(201).uuidString)\"")
    #expect(bad != text)
    try bad.write(toFile: out, atomically: true, encoding: .utf8)
    let before = try dump(path)
    let r = try tool(["import", path, out], ok: false)
    #expect(r.status != 0)
    #expect(r.err.contains("00000000-0000-0000-0000-00000000004D") || r.err.contains("conversation"), "\(r.err)")
    #expect(try dump(path) == before)
  }
}

@Suite("InboxToolRepair")
@MainActor
struct InboxToolRepairTests {
  /// README, "Many writers": the repair after the tool's `undo` belongs to no step of its own;
  /// it extends the undo's application, so the store's redo brings back what it cleared.
  @Test func repairAfterToolUndoBelongsToNoStep() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try store.send(.createConversation(id: u(1), title: "A", at: at(1)))
    try store.send(.post(id: u(11), conversation: u(1), body: "m", at: at(2), attachment: nil, sender: nil))
    try store.send(.highlight(u(11)))  // view only
    try tool(["undo", path])  // deletes 11; the tool cannot repair the highlight
    try store.reload()  // repairs: highlighted 11 -> nil
    #expect(store.state.view.highlighted == nil)
    let q = try DatabaseQueue(path: path)
    let rows = try q.read { db in try Row.fetchAll(db, sql: "SELECT seq, kind, step FROM action_log ORDER BY seq") }
    let repair = try #require(rows.last)
    #expect(repair["kind"] == "repair")
    #expect(repair["step"] as Int64? == nil, "the repair after the tool's undo is no undo step of its own")
    try q.close()
    // "Undo then redo returns exactly to where it started": the tool's undo, the store's redo.
    try store.redo()
    #expect(store.state.messages[u(11)] != nil)
    #expect(
      store.state.view.highlighted == u(11),
      "redo after the tool's undo does not bring back the highlight its repair cleared")
  }

  /// The same with the store's own undo: the repair joins the undo, and redo brings it back.
  @Test func repairAfterStoreUndoJoinsIt() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try store.send(.createConversation(id: u(1), title: "A", at: at(1)))
    try store.send(.post(id: u(11), conversation: u(1), body: "m", at: at(2), attachment: nil, sender: nil))
    try store.send(.highlight(u(11)))
    try store.undo()
    #expect(store.state.view.highlighted == nil)
    try store.redo()
    #expect(store.state.view.highlighted == u(11))
  }
}

@Suite("InboxBackupPaths")
@MainActor
struct InboxBackupPathTests {
  /// `export -o` refuses the database's own `-wal` name by name; `backup` refuses it too (the
  /// tool's own connection has created the `-wal` by then, and backup never overwrites a file),
  /// with a less telling message ("it already exists"). Passes: kept as a check.
  @Test func backupToTheDatabasesWALName() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    do {
      let store = try openInbox(path)
      try seedInbox(store)
      store.waitForSnapshots()
    }
    #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    let exportRefusal = try tool(["export", path, "-o", path + "-wal"], ok: false)
    #expect(exportRefusal.status != 0)
    try? FileManager.default.removeItem(atPath: path + "-wal")
    let r = try tool(["backup", path, path + "-wal"], ok: false)
    print("backup to -wal:", r.status, r.out, r.err)
    #expect(r.status != 0, "backup wrote a database at the database's own -wal path")
    let backupExists = FileManager.default.fileExists(atPath: path + "-wal")
    let store = try openInbox(path)
    #expect(store.state.messages.count == 4)
    try expectHealthy(path)
    store.waitForSnapshots()
    _ = backupExists
    print(
      "backup file after the app opened:", FileManager.default.fileExists(atPath: path + "-wal"),
      (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size]) ?? "-")
  }
}

@Suite("InboxEmptyValues")
@MainActor
struct InboxEmptyValueTests {
  @Test func emptyDataAndEmptyStringsSurviveUndoExportImport() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try store.send(.createConversation(id: u(1), title: "", at: at(0)))
    try store.send(.post(id: u(11), conversation: u(1), body: "", at: at(0), attachment: Data(), sender: ""))
    try store.send(.setAttachment(id: u(11), nil))
    try store.undo()
    #expect(store.state.messages[u(11)]?.attachment == Data())
    #expect(store.state.messages[u(11)]?.senderName == "")
    try store.send(.setAttachment(id: u(11), Data([0])))
    try store.undo()
    #expect(store.state.messages[u(11)]?.attachment == Data())
    let reopened = try openInbox(path)
    #expect(reopened.state.messages[u(11)]?.attachment == Data())
    #expect(reopened.state.messages[u(11)]?.senderName == "")
    let db = try RewindDatabase(path: path)
    let json = try db.export()
    try store.send(.setAttachment(id: u(11), nil))
    try db.importState(json)
    try store.reload()
    #expect(store.state.messages[u(11)]?.attachment == Data())
    try store.jump(to: 3)
    #expect(store.state.messages[u(11)]?.attachment == Data())
    let again = try openInbox(path)
    #expect(again.state.messages[u(11)]?.attachment == Data())
    try expectHealthy(path)
  }
}

@Suite("InboxImportValues")
@MainActor
struct InboxImportValueTests {
  func attempt(
    _ replacement: String, _ dir: TemporaryDirectory, _ path: String, _ store: InboxStore,
    needle: String = "\"score\":0.0", suffix: String = ",\"senderName\":\"me\""
  ) throws -> (Int32, String) {
    let out = dir.path("e.json")
    try tool(["export", path, "-o", out])
    let text = try String(contentsOfFile: out, encoding: .utf8)
    #expect(text.contains(needle + suffix))
    try text.replacingOccurrences(of: needle + suffix, with: replacement + suffix).write(
      toFile: out, atomically: true, encoding: .utf8)
    let before = try dump(path)
    let r = try tool(["import", path, out], ok: false)
    if r.status != 0 { #expect(try dump(path) == before) }
    return (r.status, r.err)
  }

  @Test func oddNumbersInAnImport() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    for (replacement, shouldImport) in [
      ("\"score\":{\"$real\":\"nan\"}", false),
      ("\"score\":{\"$real\":\"inf\"}", true),
      ("\"score\":1e400", false),
      ("\"score\":\"abc\"", false),
      ("\"score\":null", false),
      ("\"score\":-0.0", true),
      ("\"score\":12345678901234567890", true),
    ] {
      let (status, err) = try attempt("\(replacement)", dir, path, store)
      print(replacement, "->", status, err.prefix(300))
      #expect((status == 0) == shouldImport, "\(replacement): \(err)")
      if status == 0 {
        try store.reload()
        try expectInboxReopenMatches(store, path, replacement)
        try expectHealthy(path)
        try store.undo()
      }
    }
    // Integer columns: 64-bit only.
    for (replacement, shouldImport) in [
      ("\"serverId\":12345678901234567890", false), ("\"serverId\":9223372036854775807", true),
      ("\"serverId\":1.5", false),
      ("\"serverId\":-9223372036854775809", false), ("\"serverId\":1e3", true), ("\"serverId\":true", true),
    ] {
      let (status, err) = try attempt(
        "\"sentAt\":\"1970-01-01 00:00:03.000\"," + replacement, dir, path, store,
        needle: "\"sentAt\":\"1970-01-01 00:00:03.000\",\"serverId\":null", suffix: "")
      print(replacement, "->", status, err.prefix(300))
      #expect((status == 0) == shouldImport, "\(replacement): \(err)")
      if status == 0 {
        try store.reload()
        try expectInboxReopenMatches(store, path, replacement)
        try expectHealthy(path)
        try store.undo()
      }
    }
  }
}

@Suite("InboxSnapshotLabels")
@MainActor
struct InboxSnapshotLabelTests {
  @Test func oddLabels() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    let db = try RewindDatabase(path: path)
    // Any text is a label but an empty one or one with control characters: those are refused,
    // changing nothing.
    let refused: [(String, RewindError.Code)] = [
      ("", .snapshotLabel), ("a\nb", .invalidValue), ("a\u{0}b", .invalidValue),
    ]
    for (label, code) in refused {
      let before = try dump(path)
      expectRewindError(code) { try db.snapshot(label: label) }
      #expect(try dump(path) == before)
    }
    for label in [" ", "é", String(repeating: "x", count: 10_000), "--to"] {
      let body = store.state.messages[u(101)]?.body
      _ = try db.snapshot(label: label)
      try store.send(.type(id: u(101), text: "!"))
      #expect(try db.restore(snapshot: label) != nil)
      try store.reload()
      #expect(store.state.messages[u(101)]?.body == body, "restored by the label \(label.prefix(20).debugDescription)")
      try store.undo()
    }
    expectRewindError(.snapshotLabel) { try db.snapshot(label: "é") }
    try expectHealthy(path)
    let listed = try tool(["snapshots", path]).out
    #expect(listed.contains("--to") && listed.contains("é"))
  }
}
