import GRDB
import GRDBSQLite

extension Statement {
  /// Runs the statement once with `values` bound through SQLite's C API.
  ///
  /// For the statements every commit runs (row writes, the log insert): building GRDB's
  /// `StatementArguments` and binding through it cost about as much as SQLite's own work for
  /// the statement. Errors are GRDB's `DatabaseError`, with SQLite's extended result code.
  func execute(binding values: [DatabaseValue]) throws {
    let handle = sqliteStatement
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      let code: Int32
      switch value.storage {
      case .null: code = sqlite3_bind_null(handle, index)
      case .int64(let int): code = sqlite3_bind_int64(handle, index, int)
      case .double(let double): code = sqlite3_bind_double(handle, index, double)
      case .string(let text): code = sqlite3_bind_text(handle, index, text, -1, Self.transient)
      case .blob(let data):
        code = data.withUnsafeBytes {
          sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), Self.transient)
        }
      }
      guard code == SQLITE_OK else { throw failure(code) }
    }
    let code = sqlite3_step(handle)
    guard code == SQLITE_DONE || code == SQLITE_ROW else {
      let error = failure(code)
      sqlite3_reset(handle)
      throw error
    }
    sqlite3_reset(handle)
  }

  /// Runs the statement, which returns one integer (or nothing), through SQLite's C API.
  func integer() throws -> Int64? {
    let handle = sqliteStatement
    defer { sqlite3_reset(handle) }
    switch sqlite3_step(handle) {
    case SQLITE_ROW:
      return sqlite3_column_type(handle, 0) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, 0)
    case SQLITE_DONE:
      return nil
    case let code:
      throw failure(code)
    }
  }

  private func failure(_ code: Int32) -> DatabaseError {
    let connection = sqlite3_db_handle(sqliteStatement)
    return DatabaseError(
      resultCode: ResultCode(rawValue: connection.map { sqlite3_extended_errcode($0) } ?? code),
      message: connection.map { String(cString: sqlite3_errmsg($0)) }, sql: sql)
  }

  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
