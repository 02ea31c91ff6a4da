import GRDB

/// The statements every commit runs, prepared once per connection and found by their slot
/// rather than by their text: GRDB's statement cache hashes the whole SQL at each look-up
/// (about 800 instructions), and a send made six of them.
///
/// A reference type, so that the copies of a ``HistoryLog`` that callers keep (to put back
/// after a failed transaction) share one. Statements belong to one connection: used with
/// another, it prepares them again. (A statement keeps its connection's object allocated, so
/// no other connection can take its identity while one is held.)
final class PreparedStatements {
  enum Slot: Int, CaseIterable {
    case begin, commit, insertEntry, insertStep, extendStep

    var sql: String {
      switch self {
      case .begin: "BEGIN IMMEDIATE"
      case .commit: "COMMIT"
      case .insertEntry:
        """
        INSERT INTO action_log (seq, time, kind, action, payload, changes, step, group_key)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """
      case .insertStep: "INSERT INTO undo_steps (id, last_seq, group_key) VALUES (?, ?, ?)"
      case .extendStep: "UPDATE undo_steps SET last_seq = ? WHERE id = ?"
      }
    }
  }

  // Unchecked: private, used on the connection's queue only, and no access calls out while it
  // lasts; the run-time exclusivity check cost about 80 instructions on each of the four
  // look-ups a send makes.
  @exclusivity(unchecked) private var connection: ObjectIdentifier?
  @exclusivity(unchecked) private var statements = [Statement?](repeating: nil, count: Slot.allCases.count)

  /// The statement of `slot`, prepared on `db`.
  func statement(_ slot: Slot, in db: Database) throws -> Statement {
    if connection != ObjectIdentifier(db) {
      statements = [Statement?](repeating: nil, count: Slot.allCases.count)
      connection = ObjectIdentifier(db)
    }
    if let statement = statements[slot.rawValue] { return statement }
    let statement = try db.cachedStatement(sql: slot.sql)
    statements[slot.rawValue] = statement
    return statement
  }
}
