import ArgumentParser
import Foundation
import Rewind
import TasksExample

struct Demo: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Create a database with a short scripted session and say what to look at next.",
    discussion: """
      Writes demo.sqlite unless --db names another file. An existing Rewind database at that \
      path is replaced; any other existing file is left alone and the demo stops.
      """)
  @ParentCommand var root: TasksCommand

  /// The scripted session, as `tasks` commands.
  static let script: [String] = [
    #"add "Buy milk""#,
    #"add "Write report""#,
    #"add "Call Alice""#,
    "toggle 1",
    "favorite 2",
    "move 3 0",
    "select 2",
    #"append 2 " by Friday""#,
    "edit on",
    "scroll 120",
    #"present new-task --draft "Plan the trip""#,
  ]

  func run() async throws {
    let path = root.db ?? "demo.sqlite"
    try await Task { @MainActor in
      try Self.replaceExistingDemo(at: path)
      let store = try root.openStore(path: path)
      defer { store.waitForSnapshots() }
      for line in Self.script {
        let result = await Shell.execute(line, on: store)
        print("$ tasks \(line)\n  -> seq \(result)")
        if result.hasPrefix("error:") { throw ExitCode.failure }
      }
      print("\n" + store.state.render())
      print(
        """

        The session is in \(path). Look at it with no app code:
          sqlite3 \(path) 'select id, title, done from tasks'
          sqlite3 \(path) "select list, position, id from list_entries order by list, position"
          sqlite3 \(path) 'select path, value from view_state'
          sqlite3 \(path) 'select seq, action, payload from action_log'
        Then change it and look again:
          swift run tasks --db \(path) toggle 2
          swift run tasks --db \(path) show
        """)
    }.value
  }

  /// Removes a previous demo database; refuses to touch any other file.
  @MainActor static func replaceExistingDemo(at path: String) throws {
    guard FileManager.default.fileExists(atPath: path) else { return }
    _ = try TasksStore.tasks(path: path)  // Throws unless it is a Rewind database.
    for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
      try FileManager.default.removeItem(atPath: path + suffix)
    }
  }
}
