import Foundation
import GRDB
import Testing

@testable import Rewind

// Review of issue 12: a chain projects → tasks → notes (both ON DELETE CASCADE, no cycle),
// users referred to twice by tasks (owner, reviewer: both SET NULL), tasks ordered per project
// and notes per task (keyed families), and a fixed list of starred tasks.

struct RVProject: Entity {
  static let databaseTableName = "rvProjects"
  var id: Int64
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in t.primaryKey("id", .integer) }
  }
}

struct RVUser: Entity {
  static let databaseTableName = "rvUsers"
  var id: Int64
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in t.primaryKey("id", .integer) }
  }
}

struct RVTask: Entity {
  static let databaseTableName = "rvTasks"
  var id: Int64
  var projectId: Int64
  var ownerId: Int64?
  var reviewerId: Int64?
  var title = ""
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("projectId", .integer).notNull().indexed().references("rvProjects", column: "id", onDelete: .cascade)
      t.column("ownerId", .integer).indexed().references("rvUsers", column: "id", onDelete: .setNull)
      t.column("reviewerId", .integer).indexed().references("rvUsers", column: "id", onDelete: .setNull)
      t.column("title", .text).notNull()
    }
  }
}

struct RVNote: Entity {
  static let databaseTableName = "rvNotes"
  var id: Int64
  var taskId: Int64
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("taskId", .integer).notNull().indexed().references("rvTasks", column: "id", onDelete: .cascade)
    }
  }
}

struct RVState: PersistentState, Equatable {
  var projects = EntityTable<RVProject>()
  var users = EntityTable<RVUser>()
  var tasks = EntityTable<RVTask>()
  var notes = EntityTable<RVNote>()
  var projectTasks = OrderedIDLists<Int64, Int64>()
  var taskNotes = OrderedIDLists<Int64, Int64>()
  var starred = OrderedIDList<Int64>()

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.projects), .entities(\.users), .entities(\.tasks), .entities(\.notes),
      .lists(\.projectTasks, named: "projectTasks", of: RVTask.self, ownedBy: RVProject.self),
      .lists(\.taskNotes, named: "taskNotes", of: RVNote.self, ownedBy: RVTask.self),
      .list(\.starred, named: "starred", of: RVTask.self))
  }
}

enum RVOp: Codable, Equatable, Sendable {
  case addProject(Int64)
  case deleteProject(Int64)
  case addUser(Int64)
  case deleteUser(Int64)
  case addTask(Int64, project: Int64, owner: Int64?, reviewer: Int64?)
  case renameTask(Int64, String)
  case deleteTask(Int64)
  case addNote(Int64, task: Int64)
  case addUnlistedNote(Int64, task: Int64)
  case star(Int64)
  case setList(project: Int64, [Int64])
  case removeList(project: Int64)
  case moveTask(Int64, project: Int64)
}

enum RVAction: LoggedAction, Equatable {
  case batch([RVOp])
}

struct RVReducer: Reducer {
  func reduce(into state: inout RVState, action: RVAction) -> Effect<RVAction> {
    guard case .batch(let ops) = action else { return .none }
    for op in ops {
      switch op {
      case .addProject(let id): state.projects.insert(RVProject(id: id))
      case .deleteProject(let id): state.projects.remove(id: id)
      case .addUser(let id): state.users.insert(RVUser(id: id))
      case .deleteUser(let id): state.users.remove(id: id)
      case .addTask(let id, let project, let owner, let reviewer):
        state.tasks.insert(RVTask(id: id, projectId: project, ownerId: owner, reviewerId: reviewer))
        state.projectTasks[project].append(id)
      case .renameTask(let id, let title): state.tasks[id]?.title = title
      case .deleteTask(let id): state.tasks.remove(id: id)
      case .addNote(let id, let task):
        state.notes.insert(RVNote(id: id, taskId: task))
        state.taskNotes[task].append(id)
      case .addUnlistedNote(let id, let task): state.notes.insert(RVNote(id: id, taskId: task))
      case .star(let id): state.starred.append(id)
      case .setList(let project, let ids): state.projectTasks[project] = OrderedIDList(ids)
      case .removeList(let project): state.projectTasks.removeList(of: project)
      case .moveTask(let id, let project):
        state.tasks[id]?.projectId = project
        state.projectTasks[project].append(id)
      }
    }
    return .none
  }
}

