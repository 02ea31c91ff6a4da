import ArgumentParser
import TasksExample

struct Show: StoreCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the screen: the list, selection, edit mode, detail pane and modal.",
    discussion: "Changes nothing.")
  @ParentCommand var root: TasksCommand
  @MainActor func run(on store: TasksStore) throws -> String {
    store.state.render() + "\nLast seq: \(store.lastSeq)"
  }
}
