import Foundation
import GRDB
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
    let (directory, path) = try release.copy()
    _ = directory
    let applied = try DatabaseQueue(path: path).read { db in
      try String.fetchAll(db, sql: "SELECT identifier FROM rewind_engine_migrations ORDER BY identifier")
    }
    #expect(applied.last == "0006_keyed_lists")
    let database = try RewindDatabase(path: path)
    #expect(try database.verify().problems == [])
    let seqs = try release.exportedSeqs()
    #expect(seqs.count >= 20)
    #expect(try database.inspect().lastSeq == seqs.last)
    for seq in seqs {
      #expect(try database.export(at: seq) == (try release.text("exports/at-\(seq).json")), "export --at \(seq)")
    }
    #expect(try database.inspect().migrations.last == EngineMigrations.embedded.last?.identifier)
  }

  @Test func theAppOpensItAndUndoesAsTheReleaseDid() throws {
    let (directory, path) = try release.copy()
    _ = directory
    let store = try TasksStore.tasks(path: path)
    let database = try RewindDatabase(path: path)
    #expect(try database.verify().problems == [])
    for count in 1...4 {
      try store.undo()
      #expect(try database.export() == (try release.text("undos/undo-\(count).json")), "undo \(count)")
      #expect(store.state == (try TasksStore.tasks(path: path, readOnly: true).state))
    }
    try ReleaseFixture.expectTheFileGoesOn(store, database)
  }
}
