import Foundation
import Testing

@testable import Rewind
@testable import TasksExample

/// A database written by release 0.4 (`Fixtures/release-0.4.sqlite`, written by
/// `scripts/make-release-fixture 29faafb release-0.4` with what 0.4 exported at every seq and
/// after four undos): engine schema 6, app schema 3 (projects). The next release adds engine
/// migration 7 (the log without `json_valid` checks, rebuilt in place); the file opens with its
/// whole history, and every export is 0.4's, byte for byte.
@MainActor
struct Release04FixtureTests {
  let release = ReleaseFixture(name: "release-0.4")

  @Test func theFileIsAtEngineSchema6AndTheToolReadsItAsTheReleaseDid() throws {
    try release.expectTheToolReadsItAsTheReleaseDid(lastMigration: "0006_keyed_lists")
  }

  @Test func theAppOpensItAndUndoesAsTheReleaseDid() throws {
    try release.expectTheAppUndoesAsTheReleaseDid()
  }
}
