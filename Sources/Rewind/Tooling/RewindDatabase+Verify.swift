import Foundation
import GRDB

extension RewindDatabase {
  /// Checks the file: SQLite's integrity check, the schema version, that replaying the log's
  /// row changes from the base reproduces every state table exactly (and every snapshot taken
  /// since the base), and that replaying its undo steps, undos and redos gives the `undo_steps`
  /// table (a step deleted or flipped by hand would make undo skip or mangle it).
  ///
  /// The check is one read transaction, in which an app may go on writing to the file.
  ///
  /// - Parameter progress: called with (entries replayed, entries in all) now and then.
  public func verify(progress: (Int, Int) -> Void = { _, _ in }) throws -> VerificationReport {
    try verify(progress: progress, keepingStateAt: { _, _ in nil }).report
  }

  /// ``verify(progress:)``, keeping the replayed state at the seq `keepingStateAt` picks in its
  /// read transaction (`nil`: none), for compaction's base: once the replay holds, that
  /// state is the file's at that seq, and reading it again would hold a read transaction as
  /// long as the state (2.5 s at 100,000 tasks).
  func verify(
    progress: (Int, Int) -> Void, keepingStateAt pick: (Database, HistoryLog) throws -> Int64?
  ) throws -> (report: VerificationReport, kept: (seq: Int64, rows: StateRows)?) {
    // The tables are compared with the replay row by row as they are read, so memory holds
    // the state once; only tables that differ are read whole, to list the differences in key
    // order. The replayed state is released after the read transaction, not in it (half a
    // second at 100,000 tasks, while an app's WAL cannot start over).
    let (checked, tables) = try read { db, history -> (VerificationRun, TableComparison?) in
      var run = try VerificationRun(db, history, keeping: pick)
      guard !run.abandoned else { return (run, nil) }
      try run.replayEntries(db, history, progress: progress)
      try run.finish(db, history, progress: progress)
      let catalog = history.tables
      let differing =
        try run.replayed.matchesTables(in: db, catalog: catalog) ? nil : try StateRows(db, catalog: catalog)
      return (run, TableComparison(catalog: catalog, differingRows: differing))
    }
    // Consumed, so that the run holds the only copy of the replayed state freed below.
    var run = consume checked
    if let tables { run.compare(tables) }
    // Freed off the caller's thread, as a released store's state is: a second at a million
    // tasks, a cache miss a row. (A state kept for compaction stays the caller's.)
    BackgroundRelease.free(run.takeReplay())
    return (run.report, run.kept)
  }
}

/// The state tables as verification compared them with the replayed log.
private struct TableComparison {
  let catalog: TableCatalog
  /// Every row of the tables, when they differ from the replay (`nil`: they match it).
  let differingRows: StateRows?
}

/// One run of ``RewindDatabase/verify(progress:)``: the file-wide checks, then the log
/// replayed from the base.
private struct VerificationRun {
  var report: VerificationReport
  /// The problems found before the replay: the replay stops after 20 more.
  var problemsBeforeReplay = 0
  /// There is nothing to replay from (the base snapshot is missing or unreadable): the report
  /// says why, and the run ends.
  var abandoned = false
  let keptSeq: Int64?
  var kept: (seq: Int64, rows: StateRows)?
  var replayed: StateRows
  var stacks: UndoStackReplay
  /// The snapshots after the base (`id`, `seq`), by seq: each is checked when the replay
  /// reaches its seq. Only their seqs: each snapshot's rows are read then, so memory holds one
  /// state and one snapshot at a time, however long the log.
  let snapshots: [Row]
  var nextSnapshot = 0
  /// The entries after the base.
  let total: Int
  var replayStopped = false
  var previousSeq: Int64
  /// The entry that last wrote each row, for a problem to name both entries: a replay that
  /// disagrees with an entry's before-image may as well come from the earlier one.
  var lastWriter: [String: [StateRows.Row: Int64]] = [:]
  var start: String
  /// What ``finish(_:_:progress:)`` found of snapshots stopped midway, said after the tables.
  var unfinishedParts: String?

