import ArgumentParser
import Rewind
import TasksExample

struct Undo: WritingCommand {
  static let configuration = CommandConfiguration(
    abstract: "Revert the last change to the document (view-only actions are skipped).")
  @ParentCommand var root: TasksCommand
  @MainActor func run(on store: TasksStore) throws -> String {
    guard let seq = try store.undo() else { throw CLIError("Nothing to undo.") }
    return "\(seq) undo: reverted \(try store.step(movedBy: seq).map(String.init(describing:)) ?? "a step")"
  }
}

struct Redo: WritingCommand {
  static let configuration = CommandConfiguration(abstract: "Reapply the last undone change.")
  @ParentCommand var root: TasksCommand
  @MainActor func run(on store: TasksStore) throws -> String {
    guard let seq = try store.redo() else { throw CLIError("Nothing to redo.") }
    return "\(seq) redo: reapplied \(try store.step(movedBy: seq).map(String.init(describing:)) ?? "a step")"
  }
}

struct Jump: WritingCommand {
  static let configuration = CommandConfiguration(
    abstract: "Set the state to what it was right after SEQ (a new, undoable log entry).",
    discussion: """
      By default the whole state moves. --document moves the tasks and lists only, keeping the \
      view state; --view moves the view state only, keeping the tasks and lists.
      """)
  @ParentCommand var root: TasksCommand
  @Flag(help: "Move the document only.") var document = false
  @Flag(help: "Move the view state only.") var view = false
  @Argument(help: "A seq from the log (see `sqlite3 tasks.sqlite 'select seq, action from action_log'`).")
  var seq: Int64

  func validate() throws {
    guard !(document && view) else { throw ValidationError("Use --document or --view, not both.") }
  }

  @MainActor func run(on store: TasksStore) throws -> String {
    let timeline: Timeline = document ? .document : view ? .view : .all
    guard let entry = try store.jump(to: seq, timeline: timeline) else {
      return "- jump: already at the state of seq \(seq), nothing logged"
    }
    return "\(entry) jump"
  }
}

struct History: StoreCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the undo and redo stacks.", discussion: "Changes nothing.")
  @ParentCommand var root: TasksCommand
  static var onlyReads: Bool { true }
  @Option(
    parsing: .unconditional, help: ArgumentHelp("How many steps of each stack to show: 0 or more.", valueName: "n"))
  var limit = 10

  func validate() throws {
    guard limit >= 0 else { throw ValidationError("--limit must be 0 or more, not \(limit).") }
  }

  @MainActor func run(on store: TasksStore) throws -> String {
    let stacks = try store.historyStacks(limit: limit)
    func lines(_ steps: [HistoryStep]) -> [String] {
      steps.isEmpty
        ? ["  (empty)"]
        : steps.map { step in "  step \(step.id): \(step)" }
    }
    return
      (["Undo stack (next first):"] + lines(stacks.undo) + ["Redo stack (next first):"]
      + lines(stacks.redo) + [historyLine(store)]).joined(separator: "\n")
  }
}
