import ArgumentParser
import CommandLineSupport
import Foundation
import Rewind

@main
struct RewindCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rewind",
    abstract: "Inspect, rewind and restore Rewind databases, with no app code.",
    discussion: """
      A Rewind database holds an app's entities, order lists and view state in plain tables, \
      and every action in action_log with the row changes it made. This tool reads and \
      rewinds that history from the file alone. Changes it makes (undo, redo, restore, \
      import) are log entries too, so the app can undo them.

      Examples:
        rewind inspect tasks.sqlite
        rewind log tasks.sqlite --last 5
        rewind restore tasks.sqlite --to 12
        rewind export tasks.sqlite --at 12 -o state.json
        rewind verify tasks.sqlite
        rewind rebuild-tables tasks.sqlite
        rewind backup tasks.sqlite copy.sqlite

      inspect, log, snapshots, export, verify and backup open the file read-only: they work on \
      a read-only file or folder and never change the database.
      """,
    version: rewindVersion,
    subcommands: [
      Inspect.self, Log.self, Undo.self, Redo.self, Snapshot.self, Snapshots.self, Restore.self,
      Export.self, Import.self, Verify.self, RebuildTables.self, Compact.self, Backup.self, UI.self,
    ]
  )

  static func main() async { await runCommandLine() }
}

/// The database argument every command takes.
struct DatabaseArgument: ParsableArguments {
  @Argument(help: ArgumentHelp("The Rewind database file.", valueName: "database"))
  var path: String

  /// Opens the database for writing.
  func open() throws -> RewindDatabase { try RewindDatabase(path: path) }
  /// Opens the database read-only: nothing is written, and a read-only file or folder works.
  func openForReading() throws -> RewindDatabase { try RewindDatabase(path: path, readOnly: true) }
}

/// Progress on stderr, only when stderr is a terminal.
struct Progress {
  let label: String
  let enabled = isatty(STDERR_FILENO) == 1

  func report(_ done: Int, _ total: Int) {
    guard enabled else { return }
    FileHandle.standardError.write(Data("\r\(label): \(done)/\(total)".utf8))
    if done >= total { FileHandle.standardError.write(Data("\n".utf8)) }
  }
}

/// A failure the tool reports on stderr with a non-zero exit.
struct CLIError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
