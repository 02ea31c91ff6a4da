import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// A database written by release 0.5 (`Fixtures/release-0.5.sqlite`, written by
/// `scripts/make-release-fixture 2309ba9 release-0.5` with what 0.5 exported at every seq and
/// after four undos): engine schema 8 (a log without `json_valid` checks, snapshots stored in
/// parts), app schema 3 (projects). Later releases must open it with its whole history, export
/// every seq as 0.5 did, restore its labelled snapshot and undo across the upgrade.
@MainActor
struct Release05FixtureTests {
  let release = ReleaseFixture(name: "release-0.5")

  @Test func theFileIsAtEngineSchema8AndTheToolReadsItAsTheReleaseDid() throws {
    let (directory, path) = try release.copy()
    _ = directory
    let applied = try DatabaseQueue(path: path).read { db in
      try String.fetchAll(db, sql: "SELECT identifier FROM rewind_engine_migrations ORDER BY identifier")
    }
    #expect(applied.last == "0008_snapshot_parts")
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
