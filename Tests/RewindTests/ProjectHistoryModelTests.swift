import Foundation
import GRDB
import TasksExample
import Testing

@testable import Rewind

/// The example's projects (a keyed list per project, tasks that cascade with their project)
/// against a plain-Swift model, through random interleavings of actions, undo, redo, jumps,
/// a second store on the file, the tool's restores and imports, reopening and injected write
/// failures. After every step the file (read afresh) equals the model, memory equals it when
/// the store is current, and `PRAGMA foreign_key_check` is empty.
///
/// `REWIND_PROJECT_SEEDS` sets the number of sessions (default 6), `REWIND_PROJECT_STEPS`
/// their length (default 150).
@MainActor
struct ProjectHistoryModelTests {
  nonisolated static let seeds = ProcessInfo.processInfo.environment["REWIND_PROJECT_SEEDS"].flatMap(Int.init) ?? 6
  nonisolated static let steps = ProcessInfo.processInfo.environment["REWIND_PROJECT_STEPS"].flatMap(Int.init) ?? 150

  /// The document, in plain values: what the engine must hold.
  struct Model: Equatable, CustomStringConvertible {
    struct Task: Equatable {
      var title: String
      var done: Bool
      var project: Int64?
    }
    var projects: [Int64: String] = [:]
    var tasks: [Int64: Task] = [:]
    var allTasks: [Int64] = []
    var favorited: [Int64] = []
    /// Non-empty lists only.
    var projectTasks: [Int64: [Int64]] = [:]

    init() {}

    init(_ state: TasksState) {
      for id in state.projects.ids { projects[id] = state.projects[id]!.name }
      for task in state.tasks.values {
        tasks[task.id] = Task(title: task.title, done: task.isDone, project: task.projectID)
      }
      allTasks = state.allTasks.ids
      favorited = state.favorited.ids
      for owner in state.projectTasks.ownersWithLists { projectTasks[owner] = state.projectTasks[owner].ids }
    }

