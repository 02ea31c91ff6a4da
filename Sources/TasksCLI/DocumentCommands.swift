import ArgumentParser
import TasksExample

struct Add: ActionCommand {
  static let configuration = CommandConfiguration(
    abstract: "Add a task at the end of the list (and of its project's list, with --project).")
  @ParentCommand var root: TasksCommand
  @Argument(help: "The task's title.") var title: String
  @Option(help: ArgumentHelp("The project the task belongs to.", valueName: "id")) var project: Int64?
  func action(in state: TasksState) throws -> TasksAction {
    .add(title: title, project: try project.map { try existingProject($0, in: state) })
  }
}

struct Rename: ActionCommand {
  static let configuration = CommandConfiguration(abstract: "Replace a task's title.")
  @ParentCommand var root: TasksCommand
  @Argument(help: "The task's id.") var id: Int64
  @Argument(help: "The new title.") var title: String
  func action(in state: TasksState) throws -> TasksAction {
    .rename(id: try existing(id, in: state), title: title)
  }
}

struct Append: ActionCommand {
  static let configuration = CommandConfiguration(
    abstract: "Type text at the end of a task's title.")
  @ParentCommand var root: TasksCommand
  @Argument(help: "The task's id.") var id: Int64
  @Argument(help: "The text to add.") var text: String
  func action(in state: TasksState) throws -> TasksAction {
    .append(id: try existing(id, in: state), text: text)
  }
}

struct Note: ActionCommand {
  static let configuration = CommandConfiguration(abstract: "Replace a task's notes (empty text clears them).")
  @ParentCommand var root: TasksCommand
  @Argument(help: "The task's id.") var id: Int64
  @Argument(help: "The notes.") var text: String
  func action(in state: TasksState) throws -> TasksAction {
    .note(id: try existing(id, in: state), notes: text)
  }
}

struct Toggle: ActionCommand {
  static let configuration = CommandConfiguration(abstract: "Mark a task done, or not done.")
  @ParentCommand var root: TasksCommand
  @Argument(help: "The task's id.") var id: Int64
  func action(in state: TasksState) throws -> TasksAction { .toggle(id: try existing(id, in: state)) }
}

struct Delete: ActionCommand {
  static let configuration = CommandConfiguration(abstract: "Delete a task.")
  @ParentCommand var root: TasksCommand
  @Argument(help: "The task's id.") var id: Int64
  func action(in state: TasksState) throws -> TasksAction { .delete(id: try existing(id, in: state)) }
}

struct Move: ActionCommand {
  static let configuration = CommandConfiguration(
    abstract: "Move a task to a position in its project's list, or in the list when it has no project (0 is the top).")
  @ParentCommand var root: TasksCommand
  @Argument(help: "The task's id.") var id: Int64
  @Argument(help: "Its new position: 0 is the top, the number of tasks minus 1 the bottom.") var position: Int
  func action(in state: TasksState) throws -> TasksAction {
    let id = try existing(id, in: state)
    let project = state.tasks[id]?.projectID
    let positions = 0..<(project.map { state.projectTasks[$0].count } ?? state.allTasks.count)
    guard positions.contains(position) else {
      throw CLIError(
        "Position \(position) is out of range: \(project.map { "project \($0)" } ?? "the list") has \(positions.count) task\(positions.count == 1 ? "" : "s"), so positions are \(positions.lowerBound)...\(positions.upperBound - 1)."
      )
    }
    return .move(id: id, to: position)
  }
}

struct Favorite: ActionCommand {
  static let configuration = CommandConfiguration(
    abstract: "Add a task to favorites, or remove it if it is one.")
  @ParentCommand var root: TasksCommand
  @Argument(help: "The task's id.") var id: Int64
  func action(in state: TasksState) throws -> TasksAction {
    .favorite(id: try existing(id, in: state))
  }
}
