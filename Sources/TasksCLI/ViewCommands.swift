import ArgumentParser
import TasksExample

struct Select: ActionCommand {
  static let configuration = CommandConfiguration(
    abstract: "Select a task for the detail pane, or `none`.")
  @ParentCommand var root: TasksCommand
  @Argument(help: ArgumentHelp("A task id, or none.", valueName: "id|none")) var target: String
  func action(in state: TasksState) throws -> TasksAction {
    if target == "none" { return .select(id: nil) }
    guard let id = Int64(target) else {
      throw CLIError("Expected a task id or 'none', got '\(target)'.")
    }
    return .select(id: try existing(id, in: state))
  }
}

struct Edit: ActionCommand {
  enum Mode: String, ExpressibleByArgument, CaseIterable { case on, off }
  static let configuration = CommandConfiguration(abstract: "Turn the list's edit mode on or off.")
  @ParentCommand var root: TasksCommand
  @Argument(help: "on or off.") var mode: Mode
  func action(in state: TasksState) throws -> TasksAction { .setEditing(mode == .on) }
}

struct Search: ActionCommand {
  static let configuration = CommandConfiguration(
    abstract: "Filter the list by text (an empty text clears the filter).")
  @ParentCommand var root: TasksCommand
  @Argument(help: "The search text.") var text: String = ""
  func action(in state: TasksState) throws -> TasksAction { .search(text) }
}

struct Scroll: ActionCommand {
  static let configuration = CommandConfiguration(abstract: "Set the list's scroll offset.")
  @ParentCommand var root: TasksCommand
  @Argument(help: ArgumentHelp("The offset, in points: 0 or more.", valueName: "points")) var offset: Double
  func validate() throws {
    guard offset.isFinite, offset >= 0 else {
      throw ValidationError("The offset must be a number of points, 0 or more, not \(offset).")
    }
  }
  func action(in state: TasksState) throws -> TasksAction { .scroll(offset) }
}

struct Present: ActionCommand {
  enum Screen: String, ExpressibleByArgument, CaseIterable {
    case newTask = "new-task"
    case settings
  }
  static let configuration = CommandConfiguration(abstract: "Present a modal screen.")
  @ParentCommand var root: TasksCommand
  @Argument(help: "new-task or settings.") var screen: Screen
  @Option(help: ArgumentHelp("The new-task form's draft title.", valueName: "title")) var draft = ""
  func action(in state: TasksState) throws -> TasksAction {
    switch screen {
    case .newTask: .present(.newTask(draftTitle: draft))
    case .settings: .present(.settings)
    }
  }
}

struct Dismiss: ActionCommand {
  static let configuration = CommandConfiguration(abstract: "Dismiss the presented modal.")
  @ParentCommand var root: TasksCommand
  func action(in state: TasksState) throws -> TasksAction { .dismiss }
}

struct Draft: ActionCommand {
  static let configuration = CommandConfiguration(
    abstract: "Type the new-task form's draft title (while the form is presented).")
  @ParentCommand var root: TasksCommand
  @Argument(help: ArgumentHelp("The draft title.", valueName: "title")) var text: String
  func action(in state: TasksState) throws -> TasksAction {
    guard case .newTask? = state.view.modal else {
      throw CLIError("The new-task form is not presented: run `present new-task` first.")
    }
    return .form(.setDraft(text))
  }
}

struct ShowCompleted: ActionCommand {
  static let configuration = CommandConfiguration(
    commandName: "show-completed", abstract: "Show or hide done tasks in the list (a setting).")
  @ParentCommand var root: TasksCommand
  @Argument(help: "on or off.") var mode: Edit.Mode
  func action(in state: TasksState) throws -> TasksAction { .settings(.setShowCompleted(mode == .on)) }
}
