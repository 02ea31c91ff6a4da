import GRDB

/// Writes row changes to their tables through cached prepared statements.
///
/// The same writer serves commits, undo, redo and restores, in the app and in the `rewind`
/// tool. Table and column names are quoted; values are always bound parameters.
struct RowWriter {
  /// Upsert statements by table, each with the columns it binds in order, so that building
  /// SQL is paid once per table and column set. A table has one or a few column sets.
  private var upserts: [String: [Upsert]] = [:]
  private var deletes: [String: [Delete]] = [:]
  /// Each statement's text, by the number ``statement(for:_:)`` gives it, and the statement
  /// prepared for it on ``connection``: found without hashing its text.
  private var texts: [String] = []
  private var prepared: [Statement?] = []
  private var connection: ObjectIdentifier?

  private struct Upsert {
    let columns: [String]
    let keyColumns: [String]
    let number: Int
  }

  private struct Delete {
    let keyColumns: [String]
    let number: Int
  }

  /// Makes the rows of `changes` what `direction` says, in order.
  mutating func apply(_ changes: [RowChange], _ direction: ChangeDirection, in db: Database) throws {
    if connection != ObjectIdentifier(db) {
      // Statements belong to their connection (one held keeps its connection's object, so no
      // other connection can take its identity meanwhile).
      prepared = Array(repeating: nil, count: texts.count)
      connection = ObjectIdentifier(db)
    }
    for index in changes.indices {
      let change = changes[direction == .forward ? index : changes.count - 1 - index]
      let (number, arguments) = try prepare(change, direction)
      let statement: Statement
      if let cached = prepared[number] {
        statement = cached
      } else {
        statement = try db.cachedStatement(sql: texts[number])
        prepared[number] = statement
      }
      try statement.execute(binding: arguments)
    }
  }

  /// The statement, and its arguments, that makes the row of `change` what `direction` says:
  /// an upsert of the target row, or a delete by key.
  mutating func statement(
    for change: RowChange, _ direction: ChangeDirection
  ) throws -> (sql: String, arguments: [DatabaseValue]) {
    let (number, arguments) = try prepare(change, direction)
    return (texts[number], arguments)
  }

  /// The number of the statement that makes the row of `change` what `direction` says (see
  /// ``statement(for:_:)``), and its arguments.
  private mutating func prepare(
    _ change: RowChange, _ direction: ChangeDirection
  ) throws -> (number: Int, arguments: [DatabaseValue]) {
    guard let row = change.target(direction) else {
      // The key's values gathered while checking its columns, as for upserts.
      for cached in deletes[change.table] ?? [] {
        if let arguments = Self.values(of: change.key, in: cached.keyColumns) { return (cached.number, arguments) }
      }
      let keyColumns = change.key.keys.sorted()
      let delete = Delete(
        keyColumns: keyColumns, number: add(Self.deleteSQL(table: change.table, keyColumns: keyColumns)))
      deletes[change.table, default: []].append(delete)
      return (delete.number, keyColumns.map { change.key[$0]! })
    }
    let (upsert, arguments): (Upsert, [DatabaseValue])
    if let cached = cachedUpsert(of: row, key: change.key, in: change.table) {
      (upsert, arguments) = cached
    } else {
      let (columns, keyColumns) = (row.keys.sorted(), change.key.keys.sorted())
      upsert = Upsert(
        columns: columns, keyColumns: keyColumns,
        number: add(Self.upsertSQL(table: change.table, columns: columns, keyColumns: keyColumns)))
      upserts[change.table, default: []].append(upsert)
      arguments = columns.map { row[$0]! }
    }
    for (column, value) in zip(upsert.columns, arguments) {
      try Self.checkStorable(value, column: column, of: change.table)
    }
    return (upsert.number, arguments)
  }

  /// The cached upsert of `table` for exactly the columns of `row` and `key`, and the row's
  /// values in its column order: found while checking the columns, one look-up per column.
  /// (Walking the row in key order beside the cached, sorted columns, which compares names
  /// rather than hashing them, was measured slower for rows of five columns.)
  private func cachedUpsert(
    of row: [String: DatabaseValue], key: [String: DatabaseValue], in table: String
  ) -> (Upsert, [DatabaseValue])? {
    for cached in upserts[table] ?? [] where Self.row(key, hasExactly: cached.keyColumns) {
      if let arguments = Self.values(of: row, in: cached.columns) { return (cached, arguments) }
    }
    return nil
  }

  /// `row`'s values in the order of `columns`, or `nil` unless its columns are exactly those.
  private static func values(of row: [String: DatabaseValue], in columns: [String]) -> [DatabaseValue]? {
    guard row.count == columns.count else { return nil }
    var values: [DatabaseValue] = []
    values.reserveCapacity(columns.count)
    for column in columns {
      guard let value = row[column] else { return nil }
      values.append(value)
    }
    return values
  }

  /// Numbers a new statement. (`texts` and `prepared` are values: a copy of the writer, kept
  /// to put back after a failed transaction, numbers its statements apart from the original.)
  private mutating func add(_ sql: String) -> Int {
    texts.append(sql)
    prepared.append(nil)
    return texts.count - 1
  }

  /// Whether `row`'s columns are `columns`, in any order. - Complexity: O(columns), no sort.
  private static func row(_ row: [String: DatabaseValue], hasExactly columns: [String]) -> Bool {
    row.count == columns.count && columns.allSatisfy { row[$0] != nil }
  }

  /// Refuses a value the table would hold otherwise than the log and memory say: SQLite's text
  /// binding stops at the first NUL, and SQLite stores a NaN real as NULL.
  static func checkStorable(_ value: DatabaseValue, column: String, of table: String) throws {
    switch value.storage {
    // (Through the contiguous UTF-8, which native strings have: a scan of a buffer rather than
    // the view's generic iteration, on every text value written.)
    case .string(let text) where text.utf8.withContiguousStorageIfAvailable({ $0.contains(0) }) ?? text.utf8.contains(0):
      throw RewindError(
        .invalidValue,
        "\(table).\(column) would hold text with a NUL character, which SQLite text cannot store exactly; refused")
    case .double(let real) where real.isNaN:
      throw RewindError(
        .invalidValue,
        "\(table).\(column) would hold NaN (not a number), which SQLite stores as NULL; refused (an arithmetic result such as 0/0 or inf - inf?)"
      )
    default: break
    }
  }

  /// The statement that writes a row of `table` with `columns` (sorted), inserting it or
  /// updating the row with the same `keyColumns`.
  private static func upsertSQL(table: String, columns: [String], keyColumns: [String]) -> String {
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
  private static func deleteSQL(table: String, keyColumns: [String]) -> String {
    """
    DELETE FROM \(table.quotedDatabaseIdentifier) WHERE \
    \(keyColumns.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: " AND "))
    """
  }
}
