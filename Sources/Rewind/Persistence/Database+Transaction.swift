import GRDB

extension Database {
  /// Runs `body` in an immediate transaction whose `BEGIN` and `COMMIT` are cached prepared
  /// statements: GRDB's `inTransaction` prepares them anew each time, which shows at the
  /// rate of one transaction per action. Rolls back if `body` or the commit throws.
  ///
  /// `IMMEDIATE` takes the write lock at once, so a concurrent writer (the `rewind` tool) makes
  /// this wait for the busy timeout rather than fail on a lock upgrade.
  ///
  /// - Parameter statements: where the connection's `BEGIN` and `COMMIT` are kept, for a
  ///   caller that runs a transaction per action.
  func inImmediateTransaction<T>(
    statements: PreparedStatements? = nil, _ body: () throws -> T
  ) throws -> T {
    try (statements?.statement(.begin, in: self) ?? cachedStatement(sql: PreparedStatements.Slot.begin.sql)).execute()
    do {
      let result = try body()
      do {
        try (statements?.statement(.commit, in: self) ?? cachedStatement(sql: PreparedStatements.Slot.commit.sql))
          .execute()
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
