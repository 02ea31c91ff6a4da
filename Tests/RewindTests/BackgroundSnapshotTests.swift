import Foundation
import GRDB
import Testing

@_spi(Benchmarks) @testable import Rewind
@testable import TasksExample

/// Automatic snapshots are taken off the store's thread, on their own connection, while the
/// store goes on writing: each must hold exactly the state of the seq it names.
@MainActor
struct BackgroundSnapshotTests {
  @Test func snapshotsTakenWhileTheStoreWritesHoldTheStateOfTheirSeq() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    store.automaticSnapshotSpacing = 40
    // Every snapshot is stored in parts of 300 bytes, each in its own transaction, between sends.
    store.automaticSnapshotPartBytes = 300
    var exports: [Int64: String] = [:]
    // Three rounds of 200 sends with no wait between them: each round starts at least one
    // snapshot (every 40 entries), taken while the sends go on; the wait ends the round.
    for round in 0..<3 {
      for step in 0..<200 {
        let index = round * 200 + step
        switch index % 4 {
        case 0: try store.send(.add(title: "Task \(index)"))
        case 1: try store.send(.rename(id: Int64(index / 4 + 1), title: "Renamed \(index)"))
        case 2: try store.send(.move(id: Int64(index / 4 + 1), to: 0))
        default: try store.send(.scroll(Double(index)))
        }
      }
      store.waitForSnapshots()
    }
    let database = try RewindDatabase(path: path)
    let automatic = try database.snapshots().filter { $0.kind == "automatic" }
    // Each taken at whatever seq the file had when it read.
    #expect(automatic.count >= 3)
    #expect(Set(automatic.map(\.seq)).count == automatic.count)
    let report = try database.verify()
    #expect(report.problems == [])
    // `verify` replays the log and compares every snapshot with the state at its seq.
    #expect(report.passed.filter { $0.contains("matches the log") }.count == automatic.count)
    let stored = try DatabaseQueue(path: path).read { db in
      (
        try Int.fetchOne(db, sql: "SELECT count(*) FROM snapshots WHERE part_set IS NOT NULL") ?? 0,
        try Int.fetchOne(db, sql: "SELECT count(DISTINCT part_set) FROM snapshot_parts") ?? 0
      )
    }
    #expect(stored.0 == automatic.count && stored.1 == automatic.count, "every snapshot in parts: \(stored)")
    // And a snapshot is what an export at its seq rebuilds from the log alone.
    for snapshot in automatic {
      exports[snapshot.seq] = try database.export(at: snapshot.seq)
    }
    try DatabaseQueue(path: path).write { try $0.execute(sql: "DELETE FROM snapshots") }
    let withoutSnapshots = try RewindDatabase(path: path)
    for (seq, export) in exports {
      #expect(try withoutSnapshots.export(at: seq) == export, "export at \(seq)")
    }
  }

  @Test func aSnapshotDueIsStoredOnceEvenWhenManySendsFindItDue() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    store.automaticSnapshotSpacing = 50
    for index in 0..<60 { try store.send(.add(title: "Task \(index)")) }
    store.waitForSnapshots()
    // Sends 50 to 60 each found a snapshot due while one was under way or just stored: one.
    let automatic = try RewindDatabase(path: path).snapshots().filter { $0.kind == "automatic" }
    #expect(automatic.count == 1)
    #expect(automatic.first.map { $0.seq >= 50 } == true)
  }

  @Test func anInMemoryStoreTakesItsSnapshotsInPlace() throws {
    let store = try TasksStore(inMemory: TasksState(), reducer: TasksReducer())
    store.automaticSnapshotSpacing = 10
    for index in 0..<10 { try store.send(.add(title: "Task \(index)")) }
    let count = try store.repository.database.read { db in
      try Int.fetchOne(db, sql: "SELECT count(*) FROM snapshots WHERE kind = 'automatic'")
    }
    #expect(count == 1)
  }
}
