import Foundation
import GRDB
import Testing

@testable import Rewind

@Suite("InboxBadInput")
@MainActor
struct InboxBadInputTests {
  /// Seeds a file and closes it; returns its path.
  func seeded(_ dir: TemporaryDirectory) throws -> String {
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    store.waitForSnapshots()
    return path
  }

  @Test func nanInAColumnIsRefused() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    let store = try openInbox(path)
    let before = try dump(path)
    let error = expectRewindError(.invalidValue) {
      try store.send(.computeScore(id: u(101), numerator: 0, denominator: 0))
    }
    #expect("\(error.map { "\($0)" } ?? "")".contains("score") || "\(error.map { "\($0)" } ?? "")".contains("NaN"))
    #expect(try dump(path) == before)
    #expect(store.state.messages[u(101)]?.score == 0)
  }

  @Test func infinityInAColumnRoundTrips() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    let store = try openInbox(path)
    try store.send(.computeScore(id: u(101), numerator: 1, denominator: 0))
    try store.send(.computeScore(id: u(102), numerator: -1, denominator: 0))
    #expect(store.state.messages[u(101)]?.score == .infinity)
    #expect(store.state.messages[u(102)]?.score == -.infinity)
    try expectInboxReopenMatches(store, path)
    try expectHealthy(path)
    try store.undo()
    try store.undo()
    #expect(store.state.messages[u(101)]?.score == 0)
    try store.redo()
    #expect(store.state.messages[u(101)]?.score == .infinity)
    try expectInboxReopenMatches(store, path)
    try expectHealthy(path)
  }

  @Test func infinityInAPayloadIsRefused() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    let store = try openInbox(path)
    let before = try dump(path)
    let error = expectRewindError(.invalidValue) { try store.send(.setScore(id: u(101), .infinity)) }
    #expect("\(error.map { "\($0)" } ?? "")".contains("InboxAction"))
    expectRewindError(.invalidValue) { try store.send(.setPriority(id: u(1), .nan)) }
    #expect(try dump(path) == before)
  }

  @Test func infinityInViewStateIsRefused() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    let store = try openInbox(path)
    let before = try dump(path)
    // The payload holds it too, so it is refused either way.
    expectRewindError(.invalidValue) { try store.send(.navigate(.conversation(u(1), scroll: .infinity))) }
    #expect(store.state.view.route == .list)
    #expect(try dump(path) == before)
  }

  @Test func extremeValuesRoundTrip() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    let store = try openInbox(path)
    let values: [Double] = [
      .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, -0.0, 0.1 + 0.2, 0x1p-1030,
      123456789.123456789,
      Double(Int64.max), .leastNonzeroMagnitude,
    ]
    for value in values {
      try store.send(.setScore(id: u(101), value))
      #expect(store.state.messages[u(101)]?.score == value)
      try expectInboxReopenMatches(store, path, "score \(value)")
    }
    let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    try store.send(.setAttachment(id: u(101), big))
    let long = String(repeating: "é🙂\u{0301}\u{200D}", count: 50_000)
    try store.send(.type(id: u(101), text: long))
    try store.send(.compose("\u{FEFF}\u{10FFFF}\r\n\t\\\"/"))
    try store.send(.setFilter(.search(String(repeating: "\u{1}", count: 3), caseSensitive: false)))
    try expectInboxReopenMatches(store, path)
    try expectHealthy(path)
    // Exports import back to the same state.
    let db = try RewindDatabase(path: path)
    let exported = try db.export()
    try store.send(.deleteConversation(id: u(1)))
    try db.importState(exported)
    try store.reload()
    #expect(store.state.messages[u(101)]?.attachment == big)
    #expect(store.state.messages[u(101)]?.score == .leastNonzeroMagnitude)
    try expectHealthy(path)
    try expectInboxReopenMatches(store, path)
  }

  @Test func nulInStringsIsRefusedInColumnsOnly() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    let store = try openInbox(path)
    let before = try dump(path)
    expectRewindError(.invalidValue) { try store.send(.type(id: u(101), text: "a\u{0}b")) }
    #expect(try dump(path) == before)
    try store.send(.compose("a\u{0}b"))  // JSON holds it
    try expectInboxReopenMatches(store, path)
  }

  @Test func unknownIdsAndSeqs() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    let store = try openInbox(path)
    let before = try dump(path)
    #expect(try store.send(.deleteMessage(id: u(999))) == nil)
    #expect(try store.send(.renameConversation(id: u(999), title: "x")) == nil)
    expectRewindError(.unknownSeq) { try store.jump(to: 10_000) }
    expectRewindError(.unknownSeq) { try store.jump(to: -1) }
    let db = try RewindDatabase(path: path)
    expectRewindError(.unknownSeq) { try db.restore(to: 10_000) }
    expectRewindError(.snapshotLabel) { try db.restore(snapshot: "nope") }
    #expect(try dump(path) == before)
  }

  @Test func tamperedFiles() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    // Edited list entry names a missing message.
    let copy = dir.path("edited.sqlite")
    try FileManager.default.copyItem(atPath: path, toPath: copy)
    let q = try DatabaseQueue(path: copy)
    try q.write { db in
      try db.execute(sql: "PRAGMA foreign_keys = OFF")
      try db.execute(sql: "DELETE FROM messages WHERE id = ?", arguments: [u(102).uuidString])
    }
    try q.close()
    let before = try dump(copy)
    let error = expectRewindError(.corruptData) { try openInbox(copy) }
    #expect("\(error.map { "\($0)" } ?? "")".contains("conversationMessages"))
    #expect(try dump(copy) == before)

    // Truncated.
    let cut = dir.path("cut.sqlite")
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
    let cutBytes = contents(of: cut)
    expectRewindError(.corruptData) { try openInbox(cut) }
    #expect(contents(of: cut) == cutBytes)

    // Another app's file.
    let planner = dir.path("planner.sqlite")
    do {
      let p = try openPlanner(planner)
      try p.send(.addCalendar(id: "c", name: "C"))
      p.waitForSnapshots()
    }
    let plannerBytes = contents(of: planner)
    expectRewindError(.schemaMismatch) { try openInbox(planner) }
    #expect(contents(of: planner) == plannerBytes)
  }

  @Test func wrongTypeInABlobColumnIsFoundByVerify() throws {
    let dir = try TemporaryDirectory()
    let path = try seeded(dir)
    let q = try DatabaseQueue(path: path)
    try q.write { db in
      try db.execute(sql: "UPDATE messages SET attachment = 'text' WHERE id = ?", arguments: [u(102).uuidString])
    }
    try q.close()
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(!report.isHealthy)
    #expect(report.problems.joined().contains("messages"))
  }
}
