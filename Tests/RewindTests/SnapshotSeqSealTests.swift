import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// A snapshot's checksum covers its seq as well as its rows (engine schema 9): a seq edited by
/// hand is refused where the snapshot is used, not taken for the state at the new seq; files of
/// schema 8 are sealed as they open, without laundering a snapshot already edited.
@MainActor
struct SnapshotSeqSealTests {
  /// A file with four tasks, a snapshot labelled `mid`, then forty more sends: a seq near the
  /// snapshot is far from the current state, so `export --at` and `restore --to` start there.
  func makeFile(_ path: String) throws -> Int64 {
    let store = try TasksStore.tasks(path: path)
    for index in 0..<4 { try store.send(.add(title: "T\(index)")) }
    let seq = try RewindDatabase(path: path).snapshot(label: "mid")
    for index in 0..<40 { try store.send(.rename(id: 1, title: "R\(index)")) }
    return seq
  }

  func edit(_ path: String, _ sql: String) throws {
    try DatabaseQueue(path: path).write { try $0.execute(sql: sql) }
  }

  /// Each snapshot's stored checksum, and the one its text and seq give.
  func checksums(_ path: String) throws -> [(stored: String?, expected: String)] {
    try DatabaseQueue(path: path).read { db in
      try Row.fetchAll(db, sql: "SELECT seq, rows, part_set, checksum FROM snapshots ORDER BY id").map {
        (stored: $0["checksum"], expected: HistoryLog.checksum(try HistoryLog.snapshotText($0, db), seq: $0["seq"]))
      }
    }
  }

