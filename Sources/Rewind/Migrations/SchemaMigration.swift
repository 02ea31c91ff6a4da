import GRDB

/// One version of the app's schema: how its tables and view state change from the version
/// before, and how history crosses the change.
///
/// An app lists its migrations, oldest first, after its parts:
///
/// ```swift
/// static var schema: StateSchema<Self> {
///   StateSchema(
///     .entities(\.tasks),
///     .view(\.view)
///   )
///   .migrations(
///     SchemaMigration("add-notes", .addColumn("notes", to: "tasks", .text, notNull: true, default: ""))
///   )
/// }
/// ```
///
/// The first migration makes version 2 (a schema with none is version 1). Opening a file runs
/// the migrations it has not had, in the transaction that sets it up, before anything is
/// loaded; each is one `migration` entry in the log. A new file is created at the latest
/// version directly (its tables come from the entities' `createTable`), so the migrations only
/// ever run on files of earlier versions. Never edit or reorder a released migration: append
/// a new one. A file whose version is newer than the app's is refused with
/// ``RewindError/Code/newerAppSchema``.
///
/// Three kinds, by what history needs:
/// - **Described changes** (``init(_:_:)``): added, renamed or dropped columns, dropped tables,
///   renamed or removed view properties. The engine makes the change and stores its
///   description; older row images are read through it, by the app and by the `rewind` tool.
/// - **A transform** (``transform(_:migrate:rows:)``): the app changes its tables with its own
///   code and gives the same change for one row. The engine checks that the two agree on the
///   current rows, then rewrites the row images of earlier entries and snapshots with it, so
///   history reads in the new shape with no app code.
/// - **A barrier** (``barrier(_:migrate:)``): the app changes its tables in a way history
///   cannot follow. History before it stays readable in its old shape (`log`, `export --at`),
///   but undo, jumps and restores to before it are refused with
///   ``RewindError/Code/historyBarrier``.
///
/// A view property added to the app's view state needs no migration: a property with no row
/// loads with its default, in the app and after any jump.
public struct SchemaMigration: Sendable {
  /// The migration's name: unique, recorded in the file, never changed once released.
  public let identifier: String
  let kind: Kind

  enum Kind: Sendable {
    case changes([SchemaChange])
    case transform(migrate: @Sendable (Database) throws -> Void, rows: @Sendable (HistoryRow) throws -> [HistoryRow])
    case barrier(migrate: @Sendable (Database) throws -> Void)

    var recorded: AppSchemaHistory.Kind {
      switch self {
      case .changes: .changes
      case .transform: .transform
      case .barrier: .barrier
      }
    }
  }

  /// A migration made of described changes, applied in order.
  public init(_ identifier: String, _ changes: SchemaChange...) {
    self.identifier = identifier
    kind = .changes(changes)
  }

  /// A migration the app makes with its own code, with the same change for one row.
  ///
  /// - Parameters:
  ///   - identifier: the migration's name.
  ///   - migrate: changes the tables (runs once, in the opening transaction). A new entity
  ///     table must be created here: its `createTable` runs after the migrations only for
  ///     tables that still do not exist.
  ///   - rows: turns one row as it was before the migration (of any entity table, of
  ///     `list_entries` or of `view_state`) into the rows it became, in any tables: none to drop
  ///     it, several to split it. Return the row unchanged for rows the migration does not
  ///     touch. It is checked against `migrate` on every current row, and then applied to
  ///     every row image in the log and the snapshots.
  public static func transform(
    _ identifier: String,
    migrate: @escaping @Sendable (Database) throws -> Void,
    rows: @escaping @Sendable (HistoryRow) throws -> [HistoryRow]
  ) -> SchemaMigration {
    SchemaMigration(identifier: identifier, kind: .transform(migrate: migrate, rows: rows))
  }

  /// A migration history does not cross: entries before it can be read, never undone or
  /// jumped to.
  public static func barrier(
    _ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void
  ) -> SchemaMigration {
    SchemaMigration(identifier: identifier, kind: .barrier(migrate: migrate))
  }

  private init(identifier: String, kind: Kind) {
    self.identifier = identifier
    self.kind = kind
  }
}

/// One row of a state table, as a migration's row transform sees it: the table's name and the
/// row's columns.
public struct HistoryRow: Hashable, Sendable {
  /// The table: an entity table, `list_entries` or `view_state`.
  public var table: String
  /// Column name → value, every column of the row.
  public var columns: [String: DatabaseValue]

  /// A row of `table`.
  public init(table: String, columns: [String: DatabaseValue]) {
    self.table = table
    self.columns = columns
  }

  /// The value of `column`, or `nil` if the row has no such column.
  public subscript(column: String) -> DatabaseValue? {
    get { columns[column] }
    set { columns[column] = newValue }
  }
}

extension StateSchema {
  /// This schema with the app's migrations, oldest first: the first makes version 2.
  ///
  /// Only the root state's schema declares migrations; a scoped feature's are not used: the
  /// file has one app schema version, the root's. A composed app changes a feature's tables
  /// or view rows with migrations of its own root (a view path under the feature's prefix,
  /// `"drawer.shut"` for a feature scoped at `drawer`).
  public func migrations(_ migrations: SchemaMigration...) -> Self {
    self.migrations(migrations)
  }

  /// This schema with the app's migrations, oldest first: the first makes version 2.
  public func migrations(_ migrations: [SchemaMigration]) -> Self {
    var schema = self
    schema.migrations = migrations
    return schema
  }

  /// The app schema version this schema describes: 1 plus its migrations.
  public var version: Int { migrations.count + 1 }
}
