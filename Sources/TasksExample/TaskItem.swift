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

  // Hand-written row coding: GRDB's Codable-based default works too, but this is several
  // times faster, which shows when a database of 100,000 tasks opens. The throwing accessors
  // turn a missing column or a NULL into an error instead of a crash.
  public init(row: Row) throws {
    id = try row.decode(forColumn: "id")
    title = try row.decode(forColumn: "title")
    isDone = try row.decode(forColumn: "done")
  }

  public func encode(to container: inout PersistenceContainer) throws {
    container["id"] = id
    container["title"] = title
    container["done"] = isDone
  }

  public static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("title", .text).notNull()
      t.column("done", .boolean).notNull().defaults(to: false)
    }
  }
}
