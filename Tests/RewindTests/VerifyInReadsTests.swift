import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// `verify` replays the log in read transactions of a bounded number of entries (or bytes of
/// changes), so that an app writing meanwhile sees its WAL start over between them: the report
/// is the one a single read gives, entries written between the reads are checked too, and so
/// is a snapshot whose seq is still ahead of the replay, and a compaction between them starts
/// the check over.
@MainActor
struct VerifyInReadsTests {
  /// A file with entries of every kind the replay reads (adds, a toggle, a move, an undo and a
  /// redo, a view-only change) and manual snapshots among them; returns its path.
  private func file(in directory: TemporaryDirectory) throws -> String {
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    for title in ["One", "Two", "Three", "Four"] { try store.send(.add(title: title)) }
    _ = try RewindDatabase(path: path).snapshot(label: "four")
    try store.send(.toggle(id: 2))
    try store.send(.move(id: 4, to: 0))
    _ = try store.undo()
    _ = try store.redo()
    try store.send(.select(id: 3))
    _ = try RewindDatabase(path: path).snapshot(label: "selected")
    try store.send(.delete(id: 1))
    try store.send(.add(title: "Five"))
    return path
  }

  private func verify(
    _ path: String, entriesPerRead: Int, betweenReads: () throws -> Void = {}
  ) throws -> VerificationReport {
    try RewindDatabase(path: path, readOnly: true).verify(
      progress: { _, _ in }, keepingStateAt: { _, _ in nil }, entriesPerRead: entriesPerRead,
      betweenReads: betweenReads
    ).report
  }

  private func edit(_ path: String, _ sql: String) throws { try editByHand(path, sql) }

  @Test(arguments: [1, 2, 3, 5])
  func aReplayInManyReadsReportsWhatOneReadDoes(entriesPerRead: Int) throws {
    let directory = try TemporaryDirectory()
    let path = try file(in: directory)
    let whole = try verify(path, entriesPerRead: 1_000_000)
    #expect(whole.isHealthy, "\(whole.problems)")
    #expect(whole.passed.contains { $0.contains("snapshot \"four\"") && $0.hasSuffix("matches the log") })
    #expect(whole.passed.contains { $0.contains("snapshot \"selected\"") && $0.hasSuffix("matches the log") })
    let inReads = try verify(path, entriesPerRead: entriesPerRead)
    #expect(inReads.passed == whole.passed)
    #expect(inReads.problems == whole.problems)
    #expect(inReads.entriesReplayed == whole.entriesReplayed)
  }

  /// A read also ends once the changes it replayed reach `changeBytesPerRead` (a state's
  /// creation is a few entries of megabytes): one entry a read here, with the same report.
  @Test func aReadEndsAfterItsBytesOfChanges() throws {
    let directory = try TemporaryDirectory()
    let path = try file(in: directory)
    let whole = try verify(path, entriesPerRead: 1_000_000)
    var reads = 0
    let inReads = try RewindDatabase(path: path, readOnly: true).verify(
      progress: { _, _ in }, keepingStateAt: { _, _ in nil }, entriesPerRead: 1_000_000, changeBytesPerRead: 1,
      betweenReads: { reads += 1 }
    ).report
    #expect(inReads.passed == whole.passed)
    #expect(inReads.problems == whole.problems)
    // One read an entry, one that ends at each snapshot (its text parsed and compared after
    // it), then one a table, then the last.
    let (tables, snapshots) = try RewindDatabase(path: path, readOnly: true).read { db, history in
      (history.tables.tableNames.count, try Int.fetchOne(db, sql: "SELECT count(*) FROM snapshots") ?? 0)
    }
    #expect(snapshots == 2)
    #expect(reads == whole.entriesReplayed + snapshots + tables + 1, "\(reads) reads")
  }

