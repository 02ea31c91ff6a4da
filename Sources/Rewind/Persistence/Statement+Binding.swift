import GRDB
import GRDBSQLite

extension Statement {
  /// Runs the statement once with `values` bound through SQLite's C API.
  ///
  /// For the statements every commit runs (row writes, the log insert): building GRDB's
  /// `StatementArguments` and binding through it cost about as much as SQLite's own work for
  /// the statement. Errors are GRDB's `DatabaseError`, with SQLite's extended result code.
  func execute(binding values: [DatabaseValue]) throws {
    try execute { $0.bind(values) }
  }

  /// Runs the statement once with its parameters bound by `bind`, in order, through SQLite's
  /// C API: for the log insert, whose JSON and time are bound from the bytes they were written
  /// into, with no `String` made of them and no array of values.
  ///
  /// Text is copied into a buffer on the stack and bound from there without SQLite's copy
  /// (`SQLITE_STATIC`): SQLite's own copy allocated and later freed each value, about 500
  /// instructions a value, eight values a send. The bindings are cleared before the buffer
  /// goes, so that none points into it after.
  func execute(bindingWith bind: (inout Parameters) throws -> Void) throws {
    let handle = sqliteStatement
    try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Parameters.scratchCapacity) { scratch in
      var parameters = Parameters(handle: handle, scratch: scratch)
      defer { if parameters.boundFromScratch { sqlite3_clear_bindings(handle) } }
      try bind(&parameters)
      guard parameters.code == SQLITE_OK else { throw failure(parameters.code) }
      let code = sqlite3_step(handle)
      guard code == SQLITE_DONE || code == SQLITE_ROW else {
        let error = failure(code)
        sqlite3_reset(handle)
        throw error
      }
      sqlite3_reset(handle)
    }
  }

  /// Binds the statement's parameters with `bind`, in order, each text copied by SQLite;
  /// throws the error of the binding that failed, if one did.
  private func bindParameters(_ bind: (inout Parameters) throws -> Void) throws {
    var parameters = Parameters(handle: sqliteStatement, scratch: nil)
    try bind(&parameters)
    guard parameters.code == SQLITE_OK else { throw failure(parameters.code) }
  }

  /// A statement's parameters, bound one after the other (see ``execute(bindingWith:)``).
  struct Parameters: ~Copyable {
    fileprivate let handle: SQLiteStatement
    private var index: Int32 = 1
    /// SQLite's result code for the binding that failed (the parameters after it are not
    /// bound), or `SQLITE_OK`.
    fileprivate private(set) var code = SQLITE_OK
    /// Where text is copied to be bound without SQLite's copy, until it is full (then SQLite
    /// copies the rest); nil: SQLite copies every text.
    private let scratch: UnsafeMutableBufferPointer<UInt8>?
    private var scratchUsed = 0
    /// Whether a parameter is bound from `scratch`: it must be cleared before `scratch` goes.
    fileprivate var boundFromScratch: Bool { scratchUsed > 0 }

    /// The bytes of text a statement's execution binds without SQLite's copy: the texts of a
    /// send's statements (a row's values, an entry's changes) fit. 1,024 is the most that
    /// `withUnsafeTemporaryAllocation` puts on the stack with no check; past it, it asks the
    /// runtime for the thread's stack bounds, or allocates.
    fileprivate static let scratchCapacity = 1_024

    fileprivate init(handle: SQLiteStatement, scratch: UnsafeMutableBufferPointer<UInt8>?) {
      (self.handle, self.scratch) = (handle, scratch)
    }

    /// Binds `value` to the next parameter.
    mutating func bind(_ value: DatabaseValue) {
      guard code == SQLITE_OK else { return skip() }
      switch value.storage {
      case .null: record(sqlite3_bind_null(handle, index))
      case .int64(let int): record(sqlite3_bind_int64(handle, index, int))
      case .double(let double): record(sqlite3_bind_double(handle, index, double))
      // With its length: SQLite stores the text whole, as the log's JSON holds it.
      case .string(var text): text.withUTF8 { bind(text: $0) }
      // SQLite binds a null pointer as NULL, and an empty `Data`'s bytes may have none.
      case .blob(let data) where data.isEmpty: record(sqlite3_bind_zeroblob(handle, index, 0))
      case .blob(let data):
        record(data.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), transient) })
      }
    }

    /// Binds `values` to the next parameters, in order.
    mutating func bind(_ values: [DatabaseValue]) {
      // Read in place: each value taken out of the array was copied, and destroyed after.
      values.withUnsafeBufferPointer { values in
        for index in values.indices { bind(values[index]) }
      }
    }

    /// Binds UTF-8 `text` (with no NUL in it) to the next parameter.
    mutating func bind(text: UnsafeBufferPointer<UInt8>) {
      guard code == SQLITE_OK else { return skip() }
      guard text.count <= Int32.max else { return record(SQLITE_TOOBIG) }
      // SQLite binds a null pointer as NULL: empty text is bound from a literal.
      if text.isEmpty { return record(sqlite3_bind_text(handle, index, "", 0, transient)) }
      if let scratch, let source = text.baseAddress, scratch.count - scratchUsed >= text.count {
        let copy = scratch.baseAddress! + scratchUsed
        copy.initialize(from: source, count: text.count)
        scratchUsed += text.count
        return copy.withMemoryRebound(to: CChar.self, capacity: text.count) {
          record(sqlite3_bind_text(handle, index, $0, Int32(text.count), nil))
        }
      }
      record(
        text.withMemoryRebound(to: CChar.self) {
          sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), transient)
        })
    }

    private mutating func record(_ result: Int32) {
      code = result
      index += 1
    }

    /// Passes a parameter by once one failed: a binding that succeeded after it would clear
    /// the connection's error, and the failure would be reported as "not an error".
    private mutating func skip() {
      index += 1
    }
  }

  /// Runs the statement with `values` bound and calls `body` with each row, read through
  /// SQLite's C API (`sqlite3_column_*` on the handle): for loading whole tables, where GRDB's
  /// row decoding costs more than SQLite's own work per row.
  @usableFromInline
  func forEachRow(binding values: [DatabaseValue], _ body: (SQLiteStatement) throws -> Void) throws {
    let handle = sqliteStatement
    defer { sqlite3_reset(handle) }
    try bindParameters { $0.bind(values) }
    while true {
      switch sqlite3_step(handle) {
      case SQLITE_ROW: try body(handle)
      case SQLITE_DONE: return
      case let code: throw failure(code)
      }
    }
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

  /// The error for result `code`: with the connection's extended code and message when they
  /// are about it, or else `code` and SQLite's text for it (a failure found before SQLite was
  /// called, or one a later call has cleared from the connection).
  private func failure(_ code: Int32) -> DatabaseError {
    if let connection = sqlite3_db_handle(sqliteStatement), sqlite3_errcode(connection) & 0xFF == code & 0xFF {
      return DatabaseError(
        resultCode: ResultCode(rawValue: sqlite3_extended_errcode(connection)),
        message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }
    return DatabaseError(
      resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errstr(code)), sql: sql)
  }

}

/// SQLite copies the bound text or blob before the call returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