@MainActor
struct ReviewCascadeTests {
  let directory: TemporaryDirectory
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("review.sqlite")
  }

  func open() throws -> Store<RVState, RVAction> {
    try Store(path: path, initialState: RVState(), reducer: RVReducer())
  }

  func fileState() throws -> RVState { try open().state }

  func foreignKeyProblems() throws -> [Row] {
    try DatabaseQueue(path: path).read { try Row.fetchAll($0, sql: "PRAGMA foreign_key_check") }
  }

  /// Two SET NULL references from one row to the same parent: both columns must be cleared,
  /// in memory, in the file and in the log.
  @Test func twoSetNullReferencesToTheSameParent() throws {
    let store = try open()
    try store.send(.batch([.addProject(1), .addUser(7), .addTask(10, project: 1, owner: 7, reviewer: 7)]))
    try store.send(.batch([.deleteUser(7)]))
    let file = try fileState()
    #expect(file.tasks[10]?.ownerId == nil)
    #expect(file.tasks[10]?.reviewerId == nil)
    #expect(store.state.tasks[10]?.ownerId == nil, "memory: \(String(describing: store.state.tasks[10]))")
    #expect(store.state.tasks[10]?.reviewerId == nil, "memory: \(String(describing: store.state.tasks[10]))")
    #expect(store.state == file)
    let report = try RewindDatabase(path: path).verify()
    #expect(report.isHealthy, "\(report.problems)")
    try store.undo()
    #expect(store.state.tasks[10]?.ownerId == 7 && store.state.tasks[10]?.reviewerId == 7)
    #expect(try fileState() == store.state)
  }

  /// A child inserted by the action that the same action's delete cascades to: its own
  /// children (also inserted by the action) must go with it, in the log and in memory.
  @Test func aCascadeThroughARowTheActionInserted() throws {
    let store = try open()
    try store.send(.batch([.addProject(1)]))
    try store.send(
      .batch([.addTask(10, project: 1, owner: nil, reviewer: nil), .addNote(100, task: 10), .deleteProject(1)]))
    let file = try fileState()
    #expect(file.notes.isEmpty)
    #expect(store.state.notes.isEmpty, "memory still holds \(store.state.notes.ids)")
    #expect(store.state == file)
    #expect(try foreignKeyProblems().isEmpty)
    let report = try RewindDatabase(path: path).verify()
    #expect(report.isHealthy, "\(report.problems)")
  }

  /// The same with the grandchild in no list: nothing refuses it, SQLite deletes it unlogged.
  @Test func aCascadeThroughARowTheActionInsertedSilently() throws {
    let store = try open()
    try store.send(.batch([.addProject(1)]))
    try store.send(
      .batch([.addTask(10, project: 1, owner: nil, reviewer: nil), .addUnlistedNote(100, task: 10), .deleteProject(1)]))
    let file = try fileState()
    #expect(file.notes.isEmpty)
    #expect(store.state.notes.isEmpty, "memory still holds notes \(Array(store.state.notes.ids))")
    let report = try RewindDatabase(path: path).verify()
    #expect(report.isHealthy, "\(report.problems)")
  }

  /// Same, where the cascaded new child is in a fixed list: refused instead of cascaded.
  @Test func aCascadeThroughARowTheActionInsertedAndStarred() throws {
    let store = try open()
    try store.send(.batch([.addProject(1)]))
    #expect(throws: Never.self) {
      try store.send(.batch([.addTask(10, project: 1, owner: nil, reviewer: nil), .star(10), .deleteProject(1)]))
    }
    #expect(try fileState() == store.state)
  }

  /// An import whose file keeps a task but drops its project: the task is in the file, so
  /// the import must be refused, not cascade the task away behind the file's back.
  @Test func anImportDroppingAParentButKeepingItsChild() throws {
    let store = try open()
    try store.send(.batch([.addProject(1), .addProject(2), .addTask(10, project: 1, owner: nil, reviewer: nil)]))
    let database = try RewindDatabase(path: path)
    let export = try database.export()
    // Drop project 1 (and its list), keep task 10.
    let edited =
      export
      .replacingOccurrences(of: #"{"id":1},"#, with: "")
      .replacingOccurrences(of: #"{"owner":1,"ids":[10]}"#, with: "")
    #expect(edited != export)
    let rows = try dump(path)
    let error = #expect(throws: RewindError.self) { try database.importState(edited) }
    #expect(error?.code == .invalidImport, "\(String(describing: error))")
    #expect(error?.message.contains(#"rvTasks {"id":10}"#) == true, "\(String(describing: error))")
    #expect(try dump(path) == rows)
  }

  /// The keyed-list setter: a task moved from one project's list into another's via `=`.
  @Test func setterMovesBetweenOwners() throws {
    let store = try open()
    try store.send(
      .batch([
        .addProject(1), .addProject(2), .addTask(10, project: 1, owner: nil, reviewer: nil),
        .addTask(11, project: 1, owner: nil, reviewer: nil),
      ]))
    try store.send(.batch([.setList(project: 2, [11, 10]), .removeList(project: 1), .setList(project: 1, [10])]))
    #expect(store.state.projectTasks[1].ids == [10])
    #expect(store.state.projectTasks[2].ids == [11])
    #expect(try fileState() == store.state)
    try store.undo()
    #expect(store.state.projectTasks[1].ids == [10, 11])
    #expect(store.state.projectTasks[2].ids == [])
    #expect(try fileState() == store.state)
  }

  /// Moving a task (row and list entry) to another project and deleting the old one, in one
  /// action, then undo/redo/jump/restore around it.
  @Test func moveThenDeleteOldOwnerThenHistory() throws {
    let store = try open()
    try store.send(
      .batch([
        .addProject(1), .addProject(2), .addUser(7), .addTask(10, project: 1, owner: 7, reviewer: 7),
        .addTask(11, project: 1, owner: nil, reviewer: 7), .addNote(100, task: 11),
      ]))
    let seeded = store.lastSeq
    let before = store.state
    try store.send(.batch([.moveTask(10, project: 2), .deleteProject(1)]))
    #expect(store.state.tasks.ids.sorted() == [10])
    #expect(store.state.projectTasks[2].ids == [10])
    #expect(store.state.notes.isEmpty && store.state.taskNotes.count == 0)
    #expect(try fileState() == store.state)
    try store.send(.batch([.deleteUser(7)]))
    let after = store.state
    #expect(try fileState() == after)
    try store.jump(to: seeded)
    #expect(store.state == before)
    #expect(try fileState() == before)
    try store.undo()  // the jump
    #expect(store.state == after)
    try store.undo()
    try store.undo()
    #expect(store.state == before)
    #expect(try fileState() == before)
    try store.redo()
    try store.redo()
    #expect(store.state == after)
    let database = try RewindDatabase(path: path)
    try database.restore(to: seeded)
    #expect(try fileState() == before)
    #expect(try foreignKeyProblems().isEmpty)
    let report = try database.verify()
    #expect(report.isHealthy, "\(report.problems)")
  }

  /// Two stores on one file: one cascades, the other catches up before its next action.
  @Test func twoStoresOneCascades() throws {
    let a = try open()
    let b = try open()
    try a.send(
      .batch([.addProject(1), .addUser(7), .addTask(10, project: 1, owner: 7, reviewer: nil), .addNote(100, task: 10)]))
    try b.send(.batch([.addProject(2)]))
    try a.send(.batch([.deleteProject(1)]))
    try b.send(.batch([.addProject(3)]))
    #expect(b.state == (try fileState()))
    try b.undo()
    try b.undo()  // undoes a's delete: project 1, task 10, note 100 come back
    #expect(Array(b.state.notes.ids) == [100])
    #expect(try fileState() == b.state)
    try a.send(.batch([.addUser(8)]))
    #expect(a.state == (try fileState()))
  }
}

// A self-reference that restricts, and a reference that names its parent table in another case
// (SQLite resolves names case-insensitively).

struct RVComment: Entity {
  static let databaseTableName = "rvComments"
  var id: Int64
  var replyTo: Int64?
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("replyTo", .integer).indexed().references("rvComments", column: "id", onDelete: .restrict)
    }
  }
}