  /// Damage is found the same way, whichever read replays the entry or holds the row.
  @Test(arguments: [
    "UPDATE tasks SET title = 'Deux' WHERE id = 2",
    "UPDATE action_log SET changes = replace(changes, '\"title\":\"Three\"', '\"title\":\"Trois\"')",
    "DELETE FROM action_log WHERE seq = 6",
    "UPDATE snapshots SET rows = replace(rows, 'Two', 'Deux') WHERE label = 'selected'",
    "DELETE FROM undo_steps WHERE id = (SELECT max(id) FROM undo_steps)",
  ])
  func damageIsFoundAsOneReadFindsIt(sql: String) throws {
    let directory = try TemporaryDirectory()
    let path = try file(in: directory)
    try edit(path, sql)
    let whole = try verify(path, entriesPerRead: 1_000_000)
    #expect(!whole.isHealthy, "the edit was not found: \(sql)")
    for entriesPerRead in [1, 2, 4] {
      let inReads = try verify(path, entriesPerRead: entriesPerRead)
      #expect(inReads.problems == whole.problems, "\(entriesPerRead) entries a read")
      #expect(inReads.passed == whole.passed, "\(entriesPerRead) entries a read")
    }
  }

  /// A snapshot after the log's last entry is read in a read of its own too, and damage to it
  /// is found as one read finds it: rows that differ from the log (re-sealed, so its checksum
  /// holds), and rows edited under their seal.
  @Test func aSnapshotAfterTheLastEntryIsCheckedInAReadOfItsOwn() throws {
    let directory = try TemporaryDirectory()
    let path = try file(in: directory)
    var reads = 0
    _ = try verify(path, entriesPerRead: 1_000_000) { reads += 1 }
    let readsBefore = reads
    _ = try RewindDatabase(path: path).snapshot(label: "last")
    reads = 0
    let healthy = try verify(path, entriesPerRead: 1_000_000) { reads += 1 }
    #expect(reads == readsBefore + 1)
    #expect(healthy.isHealthy, "\(healthy.problems)")
    #expect(healthy.passed.contains { $0.contains("snapshot \"last\"") && $0.hasSuffix("matches the log") })
    try DatabaseQueue(path: path).write { db in
      let row = try #require(try Row.fetchOne(db, sql: "SELECT seq, rows FROM snapshots WHERE label = 'last'"))
      let text = (row["rows"] as String).replacingOccurrences(of: "Five", with: "Cinq")
      try db.execute(
        sql: "UPDATE snapshots SET rows = ?, checksum = ? WHERE label = 'last'",
        arguments: [text, HistoryLog.checksum(text, seq: row["seq"])])
    }
    let resealed = try verify(path, entriesPerRead: 1_000_000)
    #expect(resealed.problems.contains { $0.contains("snapshot \"last\"") && $0.contains("differs from the log") })
    for entriesPerRead in [1, 2, 4] {
      let inReads = try verify(path, entriesPerRead: entriesPerRead)
      #expect(inReads.problems == resealed.problems, "\(entriesPerRead) entries a read")
      #expect(inReads.passed == resealed.passed, "\(entriesPerRead) entries a read")
    }
    try edit(path, "UPDATE snapshots SET rows = replace(rows, 'Cinq', 'Six') WHERE label = 'last'")
    let unsealed = try verify(path, entriesPerRead: 1_000_000)
    #expect(unsealed.problems.contains { $0.contains("was modified after it was taken") }, "\(unsealed.problems)")
    #expect(try verify(path, entriesPerRead: 1).problems == unsealed.problems)
  }

