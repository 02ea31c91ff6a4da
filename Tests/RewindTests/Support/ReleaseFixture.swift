import Foundation
import Testing

@testable import Rewind
@testable import TasksExample

/// The files `scripts/make-release-fixture` wrote for one release: its database, what it
/// exported at every seq (`NAME-exports/at-K.json`) and after each of four undos
/// (`NAME-undos/undo-N.json`).
struct ReleaseFixture {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures")

  /// `release-0.4`, say.
  let name: String

  /// A writable copy of the release's database in a fresh directory, which lives as long as
  /// the returned value.
  func copy() throws -> (TemporaryDirectory, String) {
    let directory = try TemporaryDirectory()
    let path = directory.path("\(name).sqlite")
    try FileManager.default.copyItem(
      atPath: Self.directory.appendingPathComponent("\(name).sqlite").path, toPath: path)
    return (directory, path)
  }

  /// The text of one of its files: `exports/at-3.json` or `undos/undo-1.json`.
  func text(_ file: String) throws -> String {
    try String(contentsOf: Self.directory.appendingPathComponent("\(name)-\(file)"), encoding: .utf8)
  }

  /// The seqs the release exported: every entry of its session.
  func exportedSeqs() throws -> [Int64] {
    try FileManager.default.contentsOfDirectory(atPath: Self.directory.appendingPathComponent("\(name)-exports").path)
      .compactMap { Int64($0.replacingOccurrences(of: "at-", with: "").replacingOccurrences(of: ".json", with: "")) }
      .sorted()
  }

  /// The upgraded file goes on: a project and its task, deleted and undone, leave the state as
  /// it was and the file healthy.
  @MainActor
  static func expectTheFileGoesOn(_ store: Store<TasksState, TasksAction>, _ database: RewindDatabase) throws {
    try store.send(.addProject(name: "Home"))
    let project = try #require(store.state.projects.ids.max())
    try store.send(.add(title: "Sweep", project: project))
    let before = store.state
    try store.send(.deleteProject(id: project))
    try store.undo()
    #expect(store.state == before)
    #expect(try database.verify().problems == [])
  }
}
