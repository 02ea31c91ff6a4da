import Foundation
import GRDB
import Testing

@testable import Rewind

@Suite("InboxConcurrentTool")
@MainActor
struct InboxConcurrentToolTests {
  @Test func storeSendsWhileToolProcessesWrite() async throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    let store = try openInbox(path)
    try seedInbox(store)
    let stop = ManagedAtomicFlag()
    let toolErrors = LockedList()
    let toolRuns = LockedList()
    let thread = Thread {
      var i = 0
      while !stop.isSet {
        i += 1
        let args: [String]
        switch i % 5 {
        case 0: args = ["undo", path]
        case 1: args = ["redo", path]
        case 2: args = ["snapshot", path, "--label", "s\(i)"]
        case 3: args = ["restore", path, "--to", "\(max(2, i))", "--timeline", "document"]
        default: args = ["export", path]
        }
        toolRuns.append("x")
        if let r = try? runRewindTool(args), r.status != 0,
          !r.err.lowercased().contains("nothing to") && !r.err.contains("conflict") && !r.err.contains("would")
            && !r.err.contains("no seq")
        {
          toolErrors.append("\(args): \(r.err)")
        }
      }
    }
    thread.start()
    var acknowledged: [(seq: Int64, id: UUID)] = []
    var refusals = 0
    for i in 0..<400 {
      let id = u(20_000 + i)
      do {
        if let seq = try store.send(
          .syncReceive(id: id, conversation: u(i % 2 + 1), body: "s\(i)", at: at(Int64(i)), serverID: Int64(i)))
        {
          acknowledged.append((seq, id))
        }
        if i % 7 == 0 { try store.undo() }
        if i % 11 == 0 { try store.redo() }
        if i % 13 == 0 { try store.send(.type(id: u(101), text: "x")) }
      } catch let error as RewindError where error.code == .conflict {
        refusals += 1
      }
      try await Task.sleep(nanoseconds: 5_000_000)
    }
    stop.set()
    while !thread.isFinished { try await Task.sleep(nanoseconds: 10_000_000) }
    #expect(toolErrors.items.isEmpty, "\(toolErrors.items)")
    print("acknowledged syncs:", acknowledged.count, "conflicts:", refusals, "tool runs:", toolRuns.items.count)
    let db = try RewindDatabase(path: path, readOnly: true)
    for (seq, id) in acknowledged {
      let entry = try db.entry(seq)
      #expect(entry.action == "syncReceive" && entry.payload.contains(id.uuidString), "seq \(seq): \(entry.action)")
    }
    try store.reload()  // the tool may have written after the store's last write
    try expectInboxReopenMatches(store, path)
    try expectHealthy(path)
  }
}

final class ManagedAtomicFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false
  var isSet: Bool { lock.withLock { value } }
  func set() { lock.withLock { value = true } }
}

final class LockedList: @unchecked Sendable {
  private let lock = NSLock()
  private var list: [String] = []
  var items: [String] { lock.withLock { list } }
  func append(_ s: String) { lock.withLock { list.append(s) } }
}