  /// Snapshots at or before the base (labelled ones a compaction kept) are each read in a
  /// read of their own too, then checked by their checksum, and said after the base, before
  /// the replay's lines, as one read says them.
  @Test func snapshotsBeforeTheBaseAreEachReadInAReadOfTheirOwn() throws {
    let directory = try TemporaryDirectory()
    let path = try file(in: directory)
    _ = try RewindDatabase(path: path).compact(keep: 1)
    var reads = 0
    let report = try verify(path, entriesPerRead: 1_000_000) { reads += 1 }
    #expect(report.isHealthy, "\(report.problems)")
    let early = report.passed.filter { $0.contains("before the history kept") }
    #expect(early.count == 2, "\(report.passed)")
    #expect(early.first?.contains("\"four\"") == true)
    let firstEarly = try #require(report.passed.firstIndex { $0.contains("before the history kept") })
    let replayLine = try #require(report.passed.firstIndex { $0.hasPrefix("action_log: ") })
    #expect(firstEarly < replayLine, "\(report.passed)")
    try edit(path, "DELETE FROM snapshots WHERE label = 'four'")
    var readsWithOne = 0
    _ = try verify(path, entriesPerRead: 1_000_000) { readsWithOne += 1 }
    #expect(readsWithOne == reads - 1)
    try edit(path, "UPDATE snapshots SET rows = replace(rows, 'Two', 'Deux') WHERE label = 'selected'")
    let damaged = try verify(path, entriesPerRead: 1_000_000)
    #expect(damaged.problems.contains { $0.contains("was modified after it was taken") }, "\(damaged.problems)")
    // Counted before the replay: the replay's own line still says it holds.
    #expect(damaged.passed.contains { $0.hasPrefix("action_log: ") }, "\(damaged.passed)")
    #expect(try verify(path, entriesPerRead: 1).problems == damaged.problems)
  }

  /// A snapshot the app stores while the check runs, at a seq the replay has passed (a store's
  /// automatic snapshot is written after its seq), is checked by its checksum once the replay
  /// has caught up, and said; one whose rows were changed under its seal is found.
  @Test(arguments: [false, true])
  func aSnapshotStoredBehindTheReplayIsCheckedByItsChecksum(damaged: Bool) throws {
    let directory = try TemporaryDirectory()
    let path = try file(in: directory)
    let four = try RewindDatabase(path: path).read { db, _ in
      try Int64.fetchOne(db, sql: "SELECT seq FROM snapshots WHERE label = 'four'") ?? 0
    }
    var reads = 0
    let report = try verify(path, entriesPerRead: 1) {
      reads += 1
      // One entry a read: past the first read and `four` entries more, the replay is past it.
      guard reads == Int(four) + 3 else { return }
      try edit(
        path,
        """
        INSERT INTO snapshots (label, seq, kind, row_count, rows, part_set, checksum, schema_seq)
        SELECT 'copy', seq, kind, row_count, \(damaged ? "replace(rows, 'Two', 'Deux')" : "rows"), part_set,
          checksum, schema_seq
        FROM snapshots WHERE label = 'four'
        """)
    }
    let line = "snapshot \"copy\" at seq \(four), stored while verify ran and behind its replay"
    if damaged {
      let found = report.problems.contains { $0.contains("the snapshot at seq \(four) was modified") }
      #expect(found, "\(report.problems)")
      #expect(!report.passed.contains { $0.contains(line) })
    } else {
      #expect(report.isHealthy, "\(report.problems)")
      #expect(report.passed.contains { $0.contains(line) }, "\(report.passed)")
    }
    // Checked once: the copy is not also taken for one the replay reaches.
    #expect(report.passed.filter { $0.contains("\"copy\"") }.count == (damaged ? 0 : 1))
  }

  /// Two snapshots at one seq are each checked once, in the order they were taken, whichever
  /// read reaches them.
  @Test(arguments: [1, 1_000_000])
  func twoSnapshotsAtOneSeqAreEachCheckedOnce(entriesPerRead: Int) throws {
    let directory = try TemporaryDirectory()
    let path = try file(in: directory)
    let database = try RewindDatabase(path: path)
    let seq = try database.snapshot(label: "first")
    #expect(try database.snapshot(label: "second") == seq)
    let store = try TasksStore.tasks(path: path)
    try store.send(.add(title: "After both"))
    let report = try verify(path, entriesPerRead: entriesPerRead)
    #expect(report.isHealthy, "\(report.problems)")
    let lines = report.passed.filter { $0.contains("snapshot \"first\"") || $0.contains("snapshot \"second\"") }
    #expect(lines.count == 2, "\(lines)")
    #expect(lines.first?.contains("first") == true, "\(lines)")
  }

