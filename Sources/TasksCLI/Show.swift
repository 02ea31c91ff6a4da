import ArgumentParser
import TasksExample

struct Show: StoreCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the screen: the list, selection, edit mode, detail pane and modal.",
    discussion: "Changes nothing.")
  @ParentCommand var root: TasksCommand
  static var onlyReads: Bool { true }
  @MainActor func run(on store: TasksStore) throws -> String {
    store.state.render() + "\n" + historyLine(store)
  }
}

/// One line saying where the store is in its history.
@MainActor func historyLine(_ store: TasksStore) -> String {
  "Last seq: \(store.lastSeq)    Undo: \(store.canUndo ? "available" : "none")"
    + "    Redo: \(store.canRedo ? "available" : "none")"
}
