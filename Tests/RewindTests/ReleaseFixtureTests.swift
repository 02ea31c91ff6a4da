import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// A database written by release 0.1 (`Fixtures/release-0.1.sqlite`, with the exports 0.1 wrote
/// from it) opens with its whole history: migrated in place, verified, every past state
/// exported byte for byte as 0.1 did, and undone as 0.1 undid it.
@MainActor
struct ReleaseFixtureTests {
  nonisolated static var fixtures: URL { ReleaseFixture.directory }

  /// A writable copy of the release file in a fresh directory.
  func copy() throws -> (TemporaryDirectory, String) { try ReleaseFixture(name: "release-0.1").copy() }

  func fixture(_ name: String) throws -> String {
    try String(contentsOf: Self.fixtures.appendingPathComponent(name), encoding: .utf8)
  }

  @Test func theToolOpensTheReleaseFileWithItsWholeHistory() throws {
    let (directory, path) = try copy()
    _ = directory
    let database = try RewindDatabase(path: path)
    #expect(try database.inspect().migrations.count == EngineMigrations.currentVersion)
    let report = try database.verify()
    #expect(report.problems == [])
    let last = try database.inspect().lastSeq
    #expect(last == 24)
    // With no app code, the file keeps the app's schema of release 0.1: exports are 0.1's.
    for seq in 1...last {
      #expect(try database.export(at: seq) == (try fixture("release-0.1-exports/at-\(seq).json")), "export --at \(seq)")
    }
  }

  @Test(arguments: 1...6)
  func undoingGivesWhatTheReleaseGave(count: Int) throws {
    let (directory, path) = try copy()
    _ = directory
    for _ in 0..<count { #expect(try RewindDatabase(path: path).undo() != nil) }
    #expect(try RewindDatabase(path: path).export() == (try fixture("release-0.1-undos/undo-\(count).json")))
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  /// Rows of the release file edited by hand go back to what its log says, with no entry: the
  /// export is 0.1's again, and undo still gives what 0.1 gave.
  @Test func handEditsOfTheReleaseFileAreRebuiltFromItsLog() throws {
    let (directory, path) = try copy()
    _ = directory
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "UPDATE tasks SET title = 'by hand' WHERE id = (SELECT min(id) FROM tasks)")
      try db.execute(sql: "DELETE FROM list_entries WHERE rowid = (SELECT max(rowid) FROM list_entries)")
    }
    #expect(try RewindDatabase(path: path, readOnly: true).verify().canRebuildTables)
    let report = try RewindDatabase(path: path).rebuildTables()
    #expect(report.seq == 24)
    #expect(report.rowCount == 2)
    #expect(try RewindDatabase(path: path).export() == (try fixture("release-0.1-exports/at-24.json")))
    #expect(try RewindDatabase(path: path).undo() != nil)
    #expect(try RewindDatabase(path: path).export() == (try fixture("release-0.1-undos/undo-1.json")))
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  // MARK: - Upgraded by the app (version 2 of the example's schema: task notes)

  /// An export with what later app versions added left out (version 2: tasks' `notes`; version
  /// 3: tasks' `projectId`, the `projects` table and the `projectTasks` lists, all empty in a
  /// 0.1 file's history) and its version: what 0.1 exported of the same state.
  func withoutNotes(_ export: String) throws -> JSONValue {
    guard case .object(var document) = try JSONValue.parse(export),
      case .object(var entities)? = document["entities"], case .array(let tasks)? = entities["tasks"],
      case .object(var lists)? = document["lists"]
    else { throw RewindError(.corruptData, "not an export") }
    entities["tasks"] = .array(
      try tasks.map { task in
        guard case .object(var columns) = task, case .string("")? = columns.removeValue(forKey: "notes"),
          case .null? = columns.removeValue(forKey: "projectId")
        else {
          throw RewindError(.corruptData, "a task with a note or a project: \(task)")
        }
        return .object(columns)
      })
    #expect(entities.removeValue(forKey: "projects") == .array([]))
    #expect(lists.removeValue(forKey: "projectTasks") == .array([]))
    document["entities"] = .object(entities)
    document["lists"] = .object(lists)
    #expect(document.removeValue(forKey: "appSchema") == .integer(3))
    return .object(document)
  }

  @Test func theAppUpgradesTheReleaseFileAndItsWholeHistoryReadsInTheNewShape() throws {
    let (directory, path) = try copy()
    _ = directory
    let store = try TasksStore.tasks(path: path)
    #expect(store.state.tasks.count == 4)
    #expect(store.state.tasks.values.allSatisfy { $0.notes == "" })
    // The upgrade is in the file, for sqlite3 and every tool.
    let notes = try DatabaseQueue(path: path).read { try String.fetchAll($0, sql: "SELECT notes FROM tasks") }
    #expect(notes == ["", "", "", ""])
    let database = try RewindDatabase(path: path)
    #expect(try database.verify().problems == [])
    let migration = try #require(try database.log(LogQuery(kinds: ["migration"])).first)
    #expect(migration.seq == 25 && migration.action == "2-task-notes")
    for seq in 1...24 as ClosedRange<Int64> {
      #expect(
        try withoutNotes(try database.export(at: seq))
          == (try JSONValue.parse(try fixture("release-0.1-exports/at-\(seq).json"))), "export --at \(seq)")
    }
    // The migration entry changes no row: the state right after it is the one before.
    #expect(try database.export(at: 25) == (try database.export(at: 24)))
  }

