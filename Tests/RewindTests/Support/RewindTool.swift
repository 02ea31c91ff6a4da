import Foundation

@testable import Rewind

/// The `rewind` tool built beside the test bundle (`swift test` builds every product).
let rewindToolURL: URL? = {
  var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
  // From `.../debug/RewindPackageTests.xctest` (or a file inside it) up to `.../debug`.
  while url.path != "/" {
    url.deleteLastPathComponent()
    let tool = url.appendingPathComponent("rewind")
    if FileManager.default.isExecutableFile(atPath: tool.path) { return tool }
  }
  return nil
}()

/// Runs the `rewind` tool as a process of its own, for tests of what a user's shell sees: its
/// exit status and what it wrote on stdout and stderr. Throws when the tool is not built.
@discardableResult
func runRewindTool(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
  guard let tool = rewindToolURL else {
    throw RewindError(.fileNotFound, "no rewind executable beside \(CommandLine.arguments[0]): build it (swift build)")
  }
  return try runProcess(tool, arguments)
}
