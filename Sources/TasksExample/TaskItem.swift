import Rewind

/// A task: the example's one entity kind, stored in the `tasks` table.
public struct TaskItem: Entity {
  public static let databaseTableName = "tasks"

  /// Small integer ids, assigned by the reducer.
  public var id: Int64
  public var title: String
  public var isDone: Bool
  /// Free text about the task (version 2 of the example's schema; empty for older tasks).
  public var notes: String
  /// The project the task belongs to, if any (version 3; `nil` for older tasks).
  public var projectID: Int64?

  public init(id: Int64, title: String, isDone: Bool = false, notes: String = "", projectID: Int64? = nil) {
    self.id = id
    self.title = title
    self.isDone = isDone
    self.notes = notes
    self.projectID = projectID
  }

  enum CodingKeys: String, CodingKey {
    case id, title, notes
    case isDone = "done"
    case projectID = "projectId"
  }

  // Hand-written row coding: GRDB's Codable-based default works too, but this is several
  // times faster, which shows when a database of 100,000 tasks opens and in every action that
  // changes a task. The throwing accessors turn a missing column or a NULL into an error
  // instead of a crash.
  public init(row: Row) throws {
    id = try row.decode(forColumn: "id")
    title = try row.decode(forColumn: "title")
    isDone = try row.decode(forColumn: "done")
    notes = try row.decode(forColumn: "notes")
    projectID = try row.decode(forColumn: "projectId")
  }

  /// Read by position when a store opens: GRDB finds a column by name with a hash of the
  /// name, five a row, a tenth of opening a million tasks.
  public static var databaseColumnOrder: [String]? { columns.names }

  public init(orderedRow row: Row) throws {
    isDone = try row.decode(atIndex: 0)
    id = try row.decode(atIndex: 1)
    notes = try row.decode(atIndex: 2)
    projectID = try row.decode(atIndex: 3)
    title = try row.decode(atIndex: 4)
  }

  /// The columns of a task's row, named once for every row, in ascending order: an image's
  /// values are kept in that order, so values given in it are not rearranged.
  static let columns = RowImage.Columns(["done", "id", "notes", "projectId", "title"])

  /// The row the engine writes, built directly rather than through GRDB's container.
  public func databaseRowImage() -> RowImage {
    RowImage(
      Self.columns,
      [isDone.databaseValue, id.databaseValue, notes.databaseValue, projectID.databaseValue, title.databaseValue])
  }

  /// Integers, strings and a boolean: `init(row:)` reads the row back as this very task, so
  /// release builds skip the engine's read-back (debug builds check it on every change).
  public static var databaseRowRoundTripsExactly: Bool { true }

  /// The same row, for GRDB's own requests.
  public func encode(to container: inout PersistenceContainer) throws {
    for (column, value) in databaseRowImage() { container[column] = value }
  }

  public static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("title", .text).notNull()
      t.column("done", .boolean).notNull().defaults(to: false)
      t.column("notes", .text).notNull().defaults(to: "")
      // A task belongs to a project, or to none; its project's deletion deletes it.
      t.belongsTo("project", inTable: Project.databaseTableName, onDelete: .cascade)
    }
  }

  /// How files of earlier versions of the example reach this one. A new file is created with
  /// `createTable` above, which already has every column.
  static let migrations = [
    // Version 2: notes. Release 0.1 files get an empty note on every task, in the table and in
    // every row image of their history.
    SchemaMigration("2-task-notes", .addColumn("notes", to: databaseTableName, .text, notNull: true, default: "")),
    // Version 3: projects. The `projects` table and the `projectTasks` lists are new parts of
    // the schema, created when the file opens; tasks gain a reference to their project, NULL
    // in the table and in every earlier row image.
    SchemaMigration(
      "3-projects",
      .addReference("projectId", to: databaseTableName, references: Project.databaseTableName, onDelete: .cascade)),
  ]
}