struct RVTag: Entity {
  static let databaseTableName = "rvTags"
  var id: Int64
  var projectId: Int64
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      // "rvprojects": the table is rvProjects.
      t.column("projectId", .integer).notNull().indexed().references("rvprojects", column: "id", onDelete: .cascade)
    }
  }
}

struct RV2State: PersistentState, Equatable {
  var projects = EntityTable<RVProject>()
  var tags = EntityTable<RVTag>()
  var comments = EntityTable<RVComment>()
  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.projects), .entities(\.tags), .entities(\.comments))
  }
}

enum RV2Action: LoggedAction, Equatable {
  case addProject(Int64)
  case deleteProject(Int64)
  case addTag(Int64, project: Int64)
  case addComment(Int64, replyTo: Int64?)
  case deleteComments([Int64])
}

struct RV2Reducer: Reducer {
  func reduce(into state: inout RV2State, action: RV2Action) -> Effect<RV2Action> {
    switch action {
    case .addProject(let id): state.projects.insert(RVProject(id: id))
    case .deleteProject(let id): state.projects.remove(id: id)
    case .addTag(let id, let project): state.tags.insert(RVTag(id: id, projectId: project))
    case .addComment(let id, let replyTo): state.comments.insert(RVComment(id: id, replyTo: replyTo))
    case .deleteComments(let ids): for id in ids { state.comments.remove(id: id) }
    }
    return .none
  }
}

