import Rewind

/// A project: a named group of tasks, stored in the `projects` table (version 3 of the
/// example's schema). Deleting a project deletes its tasks: `tasks.projectId` declares the
/// relation with `ON DELETE CASCADE`, and the engine carries it out in the same log entry.
public struct Project: Entity {
  public static let databaseTableName = "projects"

  public var id: Int64
  public var name: String

  public init(id: Int64, name: String) {
    self.id = id
    self.name = name
  }

  public static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
    }
  }
}