  /// Between two reads no read transaction is open: what the app commits meanwhile is
  /// checkpointed whole, and the WAL truncated.
  @Test func theWALStartsOverBetweenReads() throws {
    let directory = try TemporaryDirectory()
    let path = try file(in: directory)
    let store = try TasksStore.tasks(path: path)
    let writer = try DatabaseQueue(path: path)
    var checkpoints: [(busy: Int, frames: Int, copied: Int, walBytes: Int)] = []
    let report = try verify(path, entriesPerRead: 3) {
      try store.send(.add(title: "Meanwhile \(checkpoints.count)"))
      // busy is 1 when a reader holds part of the WAL, which then cannot be truncated.
      let row = try #require(
        try writer.writeWithoutTransaction { db in try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") })
      let walBytes = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? -1
      checkpoints.append((row[0], row[1], row[2], walBytes))
    }
    #expect(report.isHealthy, "\(report.problems)")
    #expect(checkpoints.count >= 4, "the replay took \(checkpoints.count) reads")
    for checkpoint in checkpoints {
      #expect(checkpoint.busy == 0, "\(checkpoints)")
      #expect(checkpoint.frames == checkpoint.copied, "\(checkpoints)")
      #expect(checkpoint.walBytes == 0, "\(checkpoints)")
    }
    try writer.close()
  }

  /// Before each read `verify` waits for an app writing to the file to start its WAL over:
  /// each read here leaves the WAL long, with what the app wrote during it uncopied (a table of
  /// the app's own grows by 1,200 pages before it), and the next read begins only once the
  /// app's checkpoint has copied it, or its next commit has started the WAL over.
  @Test func eachReadWaitsForAnAppWritingToStartItsWALOver() throws {
    let directory = try TemporaryDirectory()
    let path = try file(in: directory)
    try edit(path, "CREATE TABLE filler (bytes BLOB)")
    var configuration = Configuration()
    configuration.busyMode = .timeout(30)
    let filler = try DatabaseQueue(path: path, configuration: configuration)
    try filler.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
    let writer = PacedWriter(path: path)
    defer { writer.stop() }
    let shm = try #require(FileHandle(forReadingAtPath: path + "-shm"))
    defer { try? shm.close() }
    var seen: [WALIndexHeader] = []
    let report = try RewindDatabase(path: path, readOnly: true).verify(
      progress: { _, _ in }, keepingStateAt: { _, _ in nil }, entriesPerRead: 2,
      walPatience: WALIndexHeader.Patience(most: .seconds(60), idle: .seconds(60)),
      betweenReads: {
        seen.append(try #require(WALIndexHeader.read(from: shm)))
        try filler.write { db in
          try db.execute(sql: "INSERT INTO filler VALUES (zeroblob(?))", arguments: [1_200 * 4_096])
        }
      }
    ).report
    #expect(report.isHealthy, "\(report.problems)")
    #expect(seen.count >= 4, "\(seen.count) reads")
    for header in seen {
      #expect(header.frames < WALIndexHeader.longWAL || header.copied >= header.frames, "\(seen)")
    }
    #expect(writer.failure == nil)
    try filler.close()
  }

  /// What the app writes while the replay goes on is replayed too, and a snapshot it stores is
  /// checked.
  @Test func entriesAndSnapshotsWrittenBetweenReadsAreChecked() throws {
    let directory = try TemporaryDirectory()
    let path = try file(in: directory)
    let before = try verify(path, entriesPerRead: 1_000_000).entriesReplayed
    let store = try TasksStore.tasks(path: path)
    var reads = 0
    let report = try verify(path, entriesPerRead: 2) {
      reads += 1
      guard reads <= 3 else { return }
      try store.send(.add(title: "Written meanwhile \(reads)"))
      if reads == 2 { _ = try RewindDatabase(path: path).snapshot(label: "meanwhile") }
    }
    #expect(report.isHealthy, "\(report.problems)")
    #expect(report.entriesReplayed == before + 3)
    #expect(report.passed.contains { $0.contains("snapshot \"meanwhile\"") && $0.hasSuffix("matches the log") })
    #expect(report.passed.contains { $0.hasPrefix("tables:") })
  }

  /// A compaction between two reads removes entries the replay passed: the check starts over
  /// from the new base, and says the file is healthy.
  @Test func aCompactionBetweenReadsStartsTheCheckOver() throws {
    let directory = try TemporaryDirectory()
    let path = try file(in: directory)
    var reads = 0
    let report = try verify(path, entriesPerRead: 2) {
      reads += 1
      if reads == 2 { _ = try RewindDatabase(path: path).compact(keep: 3) }
    }
    #expect(report.isHealthy, "\(report.problems)")
    // The three kept, and the compaction's own entry.
    let (base, kept) = try RewindDatabase(path: path, readOnly: true).read { db, history in
      (
        history.baseSeq,
        try Int.fetchOne(db, sql: "SELECT count(*) FROM action_log WHERE seq > ?", arguments: [history.baseSeq])
      )
    }
    #expect(base > 0)
    #expect(kept == 4)
    #expect(report.entriesReplayed == kept)
  }

  /// An app's migration between two reads rewrites the tables (and may rewrite logged
  /// entries): the check starts over on the migrated file, progress with it, and reports what a
  /// check of the migrated file does.
  @Test func anAppMigrationBetweenReadsStartsTheCheckOver() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    let v1 = try Store(path: path, initialState: ContactsV1(), reducer: ContactsReducer<ContactsV1>())
    try v1.send(.add(id: 1, name: "Ada", street: "1 Main St"))
    try v1.send(.add(id: 2, name: "Grace", street: "2 Elm St"))
    try v1.send(.rename(id: 2, name: "Grace Hopper"))
    try v1.send(.search("a"))
    var reads = 0
    var replayed: [Int] = []
    let report = try RewindDatabase(path: path, readOnly: true).verify(
      progress: { done, _ in replayed.append(done) }, keepingStateAt: { _, _ in nil }, entriesPerRead: 1,
      betweenReads: {
        reads += 1
        // Once the replay has passed entries of version 1: version 3 opens the file.
        if reads == 3 {
          let v3 = try Store(path: path, initialState: ContactsV3(), reducer: ContactsReducer<ContactsV3>())
          try v3.send(.setPhone(id: 1, phone: "555-0100"))
        }
      }
    ).report
    #expect(report.isHealthy, "\(report.problems)")
    let migrated = try verify(path, entriesPerRead: 1_000_000)
    #expect(report.passed == migrated.passed)
    #expect(report.entriesReplayed == migrated.entriesReplayed)
    #expect(replayed.last == migrated.entriesReplayed)
    // The third read found the file migrated and ended the first try; the second try read the
    // migrated file as a check of it alone does.
    var readsOfTheMigratedFile = 0
    _ = try verify(path, entriesPerRead: 1) { readsOfTheMigratedFile += 1 }
    #expect(reads == 3 + readsOfTheMigratedFile, "\(reads) reads")
  }

  /// The snapshot of a barrier migration, whose state the replay goes on from, is read by the
  /// read that replays the migration's entry, which ends there, and parsed after it (seconds at
  /// a million tasks), as the base's is. The report is the one a single read gives, damage to
  /// the snapshot included.
  @Test func aBarrierMigrationsSnapshotEndsTheReadThatReachesIt() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    do {
      let v1 = try Store(path: path, initialState: ContactsV1(), reducer: ContactsReducer<ContactsV1>())
      try v1.send(.add(id: 1, name: "Ada", street: "1 Main St"))
      try v1.send(.add(id: 2, name: "Grace", street: "2 Elm St"))
    }
    let shouting = try Store(
      path: path, initialState: AppMigrationTests.Shouting(), reducer: ContactsReducer<AppMigrationTests.Shouting>())
    let barrier = shouting.lastSeq
    try shouting.send(.rename(id: 2, name: "GRACE HOPPER"))
    let entries = try RewindDatabase(path: path, readOnly: true).read { _, history in history.lastSeq }
    let snapshotsAtTheBarrier = try RewindDatabase(path: path, readOnly: true).read { db, _ in
      try Int.fetchOne(db, sql: "SELECT count(*) FROM snapshots WHERE seq = ?", arguments: [barrier]) ?? 0
    }
    #expect(snapshotsAtTheBarrier == 1)
    var reads = 0
    let whole = try verify(path, entriesPerRead: 1_000_000) { reads += 1 }
    #expect(whole.isHealthy, "\(whole.problems)")
    #expect(whole.entriesReplayed == Int(entries))
    // After the file-wide checks' read: the log up to the barrier (its snapshot read there);
    // the snapshot due at the barrier's seq, compared after a read that ends before the next
    // entry; the rest of the log and the first table; a read each other table; the last.
    let tables = try RewindDatabase(path: path, readOnly: true).read { _, history in
      history.tables.tableNames.count
    }
    #expect(reads == 2 + tables + 1, "\(reads) reads")
    for entriesPerRead in [1, 2] {
      let inReads = try verify(path, entriesPerRead: entriesPerRead)
      #expect(inReads.passed == whole.passed, "\(entriesPerRead) entries a read")
      #expect(inReads.problems == whole.problems, "\(entriesPerRead) entries a read")
    }
    try edit(path, "UPDATE snapshots SET rows = replace(rows, 'ADA', 'ADDA') WHERE seq = \(barrier)")
    let damaged = try verify(path, entriesPerRead: 1_000_000)
    #expect(damaged.problems.first?.hasPrefix("barrier snapshot: the snapshot at seq \(barrier) was modified") == true)
    for entriesPerRead in [1, 2] {
      let inReads = try verify(path, entriesPerRead: entriesPerRead)
      #expect(inReads.problems == damaged.problems, "\(entriesPerRead) entries a read")
      #expect(inReads.passed == damaged.passed, "\(entriesPerRead) entries a read")
    }
  }

