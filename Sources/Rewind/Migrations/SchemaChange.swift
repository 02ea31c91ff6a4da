import GRDB

/// A change to the app's tables or view state that Rewind knows how to carry history across.
///
/// The engine applies the change to the database when the migration runs, and stores its
/// description in the file (`rewind_app_migrations`). Row images logged before the migration
/// are then read through it (a column added with its default, a column renamed or dropped, a
/// view property renamed), so undo, redo, jumps, `restore --to`, `export --at` and `verify` keep
/// working across the update, in the app and in the `rewind` tool, with no app code.
///
/// A change these cannot describe (splitting a table, changing a value's type) is a
/// ``SchemaMigration/transform(_:migrate:rows:)``, or a ``SchemaMigration/barrier(_:migrate:)``.
public struct SchemaChange: Hashable, Sendable {
  enum Operation: Hashable, Sendable {
    case addColumn(table: String, column: String, type: String, notNull: Bool, default: DatabaseValue)
    case renameColumn(table: String, from: String, to: String)
    case dropColumn(table: String, column: String)
    /// `lists`: the order lists of the table's ids, dropped with it (found when it runs).
    case dropTable(table: String, lists: [String])
    case renameViewProperty(from: String, to: String)
    case removeViewProperty(path: String)

    /// The entity table the change is about, if any.
    var table: String? {
      switch self {
      case .addColumn(let table, _, _, _, _), .renameColumn(let table, _, _), .dropColumn(let table, _),
        .dropTable(let table, _):
        table
      case .renameViewProperty, .removeViewProperty: nil
      }
    }
  }

  var operation: Operation

  /// Adds a column with a default value: existing rows, and the row images of earlier
  /// entries, take the default.
  ///
  /// - Parameters:
  ///   - column: the new column's name.
  ///   - table: the entity table.
  ///   - type: its SQL type.
  ///   - notNull: whether it is `NOT NULL`.
  ///   - value: the value of existing rows; `nil` for NULL.
  public static func addColumn(
    _ column: String, to table: String, _ type: Database.ColumnType, notNull: Bool = false,
    default value: (any DatabaseValueConvertible)?
  ) -> SchemaChange {
    SchemaChange(
      operation: .addColumn(
        table: table, column: column, type: type.rawValue, notNull: notNull, default: value?.databaseValue ?? .null))
  }

  /// Adds a column that refers to another entity table: a relation, as GRDB's `belongsTo`
  /// declares one in `createTable`. The column is nullable and NULL in existing rows and in
  /// earlier row images; it gets a foreign key to `parent`'s primary key and an index (the
  /// engine looks children up by it when a parent is deleted).
  ///
  /// ```swift
  /// .addReference("projectId", to: "tasks", references: "projects", onDelete: .cascade)
  /// ```
  ///
  /// - Parameters:
  ///   - column: the new column's name.
  ///   - table: the entity table that gains it (the child).
  ///   - parent: the entity table it refers to.
  ///   - type: its SQL type: the type of `parent`'s key.
  ///   - onDelete: what deleting a parent does to its children; the engine carries it out
  ///     and logs it (see <doc:ModelingState>). `nil`: a parent with children cannot be deleted.
  public static func addReference(
    _ column: String, to table: String, references parent: String, _ type: Database.ColumnType = .integer,
    onDelete: Database.ForeignKeyAction? = nil
  ) -> SchemaChange {
    let action = onDelete.map { " ON DELETE \($0.rawValue)" } ?? ""
    return SchemaChange(
      operation: .addColumn(
        table: table, column: column, type: "\(type.rawValue) REFERENCES \(parent.quotedDatabaseIdentifier)\(action)",
        notNull: false, default: .null))
  }

  /// Renames a column (its key column too): earlier row images are read under the new name.
  public static func renameColumn(_ column: String, to newName: String, in table: String) -> SchemaChange {
    SchemaChange(operation: .renameColumn(table: table, from: column, to: newName))
  }

  /// Drops a column: earlier row images are read without it. The key column cannot be dropped.
  public static func dropColumn(_ column: String, from table: String) -> SchemaChange {
    SchemaChange(operation: .dropColumn(table: table, column: column))
  }

  /// Drops an entity table, and the order lists of its ids: earlier row images of both are
  /// left out when they are read. (An entity table is added by declaring it in the schema:
  /// opening creates it, and earlier history has no rows in it.)
  public static func dropTable(_ table: String) -> SchemaChange {
    SchemaChange(operation: .dropTable(table: table, lists: []))
  }

  /// Renames a view-state property: its row, and the rows of earlier images, move to the new
  /// path. Paths are as stored in `view_state.path` (with the feature's prefix: `list.query`).
  public static func renameViewProperty(_ path: String, to newPath: String) -> SchemaChange {
    SchemaChange(operation: .renameViewProperty(from: path, to: newPath))
  }

  /// Removes a view-state property's row; earlier images of it are left out when read.
  public static func removeViewProperty(_ path: String) -> SchemaChange {
    SchemaChange(operation: .removeViewProperty(path: path))
  }
}
