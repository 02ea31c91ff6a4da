import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// A database written by release 0.6 (`Fixtures/release-0.6.sqlite`, written by
/// `scripts/make-release-fixture 8add2ef release-0.6` with what 0.6 exported at every seq and
/// after four undos): engine schema 9 (a snapshot's checksum covers its seq), app schema 3
/// (projects). Later releases must open it with its whole history, export every seq as 0.6
/// did, restore its labelled snapshot (and refuse it once its seq is edited) and undo across
/// the upgrade.
@MainActor
struct Release06FixtureTests {
  let release = ReleaseFixture(name: "release-0.6")

  @Test func theFileIsAtEngineSchema9AndTheToolReadsItAsTheReleaseDid() throws {
    let (directory, path) = try release.copy()
    _ = directory
    let applied = try DatabaseQueue(path: path).read { db in
      try String.fetchAll(db, sql: "SELECT identifier FROM rewind_engine_migrations ORDER BY identifier")
    }
    #expect(applied.last == "0009_snapshot_checksums_cover_seq")
    let database = try RewindDatabase(path: path)
    #expect(try database.verify().problems == [])
    let seqs = try release.exportedSeqs()
    #expect(seqs.count >= 20)
    #expect(try database.inspect().lastSeq == seqs.last)
    for seq in seqs {
      #expect(try database.export(at: seq) == (try release.text("exports/at-\(seq).json")), "export --at \(seq)")
    }
  }

  @Test func itsLabelledSnapshotRestoresTheStateItWasTakenAt() throws {
    let (directory, path) = try release.copy()
    _ = directory
    let database = try RewindDatabase(path: path)
    let handoff = try #require(try database.snapshots().first { $0.label == "handoff" })
    try database.restore(snapshot: "handoff")
    #expect(try database.export() == (try release.text("exports/at-\(handoff.seq).json")))
    #expect(try database.verify().problems == [])
  }

  @Test func itsLabelledSnapshotMovedToAnotherSeqIsRefused() throws {
    let (directory, path) = try release.copy()
    _ = directory
    try DatabaseQueue(path: path).write { try $0.execute(sql: "UPDATE snapshots SET seq = seq - 1") }
    let database = try RewindDatabase(path: path)
    let before = try database.export()
    let error = try #require(throws: RewindError.self) { try database.restore(snapshot: "handoff") }
    #expect(error.message.contains("was modified after it was taken"), "\(error)")
    #expect(try database.export() == before)
  }

  @Test func theAppOpensItAndUndoesAsTheReleaseDid() throws {
    let (directory, path) = try release.copy()
    _ = directory
    let store = try TasksStore.tasks(path: path)
    let database = try RewindDatabase(path: path)
    for count in 1...4 {
      try store.undo()
      #expect(try database.export() == (try release.text("undos/undo-\(count).json")), "undo \(count)")
      #expect(store.state == (try TasksStore.tasks(path: path, readOnly: true).state))
    }
    try ReleaseFixture.expectTheFileGoesOn(store, database)
  }
}