  @Test func aSnapshotWhoseSeqWasEditedIsRefusedAndTheFileIsLeftAsItWas() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let seq = try makeFile(path)
    let database = try RewindDatabase(path: path)
    let target = seq - 2
    let truth = try database.export(at: target)
    // Moved two entries back: its rows, the state at `seq`, would be read as the state at
    // `target`, and the two adds between would be lost from the export and the restore.
    try edit(path, "UPDATE snapshots SET seq = \(target) WHERE label = 'mid'")
    let before = try database.export()
    let lastSeq = try database.inspect().lastSeq
    for (what, operation) in [
      ("export --at", { _ = try database.export(at: target) }),
      ("restore --to", { _ = try database.restore(to: target) }),
      ("restore --snapshot", { _ = try database.restore(snapshot: "mid") }),
    ] as [(String, () throws -> Void)] {
      let error = try #require(throws: RewindError.self, "\(what)") { try operation() }
      #expect(error.code == RewindError.Code.corruptData, "\(what)")
      #expect(
        error.message.contains("the snapshot at seq \(target) was modified after it was taken"), "\(what): \(error)")
      #expect(try database.export() == before, "\(what) changed the state")
      #expect(try database.inspect().lastSeq == lastSeq, "\(what) logged an entry")
    }
    // Put back, the snapshot serves again.
    try edit(path, "UPDATE snapshots SET seq = \(seq) WHERE label = 'mid'")
    #expect(try database.export(at: target) == truth)
    #expect(try database.verify().problems == [])
  }

  /// Found by a trial of 0.6: a snapshot at or before the base (labelled ones compaction
  /// keeps, or a seq edited to one) is still restored by label, but `verify` checked only
  /// those the replay reaches, so `compact` went ahead over a damaged one.
  @Test func verifyChecksTheSnapshotsTheLogNoLongerReaches() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let seq = try makeFile(path)
    let database = try RewindDatabase(path: path)
    try edit(path, "UPDATE snapshots SET seq = 0 WHERE label = 'mid'")
    let problems = try database.verify().problems
    #expect(problems.contains { $0.contains("the snapshot at seq 0 was modified after it was taken") }, "\(problems)")
    #expect(throws: RewindError.self) { try database.compact(keep: 1) }
    // Put back, then kept by a compaction that folds its seq into the base.
    try edit(path, "UPDATE snapshots SET seq = \(seq) WHERE label = 'mid'")
    _ = try database.compact(keep: 1)
    let report = try database.verify()
    #expect(report.problems == [])
    #expect(
      report.passed.contains { $0.contains("snapshot \"mid\" at seq \(seq), before the history kept") },
      "\(report.passed)")
    try edit(path, "UPDATE snapshots SET rows = replace(rows, 'T1', 'TX') WHERE label = 'mid'")
    let after = try database.verify().problems
    #expect(after.contains { $0.contains("the snapshot at seq \(seq) was modified after it was taken") }, "\(after)")
    #expect(throws: RewindError.self) { try database.compact(keep: 0) }
  }

  /// Every snapshot of schema 9 has a checksum (its triggers refuse one without): one taken
  /// away by hand, triggers and all, is refused, not trusted.
  @Test func aSnapshotWhoseChecksumWasTakenAwayIsRefused() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let seq = try makeFile(path)
    try edit(
      path,
      """
      DROP TRIGGER snapshots_are_sealed_with_their_seq;
      DROP TRIGGER snapshots_stay_sealed_with_their_seq;
      UPDATE snapshots SET checksum = NULL, seq = \(seq - 2) WHERE label = 'mid';
      """)
    let database = try RewindDatabase(path: path)
    let error = try #require(throws: RewindError.self) { try database.export(at: seq - 2) }
    #expect(error.message.contains("was modified after it was taken"), "\(error)")
    #expect(throws: RewindError.self) { try database.restore(snapshot: "mid") }
    #expect(try database.verify().problems.contains { $0.contains("was modified after it was taken") })
  }

  @Test func snapshotsTakenNowAreSealedWithTheirSeq() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    _ = try makeFile(path)
    let sums = try checksums(path)
    #expect(!sums.isEmpty)
    for sum in sums { #expect(sum.stored == sum.expected) }
  }

  /// A library of schema 8 that had the file open before another process upgraded it would
  /// go on writing snapshots with a checksum of their rows alone, refused later as edited: the
  /// file refuses them as they are written, saying why, and keeps none.
  @Test func aSnapshotWithTheOldChecksumIsRefusedAsItIsWritten() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let seq = try makeFile(path)
    let count = try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM snapshots") }
    for (what, sql) in [
      (
        "insert",
        "INSERT INTO snapshots (label, seq, kind, row_count, rows, checksum) SELECT 'old', seq, kind, row_count, rows, ? FROM snapshots WHERE label = 'mid'"
      ),
      ("update", "UPDATE snapshots SET checksum = ? WHERE label = 'mid'"),
    ] {
      let text = try DatabaseQueue(path: path).read { db in
        try HistoryLog.snapshotText(
          try #require(try Row.fetchOne(db, sql: "SELECT rows, part_set FROM snapshots WHERE label = 'mid'")), db)
      }
      let error = try #require(throws: DatabaseError.self, "\(what)") {
        try DatabaseQueue(path: path).write {
          try $0.execute(sql: sql, arguments: [HistoryLog.checksumOfRowsAlone(text)])
        }
      }
      #expect(error.message?.contains("Rewind 0.5 or earlier") == true, "\(what): \(error)")
    }
    #expect(try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM snapshots") } == count)
    #expect(try RewindDatabase(path: path).snapshots().first { $0.label == "mid" }?.seq == seq)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  /// The 0.5 fixture (schema 8: checksums over the rows alone; `checksumTakenAway`: with its
  /// snapshot's checksum gone, as releases before checksums left theirs) opens sealed: a seq
  /// edited afterwards is refused.
  @Test(arguments: [false, true])
  func aSchema8FileIsSealedAsItOpens(checksumTakenAway: Bool) throws {
    let release = ReleaseFixture(name: "release-0.5")
    let (directory, path) = try release.copy()
    _ = directory
    let before = try checksums(path)
    #expect(!before.isEmpty && before.allSatisfy { $0.stored != nil && $0.stored != $0.expected })
    if checksumTakenAway { try edit(path, "UPDATE snapshots SET checksum = NULL") }
    let database = try RewindDatabase(path: path)
    let sums = try checksums(path)
    #expect(sums.count == before.count)
    for sum in sums { #expect(sum.stored == sum.expected) }
    #expect(try database.verify().problems == [])
    let handoff = try #require(try database.snapshots().first { $0.label == "handoff" })
    try edit(path, "UPDATE snapshots SET seq = seq + 1 WHERE label = 'handoff'")
    let error = try #require(throws: RewindError.self) { try database.restore(snapshot: "handoff") }
    #expect(
      error.message.contains("the snapshot at seq \(handoff.seq + 1) was modified after it was taken"), "\(error)")
  }

  /// A schema-8 snapshot whose rows were edited before the upgrade keeps a checksum that
  /// cannot match: the upgrade does not seal what it cannot vouch for.
  @Test func aSnapshotEditedBeforeTheUpgradeStaysRefused() throws {
    let release = ReleaseFixture(name: "release-0.5")
    let (directory, path) = try release.copy()
    _ = directory
    try edit(path, "UPDATE snapshots SET rows = replace(rows, '\"done\":0', '\"done\":1') WHERE label = 'handoff'")
    let database = try RewindDatabase(path: path)
    let error = try #require(throws: RewindError.self) { try database.restore(snapshot: "handoff") }
    #expect(error.message.contains("was modified after it was taken"), "\(error)")
    #expect(try database.verify().problems.contains { $0.contains("was modified after it was taken") })
  }
}
