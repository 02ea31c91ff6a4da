import ArgumentParser
import CommandLineSupport
import Foundation
import Rewind
import TasksExample

@main
struct TasksCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tasks",
    abstract: "The Rewind example app: a task list whose every action lands in SQLite.",
    discussion: """
      Each invocation is a new process that opens the database, sends one action and commits it.
      Run `tasks demo` for a scripted session, then look at the file with `sqlite3`.
      """,
    version: rewindVersion,
    subcommands: [
      Add.self, Rename.self, Append.self, Note.self, Toggle.self, Delete.self, Move.self, Favorite.self,
      ProjectCommand.self,
      Select.self, Edit.self, Search.self, Scroll.self, Present.self, Dismiss.self,
      Draft.self, ShowCompleted.self, Import.self,
      Undo.self, Redo.self, History.self, Jump.self,
      Show.self, Demo.self, Shell.self,
    ]
  )

  @Option(
    name: .long,
    help: ArgumentHelp("The database file (default: tasks.sqlite; demo.sqlite for demo).", valueName: "path"))
  var db: String?

  @Option(
    help: ArgumentHelp(
      "normal: every acknowledged action survives the app being killed; full: also power loss, at an fsync per action.",
      valueName: "normal|full"))
  var durability: DurabilityOption = .normal

  var databasePath: String { db ?? "tasks.sqlite" }

  static func main() async { await runCommandLine(optionsTakingValues: ["--db", "--durability"]) }

  /// Opens the example app's store as the options say; read-only for commands that only read.
  @MainActor func openStore(path: String? = nil, readOnly: Bool = false) throws -> TasksStore {
    try TasksStore.tasks(path: path ?? databasePath, durability: durability.value, readOnly: readOnly)
  }
}

enum DurabilityOption: String, ExpressibleByArgument, CaseIterable {
  case normal, full
  var value: Durability { self == .normal ? .normal : .full }
}

/// A subcommand that opens the store named by `--db`.
protocol StoreCommand: AsyncParsableCommand, Sendable {
  var root: TasksCommand { get }
  /// Does the command's work on an open store and returns what to print.
  @MainActor func run(on store: TasksStore) throws -> String
  /// Whether the command only reads: on a file the user may only read (or that does not
  /// exist) it opens it read-only, and never changes it. On a file it may write, it opens it as
  /// the app does, which writes only what opening needs: upgrading a file of an earlier
  /// version, or repairing its view state.
  static var onlyReads: Bool { get }
}

extension StoreCommand {
  static var onlyReads: Bool { false }

  func run() async throws {
    // The store lives on the main actor; ArgumentParser runs commands elsewhere.
    let readOnly = Self.onlyReads && !RewindDatabase.canWrite(root.databasePath)
    let output = try await Task { @MainActor in
      let store = try root.openStore(readOnly: readOnly)
      // The process ends next: let an automatic snapshot the command started be stored.
      defer { store.waitForSnapshots() }
      return try run(on: store)
    }.value
    print(output)
  }
}

/// A subcommand that writes a log entry (an action, an undo, a jump) and prints one line: the
/// new entry's seq and name.
protocol WritingCommand: StoreCommand {}

/// A subcommand that sends one action.
protocol ActionCommand: WritingCommand {
  /// The action to send; throws when it names a task that does not exist.
  func action(in state: TasksState) throws -> TasksAction
}

extension ActionCommand {
  @MainActor func run(on store: TasksStore) throws -> String {
    let action = try action(in: store.state)
    guard let seq = try store.send(action) else { return "- \(action.name): no change, nothing logged" }
    return "\(seq) \(action.name)"
  }
}

/// A task id that must exist; the error names the ids there are.
func existing(_ id: Int64, in state: TasksState) throws -> Int64 {
  try existing(id, in: state.tasks, kind: "task")
}

/// An id that must be in `table`; the error names the ids there are (the first ten).
func existing<E: Entity>(_ id: Int64, in table: EntityTable<E>, kind: String) throws -> Int64 where E.ID == Int64 {
  guard !table.contains(id: id) else { return id }
  let ids = table.ids.sorted()
  let known =
    switch ids.count {
    case 0: "there are no \(kind)s"
    case 1...10: "the ids are \(ids.map(String.init).joined(separator: ", "))"
    default: "the ids are \(ids.prefix(10).map(String.init).joined(separator: ", ")) and \(ids.count - 10) more"
    }
  throw CLIError("No \(kind) with id \(id): \(known).")
}

/// A command that could not do its work; ArgumentParser prints it on stderr and exits 1.
struct CLIError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
