import GRDB

/// Writes row changes to their tables through cached prepared statements.
///
/// The same writer serves commits, undo, redo and restores, in the app and in the `rewind`
/// tool. Table and column names are quoted; values are always bound parameters.
struct RowWriter {
  /// Statement text by table and sorted column list, so that building SQL is paid once.
  private var upsertSQL: [[String]: String] = [:]
  private var deleteSQL: [[String]: String] = [:]

  /// Makes the rows of `changes` what `direction` says, in order.
  mutating func apply(_ changes: [RowChange], _ direction: ChangeDirection, in db: Database) throws {
    for index in changes.indices {
      let change = changes[direction == .forward ? index : changes.count - 1 - index]
      if let row = change.target(direction) {
        try upsert(row, keyColumns: change.key.keys.sorted(), into: change.table, db)
      } else {
        try delete(key: change.key, from: change.table, db)
      }
    }
  }

  private mutating func upsert(
    _ row: [String: DatabaseValue], keyColumns: [String], into table: String, _ db: Database
  ) throws {
    let columns = row.keys.sorted()
    let cacheKey = [table] + columns + ["|"] + keyColumns
    let sql: String
    if let cached = upsertSQL[cacheKey] {
      sql = cached
    } else {
      sql = Self.upsertSQL(table: table, columns: columns, keyColumns: keyColumns)
      upsertSQL[cacheKey] = sql
    }
    try db.cachedStatement(sql: sql).execute(
      binding: try columns.map { column in
        let value = row[column] ?? .null
        try Self.checkStorable(value, column: column, of: table)
        return value
      })
  }

  /// SQLite's text binding stops at the first NUL, so the table would keep less than the log
  /// says: such text is refused rather than silently cut.
  static func checkStorable(_ value: DatabaseValue, column: String, of table: String) throws {
    if case .string(let text) = value.storage, text.utf8.contains(0) {
      throw RewindError(
        .invalidValue,
        "\(table).\(column) would hold text with a NUL character, which SQLite text cannot store exactly; refused")
    }
  }

  private mutating func delete(key: [String: DatabaseValue], from table: String, _ db: Database) throws {
    let columns = key.keys.sorted()
    let cacheKey = [table] + columns
    let sql: String
    if let cached = deleteSQL[cacheKey] {
      sql = cached
    } else {
      sql = Self.deleteSQL(table: table, keyColumns: columns)
      deleteSQL[cacheKey] = sql
    }
    try db.cachedStatement(sql: sql).execute(binding: columns.map { key[$0] ?? .null })
  }

  /// The statement that writes a row of `table` with `columns` (sorted), inserting it or
  /// updating the row with the same `keyColumns`.
  static func upsertSQL(table: String, columns: [String], keyColumns: [String]) -> String {
    let others = columns.filter { !keyColumns.contains($0) }
    let conflict =
      others.isEmpty
      ? "DO NOTHING"
      : "DO UPDATE SET "
        + others.map { "\($0.quotedDatabaseIdentifier) = excluded.\($0.quotedDatabaseIdentifier)" }
        .joined(separator: ", ")
    return """
      INSERT INTO \(table.quotedDatabaseIdentifier) \
      (\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) \
      VALUES (\(databaseQuestionMarks(count: columns.count))) \
      ON CONFLICT (\(keyColumns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) \(conflict)
      """
  }

  /// The statement that deletes the row of `table` with the given key columns (sorted).
  static func deleteSQL(table: String, keyColumns: [String]) -> String {
    """
    DELETE FROM \(table.quotedDatabaseIdentifier) WHERE \
    \(keyColumns.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: " AND "))
    """
  }
}