  /// Runs the file-wide checks and starts the replay from the base.
  init(_ db: Database, _ history: HistoryLog, keeping pick: (Database, HistoryLog) throws -> Int64?) throws {
    keptSeq = try pick(db, history)
    report = try Self.fileWideChecks(db, history)
    previousSeq = history.baseSeq
    stacks = UndoStackReplay(baseSeq: history.baseSeq)
    start = history.baseSeq > 0 ? "as the base snapshot left it" : "no earlier entry wrote it"
    snapshots = try Row.fetchAll(
      db, sql: "SELECT id, seq FROM snapshots WHERE seq > ? ORDER BY seq", arguments: [history.baseSeq])
    total = try Int.fetchOne(db, sql: "SELECT count(*) FROM action_log WHERE \(HistoryLog.followsBase)") ?? 0
    // Start from the base: empty tables, or the state compaction folded history into.
    replayed = StateRows(empty: history.tables)
    if history.baseSeq > 0 {
      guard
        let base = try Row.fetchOne(
          db,
          sql:
            "SELECT seq, rows, part_set, checksum, schema_seq FROM snapshots WHERE kind = 'base' ORDER BY seq DESC LIMIT 1"
        )
      else {
        report.problems.append("history starts after seq \(history.baseSeq) but there is no base snapshot")
        abandoned = true
        return
      }
      do {
        replayed = try history.snapshotRows(base, db)
      } catch let error as RewindError {
        report.problems.append("base snapshot: \(error.message)")
        abandoned = true
        return
      }
    }
    // The replay's tables are sized for the rows the file's tables hold now, most of the rows
    // a long log's replay ends with: they grow once, not by doubling and rehashing every row
    // each time (a tenth of verify's time at 100,000 tasks). So are the last writers, when
    // the log writes every row.
    // (Best effort: a count that fails, on an index damaged, leaves the damage to the checks.)
    for table in history.tables.tableNames {
      let rows = (try? Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier)")) ?? 0
      replayed.tables[table, default: [:]].reserveCapacity(rows)
      if history.baseSeq == 0 { lastWriter[table, default: [:]].reserveCapacity(rows) }
    }
    if keptSeq == history.baseSeq { kept = (history.baseSeq, replayed) }
    // Snapshots at or before the base (labelled ones compaction kept, or a seq edited to
    // one) are still restored by label: the log no longer reaches them, so their checksum,
    // over their seq and rows, is what there is to check.
    for early in try Row.fetchAll(
      db, sql: "SELECT id, seq FROM snapshots WHERE seq <= ? AND NOT (kind = 'base' AND seq = ?) ORDER BY seq",
      arguments: [history.baseSeq, history.baseSeq])
    {
      try check(early, against: nil, db, history)
    }
    problemsBeforeReplay = report.problems.count
  }

  /// SQLite's integrity and foreign key checks, the schema versions, the order lists' entries
  /// and the log's JSON.
  private static func fileWideChecks(_ db: Database, _ history: HistoryLog) throws -> VerificationReport {
    var report = VerificationReport()
    let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
    if integrity == ["ok"] {
      report.passed.append("integrity_check: ok")
    } else {
      report.problems += integrity.map { "integrity_check: \($0)" }
    }

    let applied = try EngineMigrations.applied(db)
    let known = EngineMigrations.embedded.map(\.identifier)
    if applied == known {
      report.passed.append("schema: version \(applied.count), as this tool expects")
    } else {
      report.problems.append("schema: the file has migrations \(applied), this tool expects \(known)")
    }
    let app = history.tables.appSchema
    if !app.records.isEmpty {
      report.passed.append(
        "app schema: version \(app.version) (\(app.records.map(\.identifier).joined(separator: ", ")))")
    }

    let catalog = history.tables
    if !catalog.relations.isEmpty {
      let broken = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
      if broken.isEmpty {
        report.passed.append("foreign keys: every reference holds")
      } else {
        report.problems += broken.prefix(10).map { row in
          "foreign keys: \(row["table"] as String? ?? "?") row \(row["rowid"] as Int64? ?? 0) refers to a missing row of \(row["parent"] as String? ?? "?")"
        }
      }
    }

    // Every list entry names a row of its entity table (and of its owner table).
    let dangling = try catalog.danglingListEntries(db)
    if dangling.isEmpty {
      report.passed.append("order lists: every entry names an existing row")
    } else {
      report.problems += dangling
    }

    // The log's JSON is the engine's own, so SQLite does not parse it again on insert (engine
    // schema 7): an entry edited into invalid JSON is found here.
    let malformed = try Int64.fetchAll(
      db,
      sql: """
        SELECT seq FROM action_log \
        WHERE (NOT json_valid(payload) OR NOT json_valid(changes)) AND \(HistoryLog.followsBase) LIMIT 10
        """)
    report.problems += malformed.map { "action_log seq \($0): its payload or changes are not valid JSON" }
    return report
  }

