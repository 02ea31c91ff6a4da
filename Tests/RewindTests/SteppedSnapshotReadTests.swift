import Foundation
import GRDB
import Testing

@_spi(Benchmarks) @testable import Rewind
@testable import TasksExample

/// A background snapshot is read in steps of short read transactions, joined into one state
/// with the entries committed between them, so that its read never keeps the WAL from
/// starting over: whatever the store writes between steps, the snapshot is the state of its seq.
@MainActor
struct SteppedSnapshotReadTests {
  /// A store on a new file, with `tasks` tasks in two projects; it takes no snapshot itself.
  func store(_ path: String, tasks: Int) throws -> TasksStore {
    let store = try TasksStore.tasks(path: path)
    store.automaticSnapshotSpacing = 1_000_000
    try store.send(.addProject(name: "Home"))
    try store.send(.addProject(name: "Work"))
    for index in 0..<tasks { try store.send(.add(title: "Task \(index) — ✓", project: Int64(index % 2 + 1))) }
    return store
  }

  /// The snapshot text one read transaction gives of the file's state now, and its seq.
  func oneRead(_ path: String) throws -> HistoryLog.EncodedSnapshot {
    try DatabaseQueue(path: path).read { db in
      let history = try HistoryLog(db)
      return try HistoryLog.EncodedSnapshot(db, catalog: history.tables, seq: try history.fileLastSeq(db))
    }
  }

  func steppedRead(
    _ path: String, rowsPerStep: Int, between: () throws -> Void = {}
  ) throws -> SteppedSnapshotRead.Outcome {
    try SteppedSnapshotRead.read(from: try DatabaseQueue(path: path), rowsPerStep: rowsPerStep, beforeStep: between)
  }

