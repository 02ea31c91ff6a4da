import GRDB

/// A kind of entity: a value stored once, by id, in its own table.
///
/// Conform a `Codable` struct, give it a table name and the SQL that creates the table. Its
/// stored properties become the table's columns (nested values are stored as JSON text).
///
/// ```swift
/// struct Note: Entity {
///   static let databaseTableName = "notes"
///   var id: Int64
///   var text: String
///
///   static func createTable(_ db: Database) throws {
///     try db.create(table: databaseTableName) { t in
///       t.primaryKey("id", .integer)
///       t.column("text", .text).notNull()
///     }
///   }
/// }
/// ```
public protocol Entity: Codable, Equatable, Identifiable, Sendable, FetchableRecord,
  EncodableRecord, TableRecord
where ID: Comparable & Codable & DatabaseValueConvertible & Sendable {
  /// The name of the primary-key column, `"id"` by default.
  static var keyColumn: String { get }

  /// Creates the entity's table. Called once, when a new database is set up.
  static func createTable(_ db: Database) throws
}

extension Entity {
  public static var keyColumn: String { "id" }
}
