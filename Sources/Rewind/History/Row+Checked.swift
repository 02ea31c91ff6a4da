import GRDB

extension Row {
  /// The value of `column`, type-checked: a value of another type (written with plain `sqlite3`,
  /// say) is a ``RewindError`` naming the table, the column and the row, never a crash.
  @usableFromInline
  func checked<Value: DatabaseValueConvertible>(
    _ column: String, in table: String, as type: Value.Type = Value.self
  ) throws -> Value {
    do {
      return try decode(forColumn: column)
    } catch {
      let value: DatabaseValue = self[column] ?? .null
      throw RewindError(
        .corruptData,
        "\(table).\(column) holds \(value) where \(Self.expected(Value.self)) belongs (row \(self))")
    }
  }

  private static func expected(_ type: Any.Type) -> String {
    switch type {
    case is Int64.Type, is Int64?.Type, is Int.Type, is Int?.Type: "an integer"
    case is Bool.Type, is Bool?.Type: "a boolean (0 or 1)"
    case is String.Type, is String?.Type: "text"
    default: "a \(type)"
    }
  }
}

extension DatabaseValue {
  /// The integer this value holds, `.some(nil)` for NULL, and `nil` for a value of another
  /// type (a real, even a whole one, or text): stricter than GRDB's `Int64` decoding.
  var integerOrNull: Int64?? {
    switch storage {
    case .null: .some(nil)
    case .int64(let integer): integer
    default: nil
    }
  }
}

extension Database {
  /// One integer, type-checked, from a query of one row and one column (`nil` when no row or
  /// NULL).
  func checkedInteger(_ sql: String, arguments: StatementArguments = [], what: String) throws -> Int64? {
    guard let row = try Row.fetchOne(cachedStatement(sql: sql), arguments: arguments) else { return nil }
    let value = row[0] as DatabaseValue
    guard case .some(let integer) = value.integerOrNull else {
      throw RewindError(.corruptData, "\(what) holds \(value) where an integer belongs")
    }
    return integer
  }
}
