import GRDB

extension RowWriter {
  /// Writes the rows a `UNIQUE` constraint held back (see ``held``), once the rows keeping
  /// their values have moved.
  ///
  /// SQLite checks a `UNIQUE` constraint at each row, not at the end of the transaction, so a
  /// write whose rows are valid together can still be refused half-way: two rows swapping
  /// their names in one action, or a jump, restore or grouped undo that puts back names that
  /// were handed along (`a` took `b`'s, `b` took `c`'s). Held rows are tried again while any of
  /// them goes through. When none does, they keep one another's values (a cycle): one row's
  /// unique columns are moved aside (set to `NULL`, or to a random value that no row holds),
  /// which frees its values for the others, and its own values are written in a later round.
  /// Only the rows' final values are logged; the moves aside happen inside the transaction.
  ///
  /// - Parameter finally: When `false`, rows still held are left held (the write's deletes,
  ///   yet to run, may free their values). When `true`, they are refused with a
  ///   ``RewindError`` naming the row and the one keeping its values.
  mutating func writeHeldRows(in db: Database, finally: Bool) throws {
    var movedAside: Set<RowChange> = []
    while !held.isEmpty {
      let pending = held
      held = []
      for row in pending { try apply([row.change], row.direction, in: db) }
      if held.count < pending.count { continue }
      // None went through: they keep one another's values. Move one row's aside and go on.
      var moved = false
      for row in held where movedAside.insert(row.change).inserted {
        if try Self.moveAside(row, in: db) {
          moved = true
          break
        }
      }
      if !moved { break }
    }
    guard finally, let row = held.first else { return }
    held = []
    throw try Self.refusal(of: row, in: db)
  }

  /// Sets the unique columns of the row `held` replaces to values no other row holds, trying
  /// `NULL`, then a random blob, random text and a random integer (the column's type or a
  /// `CHECK` may refuse some). Returns whether a row was moved: `false` for a new row (none
  /// to move) or one whose columns refuse every value.
  private static func moveAside(_ held: HeldRow, in db: Database) throws -> Bool {
    let table = held.change.table
    let key = held.change.key
    let columns = try uniqueColumns(of: table, keyColumns: key.columns.names, in: db)
    guard !columns.isEmpty else { return false }
    let condition = key.columns.names.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: " AND ")
    for value in ["NULL", "randomblob(16)", "'rewind-' || lower(hex(randomblob(16)))", "random()"] {
      let assignments = columns.map { "\($0.quotedDatabaseIdentifier) = \(value)" }.joined(separator: ", ")
      do {
        try db.execute(
          sql: "UPDATE \(table.quotedDatabaseIdentifier) SET \(assignments) WHERE \(condition)",
          arguments: StatementArguments(key.values))
        return db.changesCount > 0
      } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
        continue
      }
    }
    return false
  }

  /// The columns of `table`'s unique indexes other than its primary key's, by name (an
  /// index on an expression has none to move).
  private static func uniqueColumns(of table: String, keyColumns: [String], in db: Database) throws -> [String] {
    let names = try String.fetchAll(
      db,
      sql: """
        SELECT DISTINCT info.name FROM pragma_index_list(?) AS list, pragma_index_info(list.name) AS info
        WHERE list."unique" AND list.origin <> 'pk' AND info.name IS NOT NULL
        """,
      arguments: [table])
    return names.filter { name in !keyColumns.contains { $0.caseInsensitiveCompare(name) == .orderedSame } }
  }

  /// The error for a row no order of the write lets in: names it, the values refused and the
  /// row keeping them, when SQLite's message names the columns.
  private static func refusal(of held: HeldRow, in db: Database) throws -> RewindError {
    let table = held.change.table
    let row = held.change.target(held.direction)
    // "UNIQUE constraint failed: seat.name, seat.row" (an index on an expression is named instead).
    let prefix = "UNIQUE constraint failed: "
    let columns =
      (held.error.message ?? "").hasPrefix(prefix)
      ? (held.error.message ?? "").dropFirst(prefix.count).split(separator: ", ").map {
        String($0.drop { $0 != "." }.dropFirst())
      }
      : []
    var values: [String: DatabaseValue] = [:]
    for column in columns { values[column] = row?[column] }
    var keeper: String?
    if !columns.isEmpty, values.count == columns.count {
      let keyColumns = held.change.key.columns.names
      let found = try Row.fetchOne(
        db,
        sql: """
          SELECT \(keyColumns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")) \
          FROM \(table.quotedDatabaseIdentifier) \
          WHERE \(columns.map { "\($0.quotedDatabaseIdentifier) IS ?" }.joined(separator: " AND ")) \
          AND NOT (\(keyColumns.map { "\($0.quotedDatabaseIdentifier) IS ?" }.joined(separator: " AND ")))
          """,
        arguments: StatementArguments(columns.map { values[$0]! } + held.change.key.values))
      keeper = found.map { "\(table) \(describe(RowImage(Dictionary(uniqueKeysWithValues: $0.map { ($0, $1) }))))" }
    }
    let refused = columns.isEmpty ? "its values" : describe(RowImage(values))
    return RewindError(
      .commitFailed,
      "\(table) \(describe(held.change.key)) cannot take \(refused): \(keeper.map { "\($0) keeps them" } ?? "another row keeps them"), and a UNIQUE constraint lets one row hold them; nothing was written",
      underlying: held.error)
  }
}
