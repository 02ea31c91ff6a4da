import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// A database written by release 0.3 (`Fixtures/release-0.3.sqlite`, written by
/// `scripts/make-release-fixture 62fd705 release-0.3` with what 0.3 exported at every seq and
/// after four undos): engine schema 5, app schema 2 (task notes). Version 0.4 adds engine
/// migration 6 (keyed lists) and the example's version 3 (projects); the file opens with its
/// whole history.
@MainActor
struct Release03FixtureTests {
  func copy() throws -> (TemporaryDirectory, String) { try ReleaseFixture(name: "release-0.3").copy() }

  func fixture(_ name: String) throws -> JSONValue {
    try JSONValue.parse(
      try String(contentsOf: ReleaseFixtureTests.fixtures.appendingPathComponent(name), encoding: .utf8))
  }

  /// An export with version 3's additions left out (tasks' `projectId`, the `projects` table and
  /// the `projectTasks` lists, all empty in 0.3's history): what 0.3 exported of the same state.
  func inReleaseShape(_ export: String) throws -> JSONValue {
    guard case .object(var document) = try JSONValue.parse(export),
      case .object(var entities)? = document["entities"], case .array(let tasks)? = entities["tasks"],
      case .object(var lists)? = document["lists"]
    else { throw RewindError(.corruptData, "not an export") }
    entities["tasks"] = .array(
      try tasks.map { task in
        guard case .object(var columns) = task, case .null? = columns.removeValue(forKey: "projectId") else {
          throw RewindError(.corruptData, "a task with a project: \(task)")
        }
        return .object(columns)
      })
    #expect(entities.removeValue(forKey: "projects") == .array([]))
    #expect(lists.removeValue(forKey: "projectTasks") == .array([]))
    document["entities"] = .object(entities)
    document["lists"] = .object(lists)
    #expect(document["appSchema"] == .integer(3))
    document["appSchema"] = .integer(2)
    return .object(document)
  }

  @Test func theToolReadsTheReleaseFileAsTheReleaseDid() throws {
    let (directory, path) = try copy()
    _ = directory
    let database = try RewindDatabase(path: path)
    #expect(try database.verify().problems == [])
    let last = try database.inspect().lastSeq
    #expect(last == 24)
    // With no app code the file keeps app schema 2: exports are 0.3's, byte for byte.
    for seq in 1...last {
      let expected = try String(
        contentsOf: ReleaseFixtureTests.fixtures.appendingPathComponent("release-0.3-exports/at-\(seq).json"),
        encoding: .utf8)
      #expect(try database.export(at: seq) == expected, "export --at \(seq)")
    }
  }

  @Test func theAppUpgradesItAndEveryPastStateReadsAsTheReleaseHadIt() throws {
    let (directory, path) = try copy()
    _ = directory
    let store = try TasksStore.tasks(path: path)
    #expect(store.state.tasks.values.allSatisfy { $0.projectID == nil })
    let database = try RewindDatabase(path: path)
    #expect(try database.verify().problems == [])
    let migration = try #require(try database.log(LogQuery(kinds: ["migration"])).first)
    #expect(migration.seq == 25 && migration.action == "3-projects")
    for seq in 1...24 as ClosedRange<Int64> {
      #expect(
        try inReleaseShape(try database.export(at: seq)) == (try fixture("release-0.3-exports/at-\(seq).json")),
        "export --at \(seq)")
    }
    // Undo walks back across the upgrade as 0.3 did, memory equal to the file each time.
    for count in 1...4 {
      try store.undo()
      #expect(
        try inReleaseShape(try database.export()) == (try fixture("release-0.3-undos/undo-\(count).json")),
        "undo \(count)")
      #expect(store.state == (try TasksStore.tasks(path: path, readOnly: true).state))
    }
    // Version 3 works on the upgraded file.
    try store.redo()
    try ReleaseFixture.expectTheFileGoesOn(store, database)
  }

  @Test func exportsTheReleaseWroteImportIntoTheUpgradedFile() throws {
    let (directory, path) = try copy()
    _ = directory
    _ = try TasksStore.tasks(path: path)
    let database = try RewindDatabase(path: path)
    let export = try String(
      contentsOf: ReleaseFixtureTests.fixtures.appendingPathComponent("release-0.3-exports/at-12.json"),
      encoding: .utf8)
    #expect(try database.importState(export) != nil)
    #expect(try inReleaseShape(try database.export()) == (try fixture("release-0.3-exports/at-12.json")))
    #expect(try database.verify().problems == [])
  }
}
