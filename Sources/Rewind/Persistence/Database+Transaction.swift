import GRDB

extension Database {
  /// Runs `body` in an immediate transaction. Rolls back if `body` or the commit throws.
  ///
  /// `IMMEDIATE` takes the write lock at once, so a concurrent writer (the `rewind` tool) makes
  /// this wait for the busy timeout rather than fail on a lock upgrade.
  ///
  /// - Parameter statements: where the connection's `BEGIN` and `COMMIT` are kept, for a
  ///   caller that runs a transaction per action. They then run through SQLite's C API, as the
  ///   statements inside do: GRDB's layer around each statement (its transaction observers,
  ///   of which this connection has none; its transaction date, which Rewind does not use)
  ///   cost about 5,000 instructions a transaction. Without it, they run through GRDB, cached.
  func inImmediateTransaction<T>(
    statements: PreparedStatements? = nil, _ body: () throws -> T
  ) throws -> T {
    func run(_ slot: PreparedStatements.Slot) throws {
      if let statements {
        try statements.statement(slot, in: self).execute(binding: [])
      } else {
        try cachedStatement(sql: slot.sql).execute()
      }
    }
    try run(.begin)
    do {
      let result = try body()
      do {
        try run(.commit)
      } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
        // Tables that refer to each other have their foreign keys checked at commit.
        throw RewindError(
          .relationViolation,
          "the write would leave a row referring to a row that does not exist (a foreign key); nothing was written",
          underlying: error)
      }
      return result
    } catch {
      if isInsideTransaction { try? execute(sql: "ROLLBACK") }
      throw error
    }
  }
}
