/// The engine's own tables, as `migrations/*.sql` creates them: the one place the Swift code
/// names them and their columns. (SQL statements spell them out, as SQL reads best; every
/// statement runs against the real schema in the tests.)
@usableFromInline
enum EngineTable: String, CaseIterable, Sendable {
  case meta = "rewind_meta"
  case entityTables = "rewind_entity_tables"
  case lists = "rewind_lists"
  case listEntries = "list_entries"
  case viewState = "view_state"
  case actionLog = "action_log"
  case undoSteps = "undo_steps"
  case snapshots = "snapshots"
  /// The earlier parts of large snapshots' text (engine schema 8).
  case snapshotParts = "snapshot_parts"
  /// The applied engine migrations (files of releases 0.1 and 0.2 record them in
  /// `grdb_migrations` instead, until they are upgraded).
  case engineMigrations = "rewind_engine_migrations"
  /// The app's own schema versions, and how history crosses each.
  case appMigrations = "rewind_app_migrations"

  /// The table's name in the database.
  @inlinable
  var name: String { rawValue }

  /// The columns the engine reads and writes; opening checks that each is present.
  var columns: [String] {
    switch self {
    case .meta: ["key", "value"]
    case .entityTables: ["name", "key_column"]
    case .lists: ["name", "entity_table", "owner_table"]
    case .listEntries: ["list", "id", "position", "owner"]
    case .viewState: ["path", "value"]
    case .actionLog: ["seq", "time", "kind", "action", "payload", "changes", "step", "group_key"]
    case .undoSteps: ["id", "last_seq", "group_key", "undone", "applied_from", "applied_to"]
    case .snapshots: ["id", "label", "seq", "time", "kind", "row_count", "rows", "checksum", "schema_seq", "part_set"]
    case .snapshotParts: ["part_set", "part", "rows"]
    case .engineMigrations: ["identifier"]
    case .appMigrations: ["version", "identifier", "seq", "kind", "changes"]
    }
  }
}

extension EngineTable {
  // The columns of the rows the state parts write on every change, shared by their images:
  // built once, with their keys' JSON, and found by identity by the table writer.

  /// A view-state row's key, and the row.
  @usableFromInline
  static let viewStateKey = RowImage.Columns(["path"])
  @usableFromInline
  static let viewStateColumns = RowImage.Columns(["path", "value"])

  /// A list entry's key; the entry of a fixed list, and the entry of a keyed list. (The list
  /// parts give their values in these columns' sorted order: a test checks the names sort so.)
  @usableFromInline
  static let listEntryKey = RowImage.Columns(["list", "id"])
  @usableFromInline
  static let listEntryColumns = RowImage.Columns(["list", "id", "position"])
  @usableFromInline
  static let keyedListEntryColumns = RowImage.Columns(["list", "id", "owner", "position"])
}
