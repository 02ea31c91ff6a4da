import ArgumentParser
import Foundation
import Rewind
import TasksExample

struct Import: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Add the tasks of a JSON file, read by an async effect.",
    discussion: """
      The file is a JSON array of tasks: [{"title": "Buy milk"}, {"title": "Call Bob", "done": true}]. \
      The request (import status: loading) and its result (the tasks, or the failure) are two \
      log entries; `show` shows the status. Undo removes the imported tasks in one step.
      """)
  @ParentCommand var root: TasksCommand
  @Argument(help: "The JSON file.") var file: String

  func run() async throws {
    let output = try await Task { @MainActor in
      let store = try root.openStore()
      defer { store.waitForSnapshots() }
      return try await run(on: store)
    }.value
    print(output)
  }

  /// Sends the request, waits for the effect, and says how it ended.
  @MainActor func run(on store: TasksStore) async throws -> String {
    try store.send(.importFile(path: file))
    await store.finishEffects()
    switch store.state.view.importStatus.phase {
    case .loaded(let summary):
      return
        "\(store.lastSeq) importFinished (\(summary.count) task\(summary.count == 1 ? "" : "s") from \(summary.file))"
    case .failed(let message):
      throw CLIError("import failed: \(message)")
    case .idle, .loading:
      throw CLIError("import did not finish")
    }
  }
}
