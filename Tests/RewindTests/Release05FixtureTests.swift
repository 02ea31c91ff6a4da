import Foundation
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
    try release.expectTheToolReadsItAsTheReleaseDid(lastMigration: "0008_snapshot_parts")
  }

  @Test func itsLabelledSnapshotRestoresTheStateItWasTakenAt() throws {
    try release.expectItsLabelledSnapshotRestores()
  }

  @Test func theAppOpensItAndUndoesAsTheReleaseDid() throws {
    try release.expectTheAppUndoesAsTheReleaseDid()
  }
}