  /// Replays the log's entries.
  mutating func replayEntries(_ db: Database, _ history: HistoryLog, progress: (Int, Int) -> Void) throws {
    let entries = try Row.fetchCursor(
      db,
      sql: """
        SELECT seq, action, kind, changes, step, group_key,
          CASE WHEN kind IN ('undo', 'redo') AND json_valid(payload) THEN json_extract(payload, '$.step') END AS moved
        FROM action_log WHERE \(HistoryLog.followsBase) ORDER BY seq
        """)
    while let entry = try entries.next() {
      guard try replay(entry, db, history) else {
        if replayStopped { return }
        continue
      }
      report.entriesReplayed += 1
      if report.entriesReplayed % 1_000 == 0 { progress(report.entriesReplayed, total) }
      if report.problems.count - problemsBeforeReplay > 20 {
        report.problems.append("(stopping after 20 problems in the log)")
        replayStopped = true
        return
      }
    }
  }

  /// Replays one entry, noting in `report` what disagrees. Returns `false` when the entry could
  /// not be replayed: its changes do not decode (the replay goes on without them), or the
  /// replay stopped (``replayStopped``).
  private mutating func replay(_ entry: Row, _ db: Database, _ history: HistoryLog) throws -> Bool {
    let seq: Int64
    let action: String
    do {
      seq = try entry.checked("seq", in: EngineTable.actionLog.name)
      action = try entry.checked("action", in: EngineTable.actionLog.name)
      let kind = try entry.checked("kind", in: EngineTable.actionLog.name, as: String.self)
      if LogEntry.Kind(rawValue: kind) == nil {
        report.problems.append("seq \(seq) (\(action)): kind \(kind) is not a kind of log entry")
      }
      stacks.apply(
        seq: seq, kind: kind, step: try entry.checked("step", in: EngineTable.actionLog.name),
        groupKey: try entry.checked("group_key", in: EngineTable.actionLog.name),
        moved: entry["moved"])
    } catch let error as RewindError {
      report.problems.append(error.message)
      replayStopped = true
      return false
    }
    while nextSnapshot < snapshots.count,
      try snapshots[nextSnapshot].checked("seq", in: EngineTable.snapshots.name, as: Int64.self) < seq
    {
      try check(snapshots[nextSnapshot], against: replayed, db, history)
      nextSnapshot += 1
    }
    if seq != previousSeq + 1 {
      report.problems.append("action_log: seq \(previousSeq + 1) to \(seq - 1) are missing")
    }
    previousSeq = seq
    let changes: [RowChange]
    do {
      changes = try history.decodeChanges(entry)
    } catch let error as RewindError {
      report.problems.append("\(error.message) (\(action))")
      return false
    }
    // In the entry's order, as `apply` and undo apply them: the second of two changes to one
    // row starts from the row the first one left.
    for change in changes {
      let actual = replayed.replace(with: change, .forward)
      if actual != change.before {
        let source =
          lastWriter[change.table]?[change.key].map { "as seq \($0) left it; one of the two entries is wrong" }
          ?? start
        report.problems.append(
          "seq \(seq) (\(action)): \(change.table) \(describe(change.key)) should be \(describe(change.before)) before the change, but replay has \(describe(actual)) (\(source))"
        )
      }
      lastWriter[change.table, default: [:]][change.key] = seq
    }
    // History does not cross a barrier migration: what follows starts from its snapshot.
    if history.tables.appSchema.barriers.contains(seq) {
      guard
        let snapshot = try Row.fetchOne(
          db,
          sql: "SELECT seq, rows, part_set, checksum, schema_seq FROM snapshots WHERE seq = ? ORDER BY id LIMIT 1",
          arguments: [seq])
      else {
        report.problems.append("seq \(seq) (\(action)): the barrier migration has no snapshot to start from")
        replayStopped = true
        return false
      }
      do {
        replayed = try history.snapshotRows(snapshot, db)
        (lastWriter, start) = ([:], "as the snapshot of the migration at seq \(seq) left it")
      } catch let error as RewindError {
        report.problems.append("barrier snapshot: \(error.message)")
        replayStopped = true
        return false
      }
    }
    if seq == keptSeq { kept = (seq, replayed) }
    return true
  }

