import Foundation
import GRDB
import Testing

@_spi(Benchmarks) @testable import Rewind
@testable import TasksExample

/// Large automatic snapshots are stored in parts, each written in a transaction of its own, so
/// that a store's sends never wait behind one insert of the whole state (engine schema 8).
@MainActor
struct SnapshotPartsTests {
  /// A store whose next automatic snapshot is stored in parts of `partBytes`, with its tasks.
  func storeInParts(_ path: String, partBytes: Int = 200, tasks: Int = 30) throws -> TasksStore {
    let store = try TasksStore.tasks(path: path)
    store.automaticSnapshotSpacing = Int64(tasks)
    store.automaticSnapshotPartBytes = partBytes
    for index in 0..<tasks { try store.send(.add(title: "Tâche \(index) — ✓")) }
    store.waitForSnapshots()
    return store
  }

  func count(_ sql: String, _ path: String) throws -> Int {
    try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: sql) ?? 0 }
  }

  @Test func partsJoinedAreTheTextAndEachFitsItsSizeWithNoCharacterCut() {
    let json = #"{"tasks":[{"title":"é✓𝄞 mixed"}],"x":"\#(String(repeating: "𝄞a", count: 40))"}"#
    let snapshot = HistoryLog.EncodedSnapshot(json: json, rowCount: 1, seq: 1)
    for size in [4, 5, 7, 16, 100, 10_000] {
      let parts = snapshot.partRanges(maximumBytes: size).map(snapshot.part)
      #expect(parts.joined() == json, "size \(size)")
      #expect(parts.allSatisfy { $0.utf8.count <= size && !$0.isEmpty }, "size \(size)")
      #expect(size >= json.utf8.count ? parts.count == 1 : parts.count > 1, "size \(size)")
    }
    #expect(snapshot.partRanges(maximumBytes: 10).count > 10)
    let empty = HistoryLog.EncodedSnapshot(json: "", rowCount: 0, seq: 1)
    #expect(empty.partRanges(maximumBytes: 10).map(empty.part) == [""])
  }

  /// The parts are written on the snapshot's own connection, whose commits the store's
  /// checkpointer sees as it sees the store's: they add to the WAL it keeps short (until this
  /// release it learned of them at the store's next commit, and SQLite's own checkpoint ran
  /// in a part's write, syncing the file on the snapshot's thread).
  @Test func theStoresCheckpointerSeesTheCommitsOfTheParts() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    let checkpointer = try #require(store.repository.checkpointer)
    // No checkpoint runs: the WAL holds every page committed since the first send.
    checkpointer.marks = .init(backgroundPages: 1_000_000, restartPages: 1_000_000, inlinePages: 1_000_000)
    store.automaticSnapshotSpacing = 30
    store.automaticSnapshotPartBytes = 200
    for index in 0..<30 { try store.send(.add(title: "Tâche \(index) — ✓")) }
    store.waitForSnapshots()
    #expect(try count("SELECT count(*) FROM snapshot_parts", path) > 5)
    let walSize = try #require(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)
    // The last commit was the snapshot's row: the checkpointer knows the WAL's length after it.
    #expect(Int(checkpointer.walPagesAfterLastCommit) == (walSize.intValue - 32) / (4_096 + 24))
  }

  @Test func aSnapshotInPartsReadsAsTheStateOfItsSeq() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    _ = try storeInParts(path)
    let database = try RewindDatabase(path: path)
    let snapshot = try #require(try database.snapshots().last { $0.kind == "automatic" })
    #expect(try count("SELECT count(*) FROM snapshot_parts", path) > 5)
    // Its text is the image of the state at its seq, and verify compares it with the replay.
    let (text, image) = try database.read { db, history in
      let row = try #require(
        try Row.fetchOne(db, sql: "SELECT * FROM snapshots WHERE seq = ?", arguments: [snapshot.seq]))
      return (try HistoryLog.snapshotText(row, db), try history.rows(at: snapshot.seq, db).json())
    }
    #expect(text == image)
    #expect(try database.verify().problems == [])
    let restored = try database.read { db, history in try history.snapshotRows(id: snapshotID(db), db) }
    #expect(restored.json() == image)
    // Compaction drops automatic snapshots older than its base: their parts go with them.
    _ = try database.compact(keep: 0)
    #expect(try count("SELECT count(*) FROM snapshot_parts", path) == 0)
    #expect(try database.verify().problems == [])
  }

  func snapshotID(_ db: Database) throws -> Int64 {
    try #require(try Int64.fetchOne(db, sql: "SELECT id FROM snapshots WHERE part_set IS NOT NULL"))
  }

  @Test func deletingASnapshotDeletesItsParts() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try storeInParts(path)
    #expect(try count("SELECT count(*) FROM snapshot_parts", path) > 0)
    try DatabaseQueue(path: path).write { try $0.execute(sql: "DELETE FROM snapshots") }
    #expect(try count("SELECT count(*) FROM snapshot_parts", path) == 0)
    // The store goes on, and its next snapshot is stored in parts again.
    for index in 0..<40 { try store.send(.add(title: "More \(index)")) }
    store.waitForSnapshots()
    #expect(try count("SELECT count(*) FROM snapshot_parts", path) > 0)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  @Test func aMissingPartIsRefusedByTheChecksumNotRestored() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    _ = try storeInParts(path)
    try DatabaseQueue(path: path).write {
      try $0.execute(sql: "DELETE FROM snapshot_parts WHERE part = 1")
    }
    let problems = try RewindDatabase(path: path).verify().problems
    #expect(problems.contains { $0.contains("was modified after it was taken") }, "\(problems)")
  }

  /// A part that is not text (a table rebuilt without its NOT NULL, then edited) is reported
  /// as damage by `verify`, naming the table, not thrown as a decoding error.
  @Test func aPartThatIsNotTextIsReportedNotThrown() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    _ = try storeInParts(path)
    try DatabaseQueue(path: path).write { db in
      try db.execute(
        sql: """
          ALTER TABLE snapshot_parts RENAME TO old_parts;
          CREATE TABLE snapshot_parts (part_set, part, rows);
          INSERT INTO snapshot_parts SELECT * FROM old_parts;
          UPDATE snapshot_parts SET rows = NULL WHERE part = 1
          """)
    }
    let problems = try RewindDatabase(path: path).verify().problems
    #expect(problems.contains { $0.contains("snapshot_parts") }, "\(problems)")
  }

  /// Read before another process migrated the app's schema, stored after: its rows have the
  /// old shape, so it is dropped rather than labelled with the new one. (Found in review: the
  /// file then failed `verify` and refused compaction.)
  @Test(arguments: [false, true])
  func aSnapshotReadBeforeAnAppMigrationIsNotStoredAfterIt(transform: Bool) throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    let v1 = try Store(path: path, initialState: ContactsV1(), reducer: ContactsReducer<ContactsV1>())
    for id in 1...5 { try v1.send(.add(id: Int64(id), name: "N\(id)", street: "\(id) Main St")) }
    let queue = try DatabaseQueue(path: path)
    let snapshot = try queue.read { db in
      let history = try HistoryLog(db)
      return try HistoryLog.EncodedSnapshot(db, catalog: history.tables, seq: history.fileLastSeq(db))
    }
    if transform {
      _ = try Store(path: path, initialState: ContactsV4(), reducer: ContactsReducer<ContactsV4>())
    } else {
      _ = try Store(path: path, initialState: ContactsV3(), reducer: ContactsReducer<ContactsV3>())
    }
    #expect(try SnapshotWorker.store(snapshot, in: queue, partBytes: 100) == nil)
    #expect(try count("SELECT count(*) FROM snapshots WHERE kind = 'automatic'", path) == 0)
    #expect(try count("SELECT count(*) FROM snapshot_parts", path) == 0)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  /// A labelled snapshot is stored in parts too, restores by its label, and is refused, with
  /// its parts removed, when another snapshot took its label while it was being written.
  @Test func aLabelledSnapshotInPartsRestoresAndALabelTakenMeanwhileIsRefused() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    for index in 0..<30 { try store.send(.add(title: "Tâche \(index) — ✓")) }
    let queue = try DatabaseQueue(path: path)
    func read() throws -> HistoryLog.EncodedSnapshot {
      try queue.read { db in
        let history = try HistoryLog(db)
        return try HistoryLog.EncodedSnapshot(db, catalog: history.tables, seq: history.fileLastSeq(db))
      }
    }
    let seq = try #require(try SnapshotWorker.store(try read(), label: "before", in: queue, partBytes: 150))
    #expect(try count("SELECT count(*) FROM snapshot_parts", path) > 5)
    let database = try RewindDatabase(path: path)
    #expect(try database.snapshots().map(\.label) == ["before"])
    let exported = try database.export(at: seq)
    try store.send(.delete(id: 1))
    try database.restore(snapshot: "before")
    #expect(try database.export() == exported)
    #expect(try database.verify().problems == [])

    let parts = try count("SELECT count(*) FROM snapshot_parts", path)
    #expect(throws: RewindError.self) {
      try SnapshotWorker.store(try read(), label: "before", in: queue, partBytes: 150)
    }
    #expect(try count("SELECT count(*) FROM snapshot_parts", path) == parts)
    #expect(throws: RewindError.self) { try database.snapshot(label: "before") }
    #expect(try database.snapshot(label: "after") == database.position().lastSeq)
  }

  /// A store released while its snapshot is being written stops it: nothing writes the file
  /// after the store is gone (its owner may copy it; the benchmark did, and got a torn copy).
  @Test func aReleasedStoreStopsItsSnapshotAndWritesNothingMore() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    do {
      let store = try TasksStore.tasks(path: path)
      store.automaticSnapshotSpacing = 200
      // Parts of 16 bytes: more than a thousand transactions, well under way when released.
      store.automaticSnapshotPartBytes = 16
      for index in 0..<200 { try store.send(.add(title: "Task \(index)")) }
    }
    func written() throws -> [Int] {
      try DatabaseQueue(path: path).read { db in
        [
          try Int.fetchOne(db, sql: "SELECT count(*) FROM snapshots") ?? 0,
          try Int.fetchOne(db, sql: "SELECT count(*) FROM snapshot_parts") ?? 0,
        ]
      }
    }
    let before = try written()
    Thread.sleep(forTimeInterval: 0.3)
    #expect(try written() == before)
    #expect(before[0] == 0, "the snapshot was stopped, not finished")
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  @Test func partsNoSnapshotNamesGoOnceAnHourOldAndYoungerOnesStay() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    // Left by workers that stopped between their transactions: two hours ago, and just now
    // (which may be another process's worker, still writing).
    let old = SnapshotWorker.partSet(writtenAt: Date(timeIntervalSinceNow: -7_200))
    let young = SnapshotWorker.partSet(writtenAt: Date())
    try DatabaseQueue(path: path).write { db in
      for set in [old, young] {
        try db.execute(sql: "INSERT INTO snapshot_parts (part_set, part, rows) VALUES (?, 0, '{')", arguments: [set])
      }
    }
    store.automaticSnapshotSpacing = 10
    store.automaticSnapshotPartBytes = 200
    for index in 0..<12 { try store.send(.add(title: "Task \(index)")) }
    store.waitForSnapshots()
    let sets = try DatabaseQueue(path: path).read { try Int64.fetchSet($0, sql: "SELECT part_set FROM snapshot_parts") }
    #expect(!sets.contains(old))
    #expect(sets.contains(young))
    #expect(try count("SELECT count(*) FROM snapshots WHERE kind = 'automatic' AND part_set IS NOT NULL", path) == 1)
    // `verify` says what the young set is, and counts it no problem.
    let report = try RewindDatabase(path: path).verify()
    #expect(report.problems == [])
    #expect(
      report.passed.contains(
        "snapshot_parts: 1 part of 1 unfinished snapshot (stopped midway, or being written now), removed by the next snapshot stored an hour or more after they were written"
      ), "\(report.passed)")
  }
}

/// The `rewind` tool's automatic snapshots are read in one transaction and stored as a store's
/// are, not in the write that made them due.
@MainActor
struct ToolAutomaticSnapshotTests {
  @Test func theToolsAutomaticSnapshotHoldsTheStateOfItsSeq() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    store.automaticSnapshotSpacing = .max  // the store leaves it to the tool
    // 1,000 entries, more than the state has rows: a snapshot is due at the next write.
    for index in 0..<1_000 {
      if index < 200 {
        try store.send(.add(title: "Task \(index)"))
      } else {
        try store.send(.rename(id: Int64(index % 200 + 1), title: "Renamed \(index)"))
      }
    }
    let database = try RewindDatabase(path: path)
    #expect(try database.snapshots().isEmpty)
    try database.undo()
    let automatic = try database.snapshots().filter { $0.kind == "automatic" }
    #expect(automatic.map(\.seq) == [try database.position().lastSeq])
    let report = try database.verify()
    #expect(report.problems == [])
    #expect(report.passed.contains { $0.contains("matches the log") })
  }
}
