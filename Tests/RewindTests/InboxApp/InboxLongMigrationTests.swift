import Foundation
import GRDB
import Testing

@testable import Rewind

@Suite("InboxLongMigration")
@MainActor
struct InboxLongMigrationTests {
  /// A v1 file past the automatic snapshot mark, with a labelled snapshot, a compaction,
  /// infinite and integral scores, and a filter set at a known seq.
  func longV1File(_ dir: TemporaryDirectory, compact: Bool) throws -> (path: String, filterSeq: Int64, labelSeq: Int64)
  {
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    try store.send(.computeScore(id: u(102), numerator: 1, denominator: 0))
    try store.send(.setScore(id: u(201), 3))
    let filterSeq = try #require(try store.send(.setFilter(.search("old", caseSensitive: true))))
    for i in 0..<1_100 {
      switch i % 5 {
      case 0: try store.send(.type(id: u(101), text: "."))
      case 1:
        try store.send(
          .syncReceive(id: u(10_000 + i), conversation: u(2), body: "s\(i)", at: at(Int64(i)), serverID: Int64(i)))
      case 2: try store.send(.setAttachment(id: u(10_000 + i - 1), i % 3 == 0 ? nil : Data([UInt8(i % 256), 0])))
      case 3: try store.send(.markRead(id: u(10_000 + i - 2), true))
      default: try store.send(.setScore(id: u(10_000 + i - 3), Double(i) / 4))
      }
      if i == 500 {
        store.waitForSnapshots()
        try tool(["snapshot", path, "--label", "mid"])
      }
    }
    store.waitForSnapshots()
    let labelSeq =
      try RewindDatabase(path: path, readOnly: true).inspect().snapshots.first { $0.label == "mid" }?.seq ?? -1
    try store.send(.setFilter(.unread))
    try store.send(
      .post(id: u(150), conversation: u(1), body: "v1 last", at: at(99_000), attachment: Data([5]), sender: nil))
    store.waitForSnapshots()
    if compact {
      try tool(["compact", path, "--keep", "300"])
    }
    return (path, filterSeq, labelSeq)
  }

  func run(compact: Bool) throws {
    let dir = try TemporaryDirectory()
    let (path, filterSeq, labelSeq) = try longV1File(dir, compact: compact)
    let v1Last = try openInbox(path).lastSeq
    let base = try RewindDatabase(path: path, readOnly: true).inspect().baseSeq
    // Exports of a few v1 seqs, in the v1 shape.
    do {
      let v2 = try InboxStore2(path: path, initialState: InboxStateV2(), reducer: InboxReducerV2())
      #expect(v2.state.messages[u(150)]?.preview == "v1 last")
      try v2.send(.type(id: u(150), text: "!"))
      try expectHealthy(path)
    }
    let v3 = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    try expectHealthy(path)
    let r = try tool(["verify", path])
    #expect(r.status == 0, "\(r.out)")
    #expect(v3.state.messages[u(102)]?.score == .infinity)
    #expect(v3.state.view.listFilter == .unread)

    // The view timeline across the view-property rename.
    if filterSeq > base {
      try v3.jump(to: filterSeq, timeline: .view)
      #expect(v3.state.view.listFilter == .search("old", caseSensitive: true))
      try v3.jump(to: v3.lastSeq - 1, timeline: .view)  // a view-only jump is no undo step
    } else {
      expectRewindError(.unknownSeq) { try v3.jump(to: filterSeq, timeline: .view) }
    }
    #expect(v3.state.view.listFilter == .unread)

    // The labelled snapshot, taken in v1's shape.
    if labelSeq > 0, labelSeq <= base {
      // A labelled snapshot compaction kept is still restored by its label.
      try tool(["restore", path, "--snapshot", "mid"])
      try tool(["verify", path])
      try v3.reload()
      try v3.undo()
    }
    if labelSeq > base {
      let out = dir.path("snap.json")
      try tool(["export", path, "--at", "\(labelSeq)", "-o", out])
      try tool(["restore", path, "--snapshot", "mid"])
      let now = dir.path("now.json")
      try tool(["export", path, "-o", now])
      let a = try String(contentsOfFile: out, encoding: .utf8)
      let b = try String(contentsOfFile: now, encoding: .utf8)
      #expect(
        a.replacingOccurrences(of: "\"appSchema\": 4", with: "")
          == b.replacingOccurrences(of: "\"appSchema\": 4", with: ""))
      try v3.reload()
      #expect(v3.state.attachments.values.allSatisfy { v3.state.messages[$0.messageID] != nil })
      let reopened = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
      #expect(reopened.state == v3.state)
      try v3.undo()  // the restore
    }
    // Jumps back into v1 history, then undo across the migrations.
    for seq in stride(from: v1Last, to: max(base, v1Last - 400), by: -97) {
      try v3.jump(to: seq)
      let reopened = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
      #expect(reopened.state == v3.state, "after jump to \(seq)")
      try v3.undo()
    }
    for _ in 0..<30 {
      do { if try v3.undo() == nil { break } } catch let e as RewindError where e.code == .conflict { break }
    }
    let reopened = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    #expect(reopened.state == v3.state)
    try expectHealthy(path)
    try tool(["compact", path, "--keep", "10"])
    try v3.reload()
    while try v3.redo() != nil {}
    let again = try InboxStore3(path: path, initialState: InboxStateV3(), reducer: InboxReducerV3())
    #expect(again.state == v3.state)
    try expectHealthy(path)
  }

  @Test func longHistory() throws { try run(compact: false) }
  @Test func longHistoryCompactedBeforeTheUpdate() throws { try run(compact: true) }
}
