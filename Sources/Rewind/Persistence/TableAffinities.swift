import GRDB

/// The columns of one table as the file declares them, their names and type affinities: what
/// makes an entity's row image the row the table stores (``ColumnAffinity``), and which rows an
/// entity may write to it (``checkColumns(of:writtenBy:)``).
@usableFromInline
final class TableAffinities: @unchecked Sendable {
  /// Each column's declared name and affinity, by its name lowercased (SQLite's names are
  /// case-insensitive).
  private let columns: [String: (name: String, affinity: ColumnAffinity)]
  /// Whether any column converts anything.
  @usableFromInline
  let converts: Bool
  /// The affinities of the columns of the last image seen, in its order: an entity's images
  /// share one ``RowImage/Columns``, so the names are looked up once. Set on the store's
  /// actor, by the send that takes the entity's changes.
  @usableFromInline
  @exclusivity(unchecked) var lastColumns: RowImage.Columns?
  @usableFromInline
  @exclusivity(unchecked) var lastAffinities: [ColumnAffinity] = []
  @usableFromInline
  let table: String
  /// The columns of the last image found to be the table's own (``checkColumns(of:writtenBy:)``).
  @usableFromInline
  @exclusivity(unchecked) var lastCheckedColumns: RowImage.Columns?
  /// A conflict clause the table declares that resolves a conflict by changing other rows or
  /// dropping the write (`ON CONFLICT REPLACE` or `IGNORE`), as its SQL spells it.
  let silentConflictClause: String?

  /// The affinities of `table`'s columns in the file `db` reads.
  init(of table: String, _ db: Database) throws {
    // `STRICT` (SQLite 3.37): its `ANY` columns keep what they are given. An older SQLite
    // has neither the pragma nor strict tables.
    let strict =
      (try? Bool.fetchOne(
        db, sql: "SELECT strict FROM pragma_table_list WHERE schema = 'main' AND name = ?", arguments: [table]))
      ?? false
    var columns: [String: (name: String, affinity: ColumnAffinity)] = [:]
    for column in try db.columns(in: table) {
      columns[column.name.lowercased()] = (column.name, ColumnAffinity(declaredType: column.type, strict: strict))
    }
    self.table = table
    self.columns = columns
    let sql = try String.fetchOne(
      db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [table])
    let words = (sql ?? "").uppercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    silentConflictClause = ["ON CONFLICT REPLACE", "ON CONFLICT IGNORE"].first { words.contains($0) }
    converts = columns.values.contains { $0.affinity != .none }
  }

  /// `image` as the table stores it, or `nil` when that is `image` itself (no copy is made
  /// of the common row, whose every value its column keeps).
  @inlinable
  func stored(_ image: RowImage) throws -> RowImage? {
    guard converts else { return nil }
    if lastColumns !== image.storedColumns {
      lastAffinities = image.storedColumns.names.map { affinity(of: $0) }
      lastColumns = image.storedColumns
    }
    var stored: RowImage?
    for index in image.storedValues.indices {
      guard let value = try lastAffinities[index].converting(image.storedValues[index]) else { continue }
      if stored == nil { stored = image }
      stored?.storedValues[index] = value
    }
    return stored
  }

  /// Makes `change`'s rows the ones the table stores (its key is left as it is); returns its
  /// after-image as it was if that changed.
  @inlinable
  func store(_ change: inout RowChange) throws -> RowImage? {
    if let row = change.before, let stored = try stored(row) { change.before = stored }
    guard let row = change.after, let stored = try stored(row) else { return nil }
    change.after = stored
    return row
  }

  @usableFromInline
  func affinity(of column: String) -> ColumnAffinity { columns[column.lowercased()]?.affinity ?? .none }

  /// Throws unless `image`, a row an entity writes, has each of the table's columns, spelled
  /// as the table spells it. Otherwise the log would not record the row the table holds: a
  /// column the entity does not write gets SQLite's value (a `DEFAULT`, a generated column, a
  /// trigger's), which no log entry holds and undo would lose; a column spelled in another
  /// case is one column to SQLite, and another to every reader of the log.
  @inlinable
  func checkColumns(of image: RowImage, writtenBy entity: @autoclosure () -> String) throws {
    guard lastCheckedColumns !== image.storedColumns else { return }
    try checkColumnNames(image.storedColumns.names, writtenBy: entity())
    lastCheckedColumns = image.storedColumns
  }

  @usableFromInline
  func checkColumnNames(_ names: [String], writtenBy entity: String) throws {
    if let clause = silentConflictClause {
      throw RewindError(
        .schemaMismatch,
        "\(table) declares \(clause) on a constraint: SQLite would resolve a conflict by \(clause.hasSuffix("REPLACE") ? "deleting the other row" : "dropping the write") behind the log's back, and memory and the log would still hold what the table does not; declare the constraint without it (a conflict is then refused, with nothing written; rows that trade unique values in one action are written one way or another); nothing was written"
      )
    }
    var written: Set<String> = []
    for name in names {
      written.insert(name.lowercased())
      if let declared = columns[name.lowercased()]?.name, declared != name {
        throw RewindError(
          .schemaMismatch,
          "\(entity) writes the column \(name), which \(table) declares as \(declared): SQLite takes either, but the log records the entity's spelling and reads the table's, so undo, exports and `rewind verify` would not find the column; spell the column as the entity writes it (an app migration can rename it: ALTER TABLE \(table) RENAME COLUMN \(declared) TO \(name)); nothing was written"
        )
      }
    }
    if let missing = columns.keys.sorted().first(where: { !written.contains($0) }) {
      throw RewindError(
        .schemaMismatch,
        "\(table) has the column \(columns[missing]!.name), which \(entity) does not write: the log records rows as the entity writes them, so a value SQLite gives the column (a DEFAULT, a generated column, a trigger's) would be in the table and in no log entry, and undo would lose it; add a property for it to \(entity) (set by the reducer: a date from the `date` dependency), or drop the column with an app migration; nothing was written"
      )
    }
  }
}
