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
    #expect(throws: RewindError.self) { try TasksStore.tasks(path: path, readOnly: true) }
    #expect(!FileManager.default.fileExists(atPath: path))
    // A file of release 0.1 needs an engine migration, which is a write.
    let release = directory.path("release-0.1.sqlite")
    try FileManager.default.copyItem(
      atPath: ReleaseFixtureTests.fixtures.appendingPathComponent("release-0.1.sqlite").path, toPath: release)
    let before = try Data(contentsOf: URL(fileURLWithPath: release))
    do {
      _ = try TasksStore.tasks(path: release, readOnly: true)
      Issue.record("a read-only store opened a file that needs upgrading")
    } catch let error as RewindError {
      #expect(error.code == .readOnly)
      #expect(error.message.contains("must be set up or upgraded for this app before it can be read"))
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: release)) == before)
  }
}