@MainActor
struct ReviewRelationEdgeTests {
  let directory: TemporaryDirectory
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("review2.sqlite")
  }

  func open() throws -> Store<RV2State, RV2Action> {
    try Store(path: path, initialState: RV2State(), reducer: RV2Reducer())
  }

  /// Deleting comments together with their replies, in one action, is allowed by RESTRICT (no
  /// reply is left), whatever order the rows come in.
  @Test func deletingAThreadWithARestrictingSelfReference() throws {
    let store = try open()
    for thread in Int64(0)..<10 {
      try store.send(.addComment(thread * 2 + 1, replyTo: nil))
      try store.send(.addComment(thread * 2 + 2, replyTo: thread * 2 + 1))
    }
    #expect(throws: Never.self) { try store.send(.deleteComments(Array(1...20))) }
    #expect(try open().state == store.state)
  }

  /// A relation that names its parent table in another case is still a relation the engine
  /// carries out; SQLite must not cascade behind the log's back.
  @Test func aReferenceNamingItsParentInAnotherCase() throws {
    let store = try open()
    try store.send(.addProject(1))
    try store.send(.addTag(5, project: 1))
    try store.send(.deleteProject(1))
    let file = try open().state
    #expect(file.tags.isEmpty)
    #expect(store.state == file, "memory keeps tags \(Array(store.state.tags.ids))")
    let report = try RewindDatabase(path: path).verify()
    #expect(report.isHealthy, "\(report.problems)")
  }
}
