import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// A store opened read-only: a viewer of a file it may not change.
@MainActor
struct ReadOnlyStoreTests {
  let directory: TemporaryDirectory
  var path: String { directory.path("tasks.sqlite") }

  init() throws { directory = try TemporaryDirectory() }

  func bytes() throws -> [Data?] {
    [path, path + "-wal"].map { try? Data(contentsOf: URL(fileURLWithPath: $0)) }
  }

  @Test func itShowsTheFileAsItIsAndRefusesEveryWrite() throws {
    let writer = try TasksStore.tasks(path: path)
    try writer.send(.add(title: "Buy milk"))
    try writer.send(.add(title: "Call Alice"))
    try writer.send(.select(id: 2))
    // The tool deletes the selected task: the selection now dangles until an app repairs it.
    try RewindDatabase(path: path).undo()
    let before = try bytes()

    let viewer = try TasksStore.tasks(path: path, readOnly: true)
    #expect(viewer.isReadOnly)
    #expect(viewer.state.tasks.values.map(\.title) == ["Buy milk"])
    #expect(viewer.state.view.selection == 2)  // as the file holds it: repairing is a write
    #expect(viewer.lastSeq == 5)
    for attempt in [
      { _ = try viewer.send(.add(title: "x")) }, { _ = try viewer.undo() }, { _ = try viewer.jump(to: 2) },
    ] as [() throws -> Void] {
      do {
        try attempt()
        Issue.record("a read-only store wrote")
      } catch let error as RewindError {
        #expect(error.code == .readOnly)
        #expect(error.message == "\(path) was opened read-only; open it for writing to change it")
      }
    }
    #expect(viewer.state.tasks.count == 1)  // the refused send left memory as the file holds it
    #expect(try bytes() == before)

    // It follows other writers when asked.
    try writer.send(.add(title: "Write report"))
    try viewer.reload()
    #expect(viewer.state.tasks.values.map(\.title).sorted() == ["Buy milk", "Write report"])
    #expect(viewer.lastSeq == writer.lastSeq)
  }

  @Test func itNeitherCreatesNorUpgradesAFile() throws {
    do {
      _ = try TasksStore.tasks(path: path, readOnly: true)
      Issue.record("a read-only store opened a missing file")
    } catch let error as RewindError {
      #expect(error.code == .fileNotFound)
    }
    #expect(!FileManager.default.fileExists(atPath: path))
    // A file of release 0.1 needs an engine migration: the viewer runs it on a copy in memory.
    let fixture = ReleaseFixtureTests.fixtures.appendingPathComponent("release-0.1.sqlite").path
    let release = directory.path("release-0.1.sqlite")
    let upgraded = directory.path("upgraded.sqlite")
    try FileManager.default.copyItem(atPath: fixture, toPath: release)
    try FileManager.default.copyItem(atPath: fixture, toPath: upgraded)
    let before = try Data(contentsOf: URL(fileURLWithPath: release))
    let viewer = try TasksStore.tasks(path: release, readOnly: true)
    let writer = try TasksStore.tasks(path: upgraded)
    #expect(viewer.lastSeq == 26 && viewer.lastSeq == writer.lastSeq)  // 25, 26: the app's upgrades, in memory
    #expect(viewer.state == writer.state)
    #expect(throws: RewindError.self) { try viewer.undo() }
    #expect(try Data(contentsOf: URL(fileURLWithPath: release)) == before)
    let migrations = try DatabaseQueue(path: release).read {
      try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations")
    }
    #expect(migrations == ["0001_engine", "0002_history", "0003_snapshots"])  // still release 0.1's schema
  }
}
