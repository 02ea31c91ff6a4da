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
  /// The upserts of the last few kinds of row written (at most 8, the latest first): a send
  /// writes the rows of a few tables, whose statements are found here by the identity of
  /// their columns, with no table name hashed.
  private var recentUpserts: [(table: String, upsert: Upsert)] = []
  /// Each statement's text, by the number ``statement(for:_:)`` gives it, and the statement
  /// prepared for it on ``connection``: found without hashing its text.
  private var texts: [String] = []
  private var prepared: [Statement?] = []
  private var connection: ObjectIdentifier?
  /// Rows a `UNIQUE` constraint refused, held back until ``writeHeldRows(in:finally:)``: the
  /// row keeping their values may move later in the same write (a swap, or a jump back over
  /// renames).
  var held: [HeldRow] = []

  /// A row's write that a `UNIQUE` constraint refused, and SQLite's error. The row was written
  /// aside meanwhile where it could be (see ``writeAside(_:_:refusedBy:in:)``).
  struct HeldRow {
    let change: RowChange
    let direction: ChangeDirection
    let error: DatabaseError
  }

  private struct Upsert {
    let columns: RowImage.Columns
    let keyColumns: RowImage.Columns
    let number: Int
  }

  private struct Delete {
    let keyColumns: RowImage.Columns
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
    // Each change read through its address: taken out of the array, or passed from it to this
    // mutating method's `prepare`, it was copied (its parts retained, then released).
    try changes.withUnsafeBufferPointer { changes in
      for index in changes.indices {
        let change = changes.baseAddress! + (direction == .forward ? index : changes.count - 1 - index)
        let (number, arguments) = try prepare(change, direction)
        let statement: Statement
        if let cached = prepared[number] {
          statement = cached
        } else {
          do {
            statement = try db.cachedStatement(sql: texts[number])
          } catch let error as DatabaseError where error.message?.contains("has no column named") == true {
            // An entity that gained a property with no app migration adding its column: the
            // file's table opens (an empty one decodes) and refuses the row here.
            throw RewindError(
              .schemaMismatch,
              "\(error.message ?? ""), which the app's entity writes: the table is older than the entity (is the app migration that adds it missing?); nothing was written",
              underlying: error)
          }
          prepared[number] = statement
        }
        do {
          try statement.execute(binding: arguments)
        } catch let error as DatabaseError
          where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE && change.pointee.target(direction) != nil
        {
          // A conflict clause or trigger that says ROLLBACK ended the transaction: nothing
          // more may be written, or it would be committed on its own.
          guard db.isInsideTransaction else { throw error }
          try Self.writeAside(change.pointee, direction, refusedBy: error, in: db)
          held.append(HeldRow(change: change.pointee, direction: direction, error: error))
        }
      }
    }
  }

  /// The statement, and its arguments, that makes the row of `change` what `direction` says:
  /// an upsert of the target row, or a delete by key.
  mutating func statement(
    for change: RowChange, _ direction: ChangeDirection
  ) throws -> (sql: String, arguments: [DatabaseValue]) {
    let (number, arguments) = try withUnsafePointer(to: change) { try prepare($0, direction) }
    return (texts[number], arguments)
  }

  /// The number of the statement that makes the row of `change` what `direction` says (see
  /// ``statement(for:_:)``), and its arguments: the row's values, in its column order, which
  /// is the statement's. A statement is found by the columns of the row and of its key, most
  /// often the very ``RowImage/Columns`` it was made for.
  private mutating func prepare(
    _ change: UnsafePointer<RowChange>, _ direction: ChangeDirection
  ) throws -> (number: Int, arguments: [DatabaseValue]) {
    guard let row = change.pointee.target(direction) else {
      if let cached = deletes[change.pointee.table]?.first(where: { $0.keyColumns == change.pointee.key.columns }) {
        return (cached.number, change.pointee.key.values)
      }
      let delete = Delete(
        keyColumns: change.pointee.key.columns,
        number: add(Self.deleteSQL(table: change.pointee.table, keyColumns: change.pointee.key.columns.names)))
      deletes[change.pointee.table, default: []].append(delete)
      return (delete.number, change.pointee.key.values)
    }
    let upsert = upsert(table: change.pointee.table, columns: row.columns, keyColumns: change.pointee.key.columns)
    try row.values.withUnsafeBufferPointer { values in
      for index in values.indices {
        try Self.checkStorable(values[index], column: { row.columns.names[index] }, of: change.pointee.table)
      }
    }
    return (upsert.number, row.values)
  }

  /// The upsert of rows of `table` with `columns`, keyed by `keyColumns`: one found lately (by
  /// the very columns, which the entry holds, so no other object can take their identity), one
  /// made before, or a new one.
  private mutating func upsert(
    table: String, columns: RowImage.Columns, keyColumns: RowImage.Columns
  ) -> Upsert {
    // Read only when found: moving a hit to the front would write the array on every send.
    if let recent = recentUpserts.first(where: {
      $0.upsert.columns === columns && $0.upsert.keyColumns === keyColumns && $0.table == table
    }) {
      return recent.upsert
    }
    let upsert: Upsert
    if let cached = upserts[table]?.first(where: { $0.columns == columns && $0.keyColumns == keyColumns }) {
      upsert = cached
    } else {
      upsert = Upsert(
        columns: columns, keyColumns: keyColumns,
        number: add(Self.upsertSQL(table: table, columns: columns.names, keyColumns: keyColumns.names)))
      upserts[table, default: []].append(upsert)
    }
    // Found by these very columns from now on, when rows share them (declared columns, an
    // entity's or a table scan's): those made for one row (a dictionary's) would only push
    // the others out.
    if columns.isShared, keyColumns.isShared {
      recentUpserts.insert((table, Upsert(columns: columns, keyColumns: keyColumns, number: upsert.number)), at: 0)
      if recentUpserts.count > 8 { recentUpserts.removeLast() }
    }
    return upsert
  }

  /// Numbers a new statement. (`texts` and `prepared` are values: a copy of the writer
  /// numbers its statements apart from the original.)
  private mutating func add(_ sql: String) -> Int {
    texts.append(sql)
    prepared.append(nil)
    return texts.count - 1
  }

  /// Refuses a value the table would hold otherwise than the log and memory say: text with a
  /// NUL in it is read back as a C string (GRDB's `String` from a column), up to the NUL, and
  /// SQLite stores a NaN real as NULL.
  static func checkStorable(_ value: DatabaseValue, column: () -> String, of table: String) throws {
    switch value.storage {
    // (Through the contiguous UTF-8, which native strings have: a scan of a buffer rather than
    // the view's generic iteration, on every text value written.)
    case .string(let text) where text.utf8.withContiguousStorageIfAvailable({ $0.contains(0) }) ?? text.utf8.contains(0):
      throw RewindError(
        .invalidValue,
        "\(table).\(column()) would hold text with a NUL character, which SQLite text cannot store exactly; refused")
    case .double(let real) where real.isNaN:
      throw RewindError(
        .invalidValue,
        "\(table).\(column()) would hold NaN (not a number), which SQLite stores as NULL; refused (an arithmetic result such as 0/0 or inf - inf?)"
      )
    default: break
    }
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
  private static func deleteSQL(table: String, keyColumns: [String]) -> String {
    """
    DELETE FROM \(table.quotedDatabaseIdentifier) WHERE \
    \(keyColumns.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: " AND "))
    """
  }
}
