import Foundation
import GRDB

extension RowWriter {
  /// Writes the rows a `UNIQUE` constraint held back (see ``held``), now that the rows keeping
  /// their values have moved.
  ///
  /// SQLite checks a `UNIQUE` constraint at each row, not at the end of the transaction, so a
  /// write whose rows are valid together can still be refused half-way: two rows swapping
  /// their names in one action, or a jump, restore or grouped undo that puts back names that
  /// were handed along (`a` took `b`'s, `b` took `c`'s). A refused row is written aside at once
  /// (``writeAside(_:_:refusedBy:in:)``), which frees the values it held for the rows after
  /// it; held rows are tried again, while any goes through, for their own values. Only the
  /// rows' final values are logged.
  ///
  /// - Parameter finally: When `false`, rows still held are left held (the write's deletes,
  ///   yet to run, may free their values). When `true`, they are refused with a
  ///   ``RewindError`` naming the row and the one keeping its values.
  mutating func writeHeldRows(in db: Database, finally: Bool) throws {
    while !held.isEmpty {
      let pending = held
      held = []
      for row in pending { try apply([row.change], row.direction, in: db) }
      if held.count == pending.count { break }
    }
    guard finally, let row = held.first else { return }
    held = []
    throw try Self.refusal(of: row, in: db)
  }

  /// Writes the row `change` targets with the values a `UNIQUE` constraint refused set aside:
  /// a random value of each one's type (text, integer, real or blob, so that the column's
  /// type, and a reader of the row, take it), no other row's. The row then holds its other
  /// values (a reference to a new parent, which a cascade looks at before the row gets its
  /// own values) and no longer keeps the values it gave up. A row that no value aside lets
  /// in (a `CHECK` on the column, a unique index on an expression, which names no column)
  /// is left as it was, to be written in its turn or refused.
  static func writeAside(
    _ change: RowChange, _ direction: ChangeDirection, refusedBy error: DatabaseError, in db: Database
  ) throws {
    guard var row = change.target(direction) else { return }
    var error = error
    var replaced: Set<String> = []
    // Each try names the next index refusing it (a row may hold values of several).
    for _ in 0..<8 {
      let fresh = conflictingColumns(error, table: change.table).filter { !replaced.contains($0) && row[$0] != nil }
      guard !fresh.isEmpty else { return }
      replaced.formUnion(fresh)
      for column in fresh { row = row.setting(column, to: Self.asideValue(like: row[column]!)) }
      do {
        try db.execute(
          sql: upsertSQL(table: change.table, columns: row.columns.names, keyColumns: change.key.columns.names),
          arguments: StatementArguments(row.values))
        return
      } catch let next as DatabaseError where next.resultCode == .SQLITE_CONSTRAINT {
        guard db.isInsideTransaction else { throw next }
        guard next.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE else { return }
        error = next
      }
    }
  }

  /// A value of `value`'s type that no row holds (random, 122 bits for text and blobs, 62 for
  /// numbers).
  private static func asideValue(like value: DatabaseValue) -> DatabaseValue {
    switch value.storage {
    case .null: .null
    case .int64: Int64.random(in: 1...Int64.max).databaseValue
    case .double: Double(Int64.random(in: 1...(1 << 62))).databaseValue
    case .string: "rewind-aside-\(UUID().uuidString.lowercased())".databaseValue
    case .blob: withUnsafeBytes(of: UUID().uuid) { Data($0) }.databaseValue
    }
  }

  /// The columns of `table` SQLite's message names ("UNIQUE constraint failed: seat.name,
  /// seat.badge"); none for an index on an expression, which it names instead.
  private static func conflictingColumns(_ error: DatabaseError, table: String) -> [String] {
    let prefix = "UNIQUE constraint failed: "
    guard let message = error.message, message.hasPrefix(prefix) else { return [] }
    return message.dropFirst(prefix.count).components(separatedBy: ", ").compactMap { qualified in
      qualified.hasPrefix(table + ".") ? String(qualified.dropFirst(table.count + 1)) : nil
    }
  }

  /// The error for a row no order of the write lets in: names it, the values refused and the
  /// row keeping them, when SQLite's message names the columns.
  private static func refusal(of held: HeldRow, in db: Database) throws -> RewindError {
    let table = held.change.table
    let row = held.change.target(held.direction)
    let columns = conflictingColumns(held.error, table: table)
    var values: [String: DatabaseValue] = [:]
    for column in columns { values[column] = row?[column] }
    guard !columns.isEmpty, values.count == columns.count else {
      return RewindError(
        .commitFailed,
        "\(table) \(describe(held.change.key)) cannot be written: \(held.error.message ?? "a UNIQUE constraint refuses it") (a unique index on an expression: its values cannot be set aside while rows trade them, and another row keeps them); nothing was written",
        underlying: held.error)
    }
    let keyColumns = held.change.key.columns.names
    let keeper = try Row.fetchOne(
      db,
      sql: """
        SELECT \(keyColumns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")) \
        FROM \(table.quotedDatabaseIdentifier) \
        WHERE \(columns.map { "\($0.quotedDatabaseIdentifier) IS ?" }.joined(separator: " AND ")) \
        AND NOT (\(keyColumns.map { "\($0.quotedDatabaseIdentifier) IS ?" }.joined(separator: " AND ")))
        """,
      arguments: StatementArguments(columns.map { values[$0]! } + held.change.key.values)
    ).map { "\(table) \(describe(StateRows.image(of: $0, in: table)))" }
    return RewindError(
      .commitFailed,
      "\(table) \(describe(held.change.key)) cannot take \(describe(RowImage(values))): \(keeper ?? "another row") keeps them, and a UNIQUE constraint lets one row hold them; nothing was written",
      underlying: held.error)
  }
}
