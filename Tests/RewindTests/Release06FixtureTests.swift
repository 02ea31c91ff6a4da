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
    try release.expectTheToolReadsItAsTheReleaseDid(lastMigration: "0009_snapshot_checksums_cover_seq")
  }

  @Test func itsLabelledSnapshotRestoresTheStateItWasTakenAt() throws {
    try release.expectItsLabelledSnapshotRestores()
  }

  @Test func theAppOpensItAndUndoesAsTheReleaseDid() throws {
    try release.expectTheAppUndoesAsTheReleaseDid()
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
}
