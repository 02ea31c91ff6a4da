import GRDB

/// One SQL statement the engine ran, with its arguments.
@_spi(Benchmarks)
public struct EngineStatement: Sendable {
  /// The statement's text, exactly as the engine prepares it.
  public var sql: String
  /// The values bound to its parameters, in order.
  public var arguments: [DatabaseValue]
}

@_spi(Benchmarks)
extension EngineStatement {
  /// The statements that wrote the log entries after `seq`, one array per entry: its row
  /// writes in the order the entry logs them, its undo-stack write, and its log insert, as
  /// ``Store/send(_:)`` ran them.
  ///
  /// For the benchmark's floor, which replays them through SQLite's C API to measure SQLite's
  /// own cost for exactly the engine's rows. Entries that moved the undo stacks (undo, redo,
  /// an action that clears the redo stack) are refused: the floor replays sends only.
  public static func entries(after seq: Int64, in db: Database) throws -> [[EngineStatement]] {
    let history = try HistoryLog(db)
    var writer = RowWriter()
    var entries: [[EngineStatement]] = []
    let rows = try Row.fetchCursor(
      db,
      sql:
        "SELECT seq, time, kind, action, payload, changes, step, group_key FROM action_log WHERE seq > ? ORDER BY seq",
      arguments: [seq])
    while let row = try rows.next() {
      let seq: Int64 = row["seq"]
      let kind: String = row["kind"]
      guard kind == LogEntry.Kind.action.rawValue else {
        throw RewindError(.invalidValue, "seq \(seq) is a \(kind) entry; only actions are replayed")
      }
      var statements = try history.decodeChanges(row).map { change in
        let (sql, arguments) = try writer.statement(for: change, .forward)
        return EngineStatement(sql: sql, arguments: arguments)
      }
      let step: Int64? = row["step"]
      let group: DatabaseValue = row["group_key"]
      if step == seq {
        statements.append(
          EngineStatement(
            sql: PreparedStatements.Slot.insertStep.sql,
            arguments: [seq.databaseValue, seq.databaseValue, group]))
      } else if let step {
        statements.append(
          EngineStatement(
            sql: PreparedStatements.Slot.extendStep.sql, arguments: [seq.databaseValue, step.databaseValue]))
      }
      statements.append(
        EngineStatement(
          sql: PreparedStatements.Slot.insertEntry.sql,
          arguments: ["seq", "time", "kind", "action", "payload", "changes", "step", "group_key"].map { row[$0] }))
      entries.append(statements)
    }
    return entries
  }
}
