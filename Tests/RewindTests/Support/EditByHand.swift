import GRDB

/// Runs `sql` on the file at `path` outside the engine, in one transaction, with foreign keys
/// off as the `sqlite3` shell has them (set outside any transaction, where SQLite ignores it):
/// an edit by hand.
func editByHand(_ path: String, _ sql: String) throws {
  let queue = try DatabaseQueue(path: path)
  try queue.writeWithoutTransaction { db in
    try db.execute(sql: "PRAGMA foreign_keys = OFF")
    try db.inTransaction {
      try db.execute(sql: sql)
      return .commit
    }
  }
  try queue.close()
}
