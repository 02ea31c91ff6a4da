extension TasksState {
  /// The screen as text: the list (search filter and settings applied) with done and favorite
  /// marks and the selection, then edit mode, the detail pane, the modal and the last import.
  public func render() -> String {
    var lines: [String] = []
    let visible = visibleTasks
    var header = "Tasks: \(tasks.count) (\(remainingCount) to do)"
    if !list.searchText.isEmpty {
      header += ", search \"\(list.searchText)\" shows \(visible.count)"
    }
    if !settings.showCompleted { header += ", done tasks hidden" }
    lines.append(header)
    if visible.isEmpty {
      lines.append(tasks.isEmpty ? "  (no tasks)" : "  (no task matches)")
    }
    func appendLine(_ task: TaskItem, indent: String = "") {
      let cursor = view.selection == task.id ? ">" : " "
      let done = task.isDone ? "[x]" : "[ ]"
      let star = favorited.contains(task.id) ? " *" : ""
      let handle = list.isEditing ? " =" : ""
      lines.append("\(indent)\(cursor) \(task.id). \(done) \(task.title)\(star)\(handle)")
      if !task.notes.isEmpty { lines.append("\(indent)      notes: \(task.notes)") }
    }
    // Tasks with no project in the list's order, then each project's tasks in its own order.
    for task in visible where projects.isEmpty || task.projectID == nil { appendLine(task) }
    let visibleIDs = Set(visible.map(\.id))
    for id in projects.ids.sorted() {
      let (project, members) = (projects[id]!, projectTasks[id])
      let cursor = view.selectedProject == id ? ">" : " "
      lines.append("\(cursor) Project \(id). \(project.name): \(members.count) task\(members.count == 1 ? "" : "s")")
      for member in members where visibleIDs.contains(member) { appendLine(tasks[member]!, indent: "    ") }
    }
    lines.append("Edit mode: \(list.isEditing ? "on" : "off")    Scroll: \(formatted(list.scrollOffset))")
    if let task = selectedTask {
      let position = allTasks.firstIndex(of: task.id).map { "\($0 + 1) of \(allTasks.count)" } ?? "-"
      lines.append(
        "Detail: #\(task.id) \"\(task.title)\", \(task.isDone ? "done" : "to do"), "
          + "\(favorited.contains(task.id) ? "favorite" : "not favorite"), position \(position)")
    } else {
      lines.append("Detail: nothing selected")
    }
    switch view.modal {
    case nil: lines.append("Modal: none")
    case .newTask(let draft)?: lines.append("Modal: new task, draft title \"\(draft)\"")
    case .settings?: lines.append("Modal: settings (show completed: \(settings.showCompleted ? "on" : "off"))")
    }
    switch view.importStatus.phase {
    case .idle: break
    case .loading: lines.append("Import: loading...")
    case .loaded(let summary):
      lines.append("Import: \(summary.count) task\(summary.count == 1 ? "" : "s") from \(summary.file)")
    case .failed(let message): lines.append("Import: failed: \(message)")
    }
    return lines.joined(separator: "\n")
  }

  private func formatted(_ value: Double) -> String {
    // Int(exactly:) is nil past Int's range (1e19), where Int(_:) would trap.
    value == value.rounded() ? Int(exactly: value).map(String.init) ?? String(value) : String(value)
  }
}
