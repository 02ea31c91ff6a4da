import ArgumentParser
import Foundation
import RewindUI

struct UI: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ui",
    abstract: "Serve a local web page with the database's timeline, diffs and state at any seq.",
    discussion: """
      Binds to 127.0.0.1 only and prints the page's address, which carries a token: requests \
      without it are refused. The app may keep running on the same file; its new entries appear \
      on the page within a second. The page's buttons (undo, redo, restore, snapshot) write \
      through the same calls as this tool's commands. Stop it with Ctrl-C.
      """)
  @OptionGroup var database: DatabaseArgument
  @Option(help: ArgumentHelp("The port to listen on (default: a free one).", valueName: "port"))
  var port = 0
  @Flag(help: "Open the page in the default browser (xdg-open or open).") var open = false

  func validate() throws {
    guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0...65535, not \(port).") }
  }

  func run() async throws {
    let server = try TimelineServer(path: database.path)
    let path = database.path
    let open = open
    do {
      try await server.run(port: port) { url in
        print("rewind ui: \(path) at \(url.absoluteString)")
        fflush(nil)
        if open { Self.openInBrowser(url) }
      }
    } catch  where "\(error)".contains("Address already in use") {
      throw CLIError("port \(port) is in use: choose another --port, or leave it out for a free one")
    }
  }

  /// Opens the page through a file only this user can read that redirects to it: a URL given
  /// to `xdg-open` would show its token to other users in the process list.
  static func openInBrowser(_ url: URL) {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-ui-\(UUID().uuidString).html")
    let html = #"<!doctype html><meta http-equiv="refresh" content="0; url=\#(url.absoluteString)">"#
    guard
      FileManager.default.createFile(
        atPath: file.path, contents: Data(html.utf8), attributes: [.posixPermissions: 0o600])
    else { return }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    #if os(macOS)
      process.arguments = ["open", file.path]
    #else
      process.arguments = ["xdg-open", file.path]
    #endif
    try? process.run()
    // The browser has read it by then.
    DispatchQueue.global().asyncAfter(deadline: .now() + 30) { try? FileManager.default.removeItem(at: file) }
  }
}
