import GRDB

extension Database {
  /// Runs `body` in an immediate transaction whose `BEGIN` and `COMMIT` are cached prepared
  /// statements: GRDB's `inTransaction` prepares them anew each time, which shows at the
  /// rate of one transaction per action. Rolls back if `body` or the commit throws.
  ///
  /// `IMMEDIATE` takes the write lock at once, so a concurrent writer (the `rewind` tool) makes
  /// this wait for the busy timeout rather than fail on a lock upgrade.
  func inImmediateTransaction<T>(_ body: () throws -> T) throws -> T {
    try cachedStatement(sql: "BEGIN IMMEDIATE").execute()
    do {
      let result = try body()
      try cachedStatement(sql: "COMMIT").execute()
      return result
    } catch {
      if isInsideTransaction { try? execute(sql: "ROLLBACK") }
      throw error
    }
  }
}