  /// The checks after the replay: the snapshots it has not reached and the undo stacks.
  mutating func finish(_ db: Database, _ history: HistoryLog, progress: (Int, Int) -> Void) throws {
    while nextSnapshot < snapshots.count {
      try check(snapshots[nextSnapshot], against: replayed, db, history)
      nextSnapshot += 1
    }
    progress(report.entriesReplayed, total)
    if report.problems.count == problemsBeforeReplay {
      let entries = report.entriesReplayed == 1 ? "1 entry replays" : "\(report.entriesReplayed) entries replay"
      report.passed.append("action_log: \(entries) without conflicts")
    }

    // The undo and redo stacks must be the ones the log's entries built (a replay that stopped
    // early has not seen every step: the table would differ from it everywhere after).
    let stackProblems = stacks.problems + (replayStopped ? [] : try stacks.differences(from: db))
    if stackProblems.isEmpty, !replayStopped {
      report.passed.append("undo_steps: the undo and redo stacks are the ones the log built")
    } else {
      report.problems += stackProblems.prefix(10)
    }

    // Parts no snapshot names are not damage: a snapshot stopped midway (a process killed)
    // left them, or one is being written now. Said (after the tables), so that the bytes they
    // hold are explained.
    if let unfinished = try Row.fetchOne(
      db,
      sql: """
        SELECT count(*), count(DISTINCT part_set) FROM snapshot_parts
        WHERE part_set NOT IN (SELECT part_set FROM snapshots WHERE part_set IS NOT NULL)
        """),
      let parts = unfinished[0] as Int?, parts > 0, let sets = unfinished[1] as Int?
    {
      unfinishedParts =
        "snapshot_parts: \(parts) part\(parts == 1 ? "" : "s") of \(sets) unfinished snapshot\(sets == 1 ? "" : "s") (stopped midway, or being written now), removed by the next snapshot stored an hour or more after they were written"
    }
  }

  /// The replayed state and the last writers of its rows, moved out of the run.
  mutating func takeReplay() -> (StateRows, [String: [StateRows.Row: Int64]]) {
    defer { (replayed, lastWriter) = (StateRows(tables: [:]), [:]) }
    return (replayed, lastWriter)
  }

  /// Reports how the tables, read in the replay's transaction, compared with the replay: they
  /// must be exactly what the log says.
  mutating func compare(_ tables: TableComparison) {
    let problemsBefore = report.problems.count
    for change in (tables.differingRows?.changes(to: replayed) ?? []).prefix(20) {
      report.problems.append(
        "\(change.table) \(describe(change.key)): the table has \(describe(change.before)), the log says \(describe(change.after))"
      )
    }
    if report.problems.count == problemsBefore {
      report.passed.append(
        "tables: \(tables.catalog.tableNames.joined(separator: ", ")) match the replayed log exactly")
    }
    if let unfinishedParts { report.passed.append(unfinishedParts) }
  }

  /// Checks the snapshot `listed` names: its checksum, and its rows against `rows`, the
  /// replayed state at its seq (`nil`: the log does not reach it).
  private mutating func check(_ listed: Row, against rows: StateRows?, _ db: Database, _ history: HistoryLog) throws {
    let name: String
    let seq: Int64
    let stored: StateRows
    do {
      guard
        let snapshot = try Row.fetchOne(
          db, sql: "SELECT label, seq, kind, rows, part_set, checksum, schema_seq FROM snapshots WHERE id = ?",
          arguments: [listed["id"]])
      else { return }
      name =
        try (snapshot.checked("label", in: EngineTable.snapshots.name, as: String?.self)).map { "\"\($0)\"" }
        ?? "(\(try snapshot.checked("kind", in: EngineTable.snapshots.name, as: String.self)))"
      seq = try snapshot.checked("seq", in: EngineTable.snapshots.name)
      stored = try history.snapshotRows(snapshot, db)
    } catch let error as RewindError {
      report.problems.append("snapshot: \(error.message)")
      return
    }
    guard let rows else {
      report.passed.append(
        "snapshot \(name) at seq \(seq), before the history kept, holds the rows and seq it was taken with")
      return
    }
    if stored == rows {
      report.passed.append("snapshot \(name) at seq \(seq) matches the log")
    } else {
      let first = rows.changes(to: stored).first.map { "\($0.table) \(describe($0.key))" } ?? ""
      report.problems.append("snapshot \(name) at seq \(seq) differs from the log, first at \(first)")
    }
  }
}
