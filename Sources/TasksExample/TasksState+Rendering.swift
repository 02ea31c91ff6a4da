extension TasksState {
  /// The screen as text: the list (search filter applied) with done and favorite marks and the
  /// selection, then edit mode, the detail pane and the modal.
  public func render() -> String {
    var lines: [String] = []
    let visible = visibleTasks
    var header = "Tasks: \(tasks.count) (\(remainingCount) to do)"
    if !view.searchText.isEmpty {
      header += ", search \"\(view.searchText)\" shows \(visible.count)"
    }
    lines.append(header)
    if visible.isEmpty {
      lines.append(tasks.isEmpty ? "  (no tasks)" : "  (no task matches)")
    }
    for task in visible {
      let cursor = view.selection == task.id ? ">" : " "
      let done = task.isDone ? "[x]" : "[ ]"
      let star = favorited.contains(task.id) ? " *" : ""
      let handle = view.isEditing ? " =" : ""
      lines.append("\(cursor) \(task.id). \(done) \(task.title)\(star)\(handle)")
    }
    lines.append("Edit mode: \(view.isEditing ? "on" : "off")    Scroll: \(formatted(view.scrollOffset))")
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
    case .settings?: lines.append("Modal: settings")
    }
    return lines.joined(separator: "\n")
  }

  private func formatted(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(value)
  }
}
