import Foundation
import GRDB
import Testing

@testable import Rewind

/// Compaction reads the base's rows and stores them in parts before it takes the write lock,
/// so an app writing to the file meanwhile waits only for the removal of the old entries. What
/// happens between the read and the write must leave the same history as a compaction that
/// held the lock throughout.
@MainActor
@Suite struct CompactionWhileWritingTests {
  let directory: TemporaryDirectory
  let path: String
  let store: JournalStore

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("journal.sqlite")
    store = try JournalStore.journal(path: path)
    for index in 0..<60 { try store.send(.add(title: "Entry \(index) with a title long enough to fill parts")) }
  }

  /// The integer `sql` gives on a connection of its own, 0 for none.
  func integer(_ sql: String) throws -> Int {
    try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
  }

  /// Parts no snapshot names.
  func orphanParts() throws -> Int {
    try integer(
      """
      SELECT count(*) FROM snapshot_parts \
      WHERE part_set NOT IN (SELECT part_set FROM snapshots WHERE part_set IS NOT NULL)
      """)
  }

  func baseSnapshot(_ database: RewindDatabase) throws -> (seq: Int64, text: String, inParts: Bool) {
    try database.read { db, _ in
      let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM snapshots WHERE kind = 'base'"))
      return (row["seq"], try HistoryLog.snapshotText(row, db), row["part_set"] != nil)
    }
  }

  /// The page counts of the file: all, free, and its auto-vacuum mode (2: incremental).
  func pages() throws -> (all: Int, free: Int, autoVacuum: Int) {
    try DatabaseQueue(path: path).read { db in
      (
        try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0, try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0,
        try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") ?? 0
      )
    }
  }

  /// The file gives the removed entries' pages back in steps, each a write transaction of its
  /// own (a `VACUUM` held the write lock, and an app's every send, while it rewrote the whole
  /// file: 0.5 s at 100,000 tasks, 3.4 s at a million): another connection sees the free pages
  /// go down step by step, and a store's send between two steps is kept.
  @Test func theFileShrinksInStepsThatLetWritersIn() throws {
    #expect(try pages().autoVacuum == 2, "a new file is in incremental auto-vacuum mode")
    let long = String(repeating: "Renamed, at length. ", count: 3_000)
    for index in 0..<120 { try store.send(.rename(id: Int64(index % 3 + 1), title: "\(index) \(long)")) }
    let before = try pages().all
    var freeAfterEachStep: [Int] = []
    let database = try RewindDatabase(path: path)
    _ = try database.compact(
      keep: 5, partBytes: SnapshotWorker.defaultPartBytes, afterReading: {},
      betweenFreeingSteps: {
        freeAfterEachStep.append(try pages().free)
        if freeAfterEachStep.count == 1 { try store.send(.add(title: "Written while the file shrank")) }
      })
    #expect(freeAfterEachStep.count >= 2, "\(freeAfterEachStep)")
    #expect(zip(freeAfterEachStep, freeAfterEachStep.dropFirst()).allSatisfy { $0 > $1 }, "\(freeAfterEachStep)")
    let after = try pages()
    #expect(after.free == 0)
    #expect(after.all < before / 2, "\(before) pages before, \(after.all) after")
    #expect(try database.verify().problems == [])
    let reopened = try JournalStore.journal(path: path)
    #expect(reopened.state.entries.values.contains { $0.title == "Written while the file shrank" })
    #expect(reopened.state == store.state)
  }

  /// Nothing of the entries folded into the base stays in the file: compaction removes them
  /// without overwriting their pages (`secure_delete = FAST`, see
  /// `RewindDatabase.removeFoldedEntries`), then gives every free page back, which moves other
  /// pages over them or cuts them off. A title that only those entries held is not in the file
  /// after, and the compaction's connection has its own setting back.
  @Test func noTextOfTheFoldedEntriesIsLeftInTheFile() throws {
    let secret = "Folded-\(UUID().uuidString)"
    try store.send(.rename(id: 1, title: String(repeating: "\(secret) ", count: 2_000)))
    try store.send(.rename(id: 1, title: "Plain"))
    for index in 0..<10 { try store.send(.add(title: "After \(index)")) }
    let bytes = Data(secret.utf8)
    func fileHoldsTheSecret() throws -> Bool {
      try DatabaseQueue(path: path).writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
      }
      return try Data(contentsOf: URL(fileURLWithPath: path)).range(of: bytes) != nil
    }
    #expect(try fileHoldsTheSecret(), "the log holds the long title before compaction")
    let database = try RewindDatabase(path: path)
    let setting = { try database.read { db, _ in try Int.fetchOne(db, sql: "PRAGMA secure_delete") } }
    let before = try setting()
    _ = try database.compact(keep: 5)
    #expect(try fileHoldsTheSecret() == false)
    #expect(try setting() == before)
    #expect(try database.verify().problems == [])
  }

  /// The base's rows come from verify's replay, which reaches them in its one read (see
  /// `RewindDatabase.compact`): they are the state the log gives at the base, as an export of
  /// that seq read it before, with entries undone, deleted, renamed and a step kept for redo.
  @Test func theBaseIsTheStateTheLogGivesAtItsSeq() throws {
    for index in 0..<20 { try store.send(.rename(id: Int64(index % 7 + 1), title: "Renamed \(index)")) }
    for id in [3, 9, 12] { try store.send(.delete(id: Int64(id))) }
    try store.undo()
    let base = store.lastSeq - 10
    let before = try RewindDatabase(path: path).export(at: base)
    let report = try RewindDatabase(path: path).compact(keep: 10)
    #expect(report.baseSeq == base)
    let database = try RewindDatabase(path: path)
    #expect(try baseSnapshot(database).seq == base)
    #expect(try database.export(at: base) == before)
    #expect(try database.verify().problems == [])
  }

  /// Free pages a shrinking left (stopped partway: its tool killed, say) go back at the next
  /// compaction, even one with nothing to fold.
  @Test func freePagesLeftBehindGoBackWithNothingToCompact() throws {
    for index in 0..<40 { try store.send(.rename(id: 1, title: String(repeating: "\(index) ", count: 5_000))) }
    _ = try RewindDatabase(path: path).compact(keep: 0)
    // Pages freed since (snapshot parts dropped, rows deleted) stand for what a stopped one left.
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "CREATE TABLE app_scratch (text TEXT)")
      try db.execute(sql: "INSERT INTO app_scratch VALUES (?)", arguments: [String(repeating: "x", count: 400_000)])
      try db.execute(sql: "DROP TABLE app_scratch")
    }
    #expect(try pages().free > 0)
    let report = try RewindDatabase(path: path).compact(keep: 1_000)
    #expect(report.entriesRemoved == 0)
    #expect(try pages().free == 0)
  }

  /// The entries at or before the file's base, which no reader sees once the base moved.
  func foldedEntries() throws -> Int {
    try integer(
      """
      SELECT count(*) FROM action_log \
      WHERE seq <= (SELECT CAST(value AS INTEGER) FROM rewind_meta WHERE key = 'base_seq')
      """)
  }

  /// Checks the history every reader sees starts after the base, whatever folded entries are
  /// still in the table: the tool's log and entries, `verify`, and a store opening it.
  func expectHistoryStartsAfterTheBase(sourceLocation: SourceLocation = #_sourceLocation) throws {
    let tool = try RewindDatabase(path: path)
    let base = try tool.read { _, history in history.baseSeq }
    #expect(try tool.log().allSatisfy { $0.seq > base }, sourceLocation: sourceLocation)
    #expect(try tool.log().first?.seq == base + 1, sourceLocation: sourceLocation)
    let error = #expect(throws: RewindError.self, sourceLocation: sourceLocation) { _ = try tool.entry(base) }
    #expect(error?.message.contains("compacted away") == true, sourceLocation: sourceLocation)
    #expect(try tool.verify().problems == [], sourceLocation: sourceLocation)
    #expect(try JournalStore.journal(path: path).state == store.state, sourceLocation: sourceLocation)
  }

  /// The entries folded into the base are removed after the base has moved, in short batches
  /// (under compaction's own lock they held every send 1.8 s at a million tasks): between two,
  /// a store's send goes in and is kept, and every reader's history starts after the base.
  @Test func foldedEntriesAreRemovedInBatchesThatLetWritersIn() throws {
    let long = String(repeating: "Renamed, at length. ", count: 2_000)
    for index in 0..<200 { try store.send(.rename(id: Int64(index % 3 + 1), title: "\(index) \(long)")) }
    var batches = 0
    _ = try RewindDatabase(path: path).compact(
      keep: 5, partBytes: SnapshotWorker.defaultPartBytes, afterReading: {},
      betweenRemovals: {
        batches += 1
        guard batches == 1 else { return }
        #expect(try foldedEntries() > 0)
        try expectHistoryStartsAfterTheBase()
        try store.send(.add(title: "Written while folded entries were removed"))
      })
    #expect(batches >= 2)
    #expect(try foldedEntries() == 0)
    try expectHistoryStartsAfterTheBase()
    #expect(store.state.entries.values.contains { $0.title == "Written while folded entries were removed" })
  }

  /// The first batch is the oldest entry alone: the oldest are often the file's creation,
  /// megabytes each, and a batch of them held a sending app for up to 760 ms. Later batches
  /// grow while they are fast.
  @Test func theFirstBatchOfFoldedEntriesIsOneEntry() throws {
    for index in 0..<40 { try store.send(.rename(id: Int64(index % 3 + 1), title: "\(index)")) }
    let oldest = {
      try DatabaseQueue(path: path).read { db in try Int64.fetchOne(db, sql: "SELECT min(seq) FROM action_log") }
    }
    let first = try #require(try oldest())
    var removedByBatch: [Int64] = []
    var last = first
    _ = try RewindDatabase(path: path).compact(
      keep: 5, partBytes: SnapshotWorker.defaultPartBytes, afterReading: {},
      betweenRemovals: {
        let next = try oldest() ?? last
        removedByBatch.append(next - last)
        last = next
      })
    #expect(removedByBatch.first == 1, "\(removedByBatch)")
    // How later batches grow depends on how fast each was, which a busy machine decides (a
    // full run failed so): the rule is tested apart, in the next test.
    try expectHistoryStartsAfterTheBase()
  }

  @Test func batchesOfFoldedEntriesDoubleAfterAFastOneAndHalveAfterASlowOne() {
    #expect(RewindDatabase.nextBatch(after: 1, took: .milliseconds(1)) == 2)
    #expect(RewindDatabase.nextBatch(after: 8, took: .milliseconds(1)) == 16)
    #expect(RewindDatabase.nextBatch(after: 8, took: .milliseconds(10)) == 8)
    #expect(RewindDatabase.nextBatch(after: 8, took: .milliseconds(40)) == 4)
    #expect(RewindDatabase.nextBatch(after: 1, took: .milliseconds(40)) == 1)
  }

  /// A compaction stopped while it removed the folded entries (its tool killed) leaves a log
  /// every reader takes as compacted; the next compaction removes the rest, even with nothing
  /// to fold itself.
  @Test func foldedEntriesAStoppedCompactionLeftAreNoHistoryAndGoNextTime() throws {
    let long = String(repeating: "Renamed, at length. ", count: 2_000)
    for index in 0..<200 { try store.send(.rename(id: Int64(index % 3 + 1), title: "\(index) \(long)")) }
    #expect(throws: CancellationError.self) {
      try RewindDatabase(path: path).compact(
        keep: 5, partBytes: SnapshotWorker.defaultPartBytes, afterReading: {},
        betweenRemovals: { throw CancellationError() })
    }
    #expect(try foldedEntries() > 0)
    try expectHistoryStartsAfterTheBase()
    try store.undo()
    try expectHistoryStartsAfterTheBase()
    let report = try RewindDatabase(path: path).compact(keep: 1_000)
    #expect(report.entriesRemoved == 0)
    #expect(try foldedEntries() == 0)
    try expectHistoryStartsAfterTheBase()
  }

  /// A file made without incremental auto-vacuum (release 0.6's, here) is switched to it by
  /// its first compaction, with its whole history.
  @Test func aFileOfAnEarlierReleaseIsSwitchedToIncrementalShrinking() throws {
    let (folder, old) = try ReleaseFixture(name: "release-0.6").copy()
    _ = folder
    let mode = { try DatabaseQueue(path: old).read { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") } }
    #expect(try mode() == 0)
    let database = try RewindDatabase(path: old)
    let exported = try database.export()
    _ = try database.compact(keep: 2)
    #expect(try mode() == 2)
    #expect(try database.export() == exported)
    #expect(try database.verify().problems == [])
  }

  @Test func entriesAppendedMeanwhileAreKeptAndTheBaseReadIsStored() throws {
    let database = try RewindDatabase(path: path)
    let base = store.lastSeq - 5
    let image = try database.read { db, history in try history.rows(at: base, db).json() }
    let report = try database.compact(keep: 5, partBytes: 300) {
      for index in 0..<15 { try store.send(.type(id: Int64(index % 4 + 1), text: "x")) }
    }
    #expect(report.baseSeq == base)
    // It says why it kept 20 entries where 5 were asked for (not redo: nothing was undone).
    #expect(report.entriesKept == 20)
    #expect(report.moreKept == .writtenWhileCompacting(15))
    let stored = try baseSnapshot(database)
    #expect(stored.seq == base)
    #expect(stored.inParts)
    #expect(stored.text == image)
    #expect(try database.verify().problems == [])
    #expect(try orphanParts() == 0)
    // The store follows the compaction at its next write, and its history still undoes.
    try store.send(.add(title: "After"))
    for _ in 0..<10 { #expect(try store.undo() != nil) }
    #expect(try fileState(path) == store.state)
  }

  @Test func undoesMeanwhileKeepWhatTheirRedoNeeds() throws {
    let database = try RewindDatabase(path: path)
    let last = store.lastSeq
    let report = try database.compact(keep: 5, partBytes: 300) {
      for _ in 0..<20 { _ = try store.undo() }
    }
    // Redo reverts the undo entries and names the steps from their own entries: the base
    // read (last - 5) would fold those of the 20 steps undone meanwhile, so it moves to before
    // the first of them, read again under the lock.
    #expect(report.baseSeq == last - 20)
    #expect(report.moreKept == .redo(fromSeq: last - 19))
    #expect(try database.verify().problems == [])
    #expect(try orphanParts() == 0)
    for _ in 0..<20 {
      let seq = try #require(try store.redo())
      #expect(try store.step(movedBy: seq)?.actions == ["add"])
    }
    #expect(store.state.entries.count == 60)
    #expect(try fileState(path) == store.state)
  }

  @Test func partsRemovedMeanwhileAreReadAgainUnderTheLock() throws {
    let database = try RewindDatabase(path: path)
    let base = store.lastSeq - 5
    let image = try database.read { db, history in try history.rows(at: base, db).json() }
    let report = try database.compact(keep: 5, partBytes: 300) {
      try DatabaseQueue(path: path).write { db in try db.execute(sql: "DELETE FROM snapshot_parts WHERE part = 1") }
    }
    #expect(report.baseSeq == base)
    let stored = try baseSnapshot(database)
    #expect(!stored.inParts)
    #expect(stored.text == image)
    #expect(try database.verify().problems == [])
    #expect(try orphanParts() == 0)
  }

  @Test func anotherCompactionMeanwhileLeavesNothingToDo() throws {
    let database = try RewindDatabase(path: path)
    let report = try database.compact(keep: 5, partBytes: 300) {
      _ = try RewindDatabase(path: path).compact(keep: 0)
    }
    #expect(report.entriesRemoved == 0)
    #expect(try database.verify().problems == [])
    #expect(try orphanParts() == 0)
    #expect(try fileState(path) == store.state)
  }
}
