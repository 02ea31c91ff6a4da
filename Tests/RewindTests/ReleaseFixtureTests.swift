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
  nonisolated static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
    "Fixtures")

  /// A writable copy of the release file in a fresh directory.
  func copy() throws -> (TemporaryDirectory, String) {
    let directory = try TemporaryDirectory()
    let path = directory.path("release-0.1.sqlite")
    try FileManager.default.copyItem(
      atPath: Self.fixtures.appendingPathComponent("release-0.1.sqlite").path, toPath: path)
    return (directory, path)
  }

  func fixture(_ name: String) throws -> String {
    try String(contentsOf: Self.fixtures.appendingPathComponent(name), encoding: .utf8)
  }

  @Test func theReleaseFileOpensWithItsWholeHistory() throws {
    let (directory, path) = try copy()
    _ = directory
    let database = try RewindDatabase(path: path)
    #expect(try database.inspect().migrations.count == EngineMigrations.currentVersion)
    let report = try database.verify()
    #expect(report.problems == [])
    let last = try database.inspect().lastSeq
    #expect(last == 24)
    for seq in 1...last {
      #expect(try database.export(at: seq) == (try fixture("release-0.1-exports/at-\(seq).json")), "export --at \(seq)")
    }
    // The app opens it, and sees the state of its last seq.
    let store = try TasksStore.tasks(path: path)
    #expect(try database.export() == (try fixture("release-0.1-exports/at-24.json")))
    #expect(store.state.tasks.count == 4)
    try store.send(.add(title: "after the update"))
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  @Test(arguments: 1...6)
  func undoingGivesWhatTheReleaseGave(count: Int) throws {
    let (directory, path) = try copy()
    _ = directory
    for _ in 0..<count { #expect(try RewindDatabase(path: path).undo() != nil) }
    #expect(try RewindDatabase(path: path).export() == (try fixture("release-0.1-undos/undo-\(count).json")))
    #expect(try RewindDatabase(path: path).verify().problems == [])
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