  /// A file compacted between the reads of every try is refused with an error saying so, and
  /// left as the compactions left it.
  @Test func aFileCompactedOnEveryTryIsRefusedClearly() throws {
    let directory = try TemporaryDirectory()
    let path = try file(in: directory)
    let store = try TasksStore.tasks(path: path)
    var reads = 0
    do {
      _ = try verify(path, entriesPerRead: 2) {
        reads += 1
        // After each try's first read: a new entry, then a base past it.
        try store.send(.add(title: "More \(reads)"))
        _ = try RewindDatabase(path: path).compact(keep: 0)
      }
      Issue.record("verify did not refuse")
    } catch let error as RewindError {
      #expect(error.code == .externalChange)
      #expect(error.message.contains("compacted"))
      #expect(error.message.contains("run verify again"))
    }
    #expect(reads == 3)
    #expect(try verify(path, entriesPerRead: 2).isHealthy)
  }

  /// The base snapshot of a compacted file is parsed after the read that fetches it: an edit to
  /// it is still found, by its checksum, and said first, with the file left as it was.
  @Test func aBaseSnapshotEditedByHandIsFound() throws {
    let directory = try TemporaryDirectory()
    let path = try file(in: directory)
    _ = try RewindDatabase(path: path).compact(keep: 2)
    #expect(try verify(path, entriesPerRead: 1).isHealthy)
    try edit(path, "UPDATE snapshots SET rows = replace(rows, 'Four', 'Vier') WHERE kind = 'base'")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    let report = try verify(path, entriesPerRead: 1)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "verify changed the file")
    #expect(report.problems.count == 1, "\(report.problems)")
    #expect(report.problems.first?.hasPrefix("base snapshot: the snapshot at seq") == true, "\(report.problems)")
    #expect(report.problems.first?.contains("modified after it was taken") == true)
    #expect(report.entriesReplayed == 0)
    #expect(!report.passed.contains { $0.hasPrefix("tables:") })
  }
}
