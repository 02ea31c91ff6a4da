import Foundation
import GRDB
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

  /// The release's file is at engine migration `lastMigration`; this version's tool opens it
  /// (upgrading it), verifies it, and exports every seq as the release did, byte for byte.
  func expectTheToolReadsItAsTheReleaseDid(lastMigration: String) throws {
    let (directory, path) = try copy()
    _ = directory
    let applied = try DatabaseQueue(path: path).read { db in
      try String.fetchAll(db, sql: "SELECT identifier FROM rewind_engine_migrations ORDER BY identifier")
    }
    #expect(applied.last == lastMigration)
    let database = try RewindDatabase(path: path)
    #expect(try database.verify().problems == [])
    #expect(try database.inspect().migrations.last == EngineMigrations.embedded.last?.identifier)
    let seqs = try exportedSeqs()
    #expect(seqs.count >= 20)
    #expect(try database.inspect().lastSeq == seqs.last)
    for seq in seqs {
      #expect(try database.export(at: seq) == (try text("exports/at-\(seq).json")), "export --at \(seq)")
    }
  }

  /// The snapshot labelled `handoff` restores the state the release exported at its seq.
  func expectItsLabelledSnapshotRestores() throws {
    let (directory, path) = try copy()
    _ = directory
    let database = try RewindDatabase(path: path)
    let handoff = try #require(try database.snapshots().first { $0.label == "handoff" })
    try database.restore(snapshot: "handoff")
    #expect(try database.export() == (try text("exports/at-\(handoff.seq).json")))
    #expect(try database.verify().problems == [])
  }

  /// The app opens the file and undoes four times as the release did; then it goes on.
  @MainActor
  func expectTheAppUndoesAsTheReleaseDid() throws {
    let (directory, path) = try copy()
    _ = directory
    let store = try TasksStore.tasks(path: path)
    let database = try RewindDatabase(path: path)
    #expect(try database.verify().problems == [])
    for count in 1...4 {
      try store.undo()
      #expect(try database.export() == (try text("undos/undo-\(count).json")), "undo \(count)")
      #expect(store.state == (try TasksStore.tasks(path: path, readOnly: true).state))
    }
    try Self.expectTheFileGoesOn(store, database)
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
