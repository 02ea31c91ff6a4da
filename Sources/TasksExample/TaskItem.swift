import Rewind

/// A task: the example's one entity kind, stored in the `tasks` table.
public struct TaskItem: Entity {
  public static let databaseTableName = "tasks"

  /// Small integer ids, assigned by the reducer.
  public var id: Int64
  public var title: String
  public var isDone: Bool

  public init(id: Int64, title: String, isDone: Bool = false) {
    self.id = id
    self.title = title
    self.isDone = isDone
  }

  enum CodingKeys: String, CodingKey {
    case id, title
    case isDone = "done"
  }

  public static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("title", .text).notNull()
      t.column("done", .boolean).notNull().defaults(to: false)
    }
  }
}