    var description: String {
      "projects \(projects.sorted { $0.key < $1.key }), tasks \(tasks.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value.project.map(String.init) ?? "-")" }), all \(allTasks), favorited \(favorited), lists \(projectTasks.sorted { $0.key < $1.key })"
    }

    static func move(_ id: Int64, to offset: Int, in list: inout [Int64]) {
      guard let index = list.firstIndex(of: id) else { return }
      list.remove(at: index)
      list.insert(id, at: min(max(offset, 0), list.count))
    }

    mutating func removeTask(_ id: Int64) {
      guard let task = tasks.removeValue(forKey: id) else { return }
      allTasks.removeAll { $0 == id }
      favorited.removeAll { $0 == id }
      if let project = task.project {
        projectTasks[project]?.removeAll { $0 == id }
        if projectTasks[project]?.isEmpty == true { projectTasks[project] = nil }
      }
    }

    /// What the engine does for the reducer's `deleteProject`: its tasks, their entries and
    /// its list go with it.
    mutating func removeProject(_ id: Int64) {
      projects[id] = nil
      for (task, row) in tasks where row.project == id { removeTask(task) }
      projectTasks[id] = nil
    }
  }

  @Test(arguments: Array(1...seeds))
  func projectsFollowTheModel(seed: Int) async throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("projects.sqlite")
    var random = SplitMix64(seed: UInt64(seed) &* 7919)
    var store = try TasksStore.tasks(path: path)
    var model = Model()
    var undo: [Model] = []
    var redo: [Model] = []
    var states: [Int64: Model] = [store.lastSeq: model]
    // Whether the store's memory has seen everything (another writer wrote since, if not).
    var current = true

    func document(_ path: String) throws -> Model { Model(try TasksStore.tasks(path: path, readOnly: true).state) }

    /// A step that moves the document: undoable, and it drops the redo stack.
    func step(to new: Model) {
      guard new != model else { return }
      undo.append(model)
      redo = []
      model = new
    }

    for number in 0..<Self.steps {
      var log = ""
      // The store's own writes catch up with what others wrote first; the cases that write
      // through another connection say so.
      let wasCurrent = current
      current = true
      let taskIDs = model.tasks.keys.sorted()
      let projectIDs = model.projects.keys.sorted()
      switch Int.random(in: 0..<20, using: &random) {
      case 0, 1:
        let name = "P\(number)"
        log = "addProject \(name)"
        try store.send(.addProject(name: name))
        var new = model
        for id in store.state.projects.ids where model.projects[id] == nil { new.projects[id] = name }
        step(to: new)
      case 2 where !projectIDs.isEmpty:
        let id = projectIDs.randomElement(using: &random)!
        log = "deleteProject \(id)"
        try store.send(.deleteProject(id: id))
        var new = model
        new.removeProject(id)
        step(to: new)
      case 3, 4, 5:
        // A project that exists, none, or one that does not (the reducer ignores it).
        let project = [projectIDs.randomElement(using: &random), nil, 999].randomElement(using: &random)!
        log = "add to \(project.map(String.init) ?? "-")"
        try store.send(.add(title: "T\(number)", project: project))
        var new = model
        let kept = project.flatMap { model.projects[$0] == nil ? nil : $0 }
        for id in store.state.tasks.ids where model.tasks[id] == nil {
          new.tasks[id] = Model.Task(title: "T\(number)", done: false, project: kept)
          new.allTasks.append(id)
          if let kept { new.projectTasks[kept, default: []].append(id) }
        }
        step(to: new)
      case 6 where !taskIDs.isEmpty:
        let id = taskIDs.randomElement(using: &random)!
        log = "delete \(id)"
        try store.send(.delete(id: id))
        var new = model
        new.removeTask(id)
        step(to: new)
      case 7...8 where !taskIDs.isEmpty:
        let id = taskIDs.randomElement(using: &random)!
        let offset = Int.random(in: 0..<4, using: &random)
        log = "move \(id) to \(offset)"
        try store.send(.move(id: id, to: offset))
        var new = model
        if let project = model.tasks[id]?.project {
          Model.move(id, to: offset, in: &new.projectTasks[project, default: []])
        } else {
          Model.move(id, to: offset, in: &new.allTasks)
        }
        step(to: new)
      case 9 where !taskIDs.isEmpty:
        let id = taskIDs.randomElement(using: &random)!
        log = "favorite \(id)"
        try store.send(.favorite(id: id))
        var new = model
        if new.favorited.contains(id) { new.favorited.removeAll { $0 == id } } else { new.favorited.append(id) }
        step(to: new)
      case 10, 11:
        log = "undo"
        let seq = try store.undo()
        #expect((seq != nil) == !undo.isEmpty, "seed \(seed) step \(number): undo")
        if seq != nil {
          redo.append(model)
          model = undo.removeLast()
        }
      case 12:
        log = "redo"
        let seq = try store.redo()
        #expect((seq != nil) == !redo.isEmpty, "seed \(seed) step \(number): redo")
        if seq != nil {
          undo.append(model)
          model = redo.removeLast()
        }
      case 13:
        let seq = states.keys.sorted().randomElement(using: &random)!
        log = "jump \(seq)"
        try store.jump(to: seq)
        step(to: states[seq]!)
      case 14:
        // The tool, with no app code: the store catches up when it next writes.
        let seq = states.keys.sorted().randomElement(using: &random)!
        log = "rewind restore --to \(seq)"
        try RewindDatabase(path: path).restore(to: seq)
        step(to: states[seq]!)
        current = false
      case 15:
        let seq = states.keys.sorted().randomElement(using: &random)!
        log = "rewind import of export --at \(seq)"
        let database = try RewindDatabase(path: path)
        try database.importState(try database.export(at: seq))
        step(to: states[seq]!)
        current = false
      case 16:
        // Another process's store adds a task to a project.
        let other = try TasksStore.tasks(path: path)
        let project = projectIDs.randomElement(using: &random)
        log = "other store adds to \(project.map(String.init) ?? "-")"
        try other.send(.add(title: "O\(number)", project: project))
        var new = model
        for id in other.state.tasks.ids where model.tasks[id] == nil {
          new.tasks[id] = Model.Task(title: "O\(number)", done: false, project: project)
          new.allTasks.append(id)
          if let project { new.projectTasks[project, default: []].append(id) }
        }
        step(to: new)
        current = false
      case 17:
        log = "reopen"
        store = try TasksStore.tasks(path: path)
        current = true
      case 18 where !projectIDs.isEmpty:
        // A write that fails at the log insert: nothing changes, memory included.
        log = "injected failure"
        try execute(
          "CREATE TRIGGER injected BEFORE INSERT ON action_log BEGIN SELECT RAISE(ABORT, 'injected'); END", on: path)
        #expect(throws: (any Error).self) { try store.send(.deleteProject(id: projectIDs[0])) }
        try execute("DROP TRIGGER injected", on: path)
      default:
        current = wasCurrent
        continue
      }
      let file = try document(path)
      #expect(file == model, "seed \(seed) step \(number) (\(log)): the file holds \(file), the model \(model)")
      if current {
        #expect(Model(store.state) == model, "seed \(seed) step \(number) (\(log)): memory differs from the model")
      }
      let problems = try foreignKeyProblems(path)
      #expect(problems.isEmpty, "seed \(seed) step \(number) (\(log)): \(problems)")
      let seq = try RewindDatabase(path: path).position().lastSeq
      states[seq] = model
      await Task.yield()
    }
    let report = try RewindDatabase(path: path).verify()
    #expect(report.isHealthy, "seed \(seed): \(report.problems)")
  }
}

/// Runs `sql` on its own connection to `path`, as another process would.
private func execute(_ sql: String, on path: String) throws {
  try DatabaseQueue(path: path).write { try $0.execute(sql: sql) }
}

private func foreignKeyProblems(_ path: String) throws -> [Row] {
  try DatabaseQueue(path: path).read { try Row.fetchAll($0, sql: "PRAGMA foreign_key_check") }
}