  @Test func undoAcrossTheUpgradeGivesWhatTheReleaseGave() throws {
    let (directory, path) = try copy()
    _ = directory
    let store = try TasksStore.tasks(path: path)
    for count in 1...6 {
      try store.undo()
      let export = try RewindDatabase(path: path).export()
      #expect(try withoutNotes(export) == (try JSONValue.parse(try fixture("release-0.1-undos/undo-\(count).json"))))
      // Memory and file agree after each undo.
      #expect(store.state == (try TasksStore.tasks(path: path, readOnly: true).state))
    }
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  @Test func restoringTheFirstSeqAfterTheUpgradeGivesWhatTheReleaseHadThere() throws {
    let (directory, path) = try copy()
    _ = directory
    _ = try TasksStore.tasks(path: path)
    let database = try RewindDatabase(path: path)
    #expect(try database.restore(to: 1) != nil)
    #expect(
      try withoutNotes(try database.export()) == (try JSONValue.parse(try fixture("release-0.1-exports/at-1.json"))))
    let store = try TasksStore.tasks(path: path)
    try store.send(.add(title: "after the update"))
    try store.send(.note(id: store.state.allTasks[0], notes: "written by version 2"))
    #expect(try database.verify().problems == [])
    // Undo goes back through the new entries, then across the upgrade.
    try store.undo()
    try store.undo()
    try store.undo()
    #expect(try database.export() == (try database.export(at: 24)))
  }

  @Test func exportsTheReleaseWroteImportIntoTheUpgradedFile() throws {
    let (directory, path) = try copy()
    _ = directory
    _ = try TasksStore.tasks(path: path)
    let database = try RewindDatabase(path: path)
    #expect(try database.importState(try fixture("release-0.1-exports/at-12.json")) != nil)
    #expect(try database.export() == (try database.export(at: 12)))
    #expect(try database.verify().problems == [])
  }
}

/// The release file opened read-only: upgraded in memory, so the file itself is never touched.
struct ReleaseFixtureReadOnlyTests {
  @Test func theReleaseFileReadsWholeWithoutBeingChanged() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("release-0.1.sqlite")
    try FileManager.default.copyItem(
      atPath: ReleaseFixtureTests.fixtures.appendingPathComponent("release-0.1.sqlite").path, toPath: path)
    try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
    let before = try Data(contentsOf: URL(fileURLWithPath: path))

    let database = try RewindDatabase(path: path, readOnly: true)
    #expect(try database.verify().problems == [])
    for seq in [1, 12, 24] as [Int64] {
      let expected = try String(
        contentsOf: ReleaseFixtureTests.fixtures.appendingPathComponent("release-0.1-exports/at-\(seq).json"),
        encoding: .utf8)
      #expect(try database.export(at: seq) == expected, "export --at \(seq)")
    }
    // Writes are refused by name, before anything happens.
    #expect(throws: RewindError.self) { try database.undo() }
    do {
      _ = try database.snapshot(label: "x")
      Issue.record("a read-only database took a snapshot")
    } catch let error as RewindError {
      #expect(error.code == .readOnly)
      #expect(error.message.contains("was opened read-only"))
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    let wal = try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
    #expect(wal == nil || wal?.isEmpty == true)
  }
}
