import ArgumentParser
import TasksExample

/// `tasks project add|delete|select`: the projects that group tasks.
struct ProjectCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "project",
    abstract: "Add, delete or select a project: a named group of tasks with its own order.",
    subcommands: [ProjectAdd.self, ProjectDelete.self, ProjectSelect.self]
  )
}

struct ProjectAdd: ActionCommand {
  static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a project.")
  @ParentCommand var root: TasksCommand
  @Argument(help: "The project's name.") var name: String
  func action(in state: TasksState) throws -> TasksAction { .addProject(name: name) }
}

struct ProjectDelete: ActionCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete", abstract: "Delete a project and its tasks, in one undoable step.")
  @ParentCommand var root: TasksCommand
  @Argument(help: "The project's id.") var id: Int64
  func action(in state: TasksState) throws -> TasksAction { .deleteProject(id: try existingProject(id, in: state)) }
}

struct ProjectSelect: ActionCommand {
  static let configuration = CommandConfiguration(
    commandName: "select", abstract: "Select a project (view state), or clear the selection with no id.")
  @ParentCommand var root: TasksCommand
  @Argument(help: "The project's id; omit it to clear the selection.") var id: Int64?
  func action(in state: TasksState) throws -> TasksAction {
    .selectProject(id: try id.map { try existingProject($0, in: state) })
  }
}

/// A project id that must exist; the error names the ids there are.
func existingProject(_ id: Int64, in state: TasksState) throws -> Int64 {
  try existing(id, in: state.projects, kind: "project")
}