  @Test func withNoWriterTheStepsGiveTheTextOfOneRead() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    _ = try store(path, tasks: 23)
    let expected = try oneRead(path)
    for rowsPerStep in [0, 1, 2, 5, 23, 24, 4_096] {
      guard case .snapshot(let snapshot) = try steppedRead(path, rowsPerStep: rowsPerStep) else {
        Issue.record("no snapshot in steps of \(rowsPerStep)")
        continue
      }
      #expect(snapshot.json == expected.json, "steps of \(rowsPerStep)")
      #expect(snapshot.seq == expected.seq && snapshot.rowCount == expected.rowCount)
      #expect(snapshot.checksum == expected.checksum)
    }
  }

  /// Model-based: random sends of every kind, and the tool's undo and redo on a connection of
  /// their own, between random steps. The reference is the state one read transaction sees
  /// after them, and the log's replay to the snapshot's seq.
  @Test(arguments: 0..<12) func writesBetweenStepsAreJoinedIntoTheStateOfTheLastSeq(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try store(path, tasks: 20)
    var sends = 0
    let outcome = try steppedRead(path, rowsPerStep: Int.random(in: 1...6, using: &random)) {
      for _ in 0..<Int.random(in: 0...3, using: &random) {
        let ids = store.state.allTasks.ids
        let id = ids.randomElement(using: &random) ?? 1
        switch Int.random(in: 0..<9, using: &random) {
        case 0: try store.send(.add(title: "New \(sends)", project: Int64.random(in: 1...2, using: &random)))
        case 1 where ids.count > 2: try store.send(.delete(id: id))
        case 2: try store.send(.row(id: id, action: .rename("Renamed \(sends) \"q\"")))
        case 3: try store.send(.move(id: id, to: Int.random(in: 0..<max(ids.count, 1), using: &random)))
        case 4: try store.send(.row(id: id, action: .toggle))
        case 5 where store.canUndo: try store.undo()
        case 7: _ = try RewindDatabase(path: path).undo()
        case 8: _ = try RewindDatabase(path: path).redo()
        default: try store.send(.select(id: id))
        }
        sends += 1
      }
    }
    guard case .snapshot(let snapshot) = outcome else {
      Issue.record("seed \(seed): no snapshot")
      return
    }
    let expected = try oneRead(path)
    #expect(snapshot.seq == expected.seq, "seed \(seed)")
    #expect(snapshot.json == expected.json, "seed \(seed), \(sends) sends between steps")
    #expect(snapshot.rowCount == expected.rowCount)
    let replayed = try RewindDatabase(path: path).read { db, history in try history.rows(at: snapshot.seq, db).json() }
    #expect(snapshot.json == replayed)
  }

  /// Expects a stepped read of a 10-task store's file, in steps of `rowsPerStep` rows, to ask
  /// for one read when `edit` runs (with the store and the file's path) before step `step`.
  func expectOneRead(
    _ what: String, rowsPerStep: Int, beforeStep step: Int, _ edit: (TasksStore, String) throws -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try store(path, tasks: 10)
    var steps = 0
    let outcome = try steppedRead(path, rowsPerStep: rowsPerStep) {
      steps += 1
      if steps == step { try edit(store, path) }
    }
    guard case .needsOneRead = outcome else {
      Issue.record("a stepped snapshot \(what): \(outcome)", sourceLocation: sourceLocation)
      return
    }
  }

  @Test func aSchemaChangeBetweenStepsAsksForOneRead() throws {
    try expectOneRead("across a schema change", rowsPerStep: 3, beforeStep: 1) { _, path in
      try DatabaseQueue(path: path).write { try $0.execute(sql: "CREATE TABLE app_notes (note TEXT)") }
    }
  }

  @Test func aRowWrittenPastTheLogBetweenStepsAsksForOneRead() throws {
    // Behind the read (`list_entries` is read first, and three steps read its first six rows):
    // only the count can tell.
    try expectOneRead("missed an unlogged delete", rowsPerStep: 2, beforeStep: 4) { store, path in
      try DatabaseQueue(path: path).write {
        try $0.execute(sql: "DELETE FROM list_entries WHERE id = 1 AND list = 'allTasks'")
      }
      try store.send(.row(id: 2, action: .toggle))
    }
  }

  /// Compaction between steps, with or without entries after its base, falls back to one
  /// read: the entries the read follows may be gone.
  @Test(arguments: [false, true]) func aCompactionBetweenStepsAsksForOneRead(withLaterEntries: Bool) throws {
    try expectOneRead("across a compaction", rowsPerStep: 2, beforeStep: 3) { store, path in
      for index in 0..<5 { try store.send(.row(id: Int64(index + 1), action: .toggle)) }
      _ = try RewindDatabase(path: path).compact(keep: 0)
      if withLaterEntries { try store.send(.row(id: 1, action: .toggle)) }
    }
  }

  /// After the last step the rows are sorted and written, about a second at a million rows:
  /// a store released meanwhile must not wait for all of it, so `stopping` is checked there too.
  @Test func aStopAfterTheLastStepStopsTheSortAndTheWrite() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    _ = try store(path, tasks: 5_000)
    let queue = try DatabaseQueue(path: path)
    var transactionsEnded = 0
    func reading(_ begins: Bool) { if !begins { transactionsEnded += 1 } }
    // How many transactions had ended at each check.
    var checks: [Int] = []
    guard
      case .snapshot = try SteppedSnapshotRead.read(
        from: queue,
        stopping: {
          checks.append(transactionsEnded)
          return false
        }, reading: reading)
    else {
      Issue.record("no snapshot")
      return
    }
    let transactions = transactionsEnded
    #expect(
      checks.filter { $0 == transactions }.count >= 2,
      "checks after the last of \(transactions) transactions: \(checks)")
    transactionsEnded = 0
    #expect(throws: CancellationError.self) {
      // Not returned: a snapshot's text would fill the failure message.
      _ = try SteppedSnapshotRead.read(from: queue, stopping: { transactionsEnded == transactions }, reading: reading)
    }
  }

  @Test func nothingLoggedSinceTheLastSnapshotIsUpToDate() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    _ = try store(path, tasks: 3)
    try RewindDatabase(path: path).snapshot(label: "now")
    guard case .upToDate = try steppedRead(path, rowsPerStep: 2) else {
      Issue.record("a snapshot taken with none due")
      return
    }
  }

  /// The store's own snapshots are taken this way while it writes (none falls back to one
  /// read): each is the state of its seq as the log's replay gives it, to the byte, and
  /// `verify` agrees.
  @Test func theStoresBackgroundSnapshotsMatchTheLog() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try store(path, tasks: 5_000)
    store.automaticSnapshotSpacing = 500
    store.repository.worker?.rowsPerStep = 700
    for index in 0..<3_000 {
      try store.send(.row(id: Int64(index % 5_000 + 1), action: index % 2 == 0 ? .toggle : .rename("R \(index)")))
      if index % 7 == 0 { try store.send(.move(id: Int64(index % 5_000 + 1), to: index % 50)) }
    }
    store.waitForSnapshots()
    let reads = try #require(store.repository.worker?.reads)
    #expect(reads.stepped >= 1 && reads.inOneRead == 0, "\(reads)")
    let database = try RewindDatabase(path: path)
    let automatic = try database.snapshots().filter { $0.kind == "automatic" }
    #expect(automatic.count == reads.stepped)
    for snapshot in automatic {
      let (text, replayed) = try database.read { db, history in
        let row = try #require(
          try Row.fetchOne(db, sql: "SELECT * FROM snapshots WHERE seq = ?", arguments: [snapshot.seq]))
        return (try HistoryLog.snapshotText(row, db), try history.rows(at: snapshot.seq, from: (.origin, 0), db).json())
      }
      #expect(text == replayed, "snapshot at \(snapshot.seq)")
    }
    #expect(try database.verify().problems == [])
  }
}
