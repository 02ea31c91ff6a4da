import Foundation
import GRDB

extension RewindDatabase {
  /// Checks the file: SQLite's integrity check, the schema version, that replaying the log's
  /// row changes from the base reproduces every state table exactly (and every snapshot taken
  /// since the base), and that replaying its undo steps, undos and redos gives the `undo_steps`
  /// table (a step deleted or flipped by hand would make undo skip or mangle it).
  ///
  /// An app may go on writing to the file meanwhile. The check is a series of short read
  /// transactions, so that the app's WAL starts over between them rather than grow for the
  /// whole check: the file-wide checks, then the log replayed some 8 MiB of changes at a time,
  /// then each table compared with the replay (caught up first with what the app wrote
  /// meanwhile). A snapshot the replay reaches ends a read: its text is read there, and parsed
  /// and compared after (as the base's is, each snapshot kept from before the base, and a
  /// barrier migration's, which the replay goes on from). Before each read `verify` waits, up
  /// to 0.2 s, while the app's WAL is long and the app goes on writing, for the WAL to start
  /// over (it does once the app's checkpoint has copied what it wrote during the last read). At a
  /// million tasks the longest read is about 3 s (the integrity check, or comparing the
  /// largest table). Entries do not change once written, so what the replay passed still
  /// holds; if a compaction or a migration (which rewrites entries) happens in between, the
  /// check starts over, and `progress` with it. A snapshot stored while the check runs is
  /// compared with the replay if its seq is still ahead of it, and otherwise checked by its
  /// checksum once the replay has caught up (unless a table differs).
  ///
  /// - Parameter progress: called with (entries replayed, entries in all) now and then.
  public func verify(progress: (Int, Int) -> Void = { _, _ in }) throws -> VerificationReport {
    try verify(progress: progress, keepingStateAt: { _, _ in nil }).report
  }

  /// ``verify(progress:)``, keeping the replayed state at the seq `keepingStateAt` picks (`nil`:
  /// none), for compaction's base: once the replay holds, that state is the file's at that
  /// seq, and reading it again would hold a read transaction as long as the state (2.5 s at
  /// 100,000 tasks).
  ///
  /// The log is replayed in read transactions of at most `entriesPerRead` entries, and about
  /// `changeBytesPerRead` of their changes' text, then each table is compared in a read of its
  /// own, so that an app writing to the file meanwhile sees its WAL start over between them,
  /// rather than grow for as long as the whole check. Before each read, `verify` waits (at most
  /// `walPatience`) while that WAL is long and the app goes on writing: its checkpoint copies
  /// what it wrote during the last read, and its next commit starts the WAL over. Then
  /// `betweenReads` runs (for tests). The entries a replay has passed do not change: the log
  /// only grows. Compaction is the one thing that removes entries; when the base moved between
  /// two reads (or the engine's or the app's schema changed), the check starts over.
  func verify(
    progress: (Int, Int) -> Void, keepingStateAt pick: (Database, HistoryLog) throws -> Int64?,
    entriesPerRead: Int = entriesPerVerifyRead, changeBytesPerRead: Int = changeBytesPerVerifyRead,
    walPatience: WALIndexHeader.Patience = .betweenReads, betweenReads: () throws -> Void = {}
  ) throws -> (report: VerificationReport, kept: (seq: Int64, rows: StateRows)?) {
    precondition(entriesPerRead > 0 && changeBytesPerRead > 0, "a read must replay something")
    let limit = VerificationRun.ReadLimit(entries: entriesPerRead, changeBytes: changeBytesPerRead)
    var attempts = 0
    while true {
      if let verified = try verifyOnce(progress, pick, limit, walPatience, betweenReads: betweenReads) {
        return verified
      }
      attempts += 1
      guard attempts < 3 else {
        throw RewindError(
          .externalChange,
          "the file's history was compacted (or the file migrated) while verify read it, \(attempts) times in a row: run verify again"
        )
      }
    }
  }

  /// The most log entries ``verify(progress:)`` replays in one read transaction (about a
  /// quarter of a second's worth of small entries)...
  static var entriesPerVerifyRead: Int { 20_000 }
  /// ...and the text of their changes it reads in one, past which it ends the read after the
  /// entry (a state's creation is entries of a megabyte or more: 8 MiB is about a third of a
  /// second of them).
  static var changeBytesPerVerifyRead: Int { 8 << 20 }

  /// One ``verify(progress:keepingStateAt:entriesPerRead:changeBytesPerRead:walPatience:betweenReads:)``
  /// from the base; `nil` when the base moved (or a schema changed) between two of its reads.
  private func verifyOnce(
    _ progress: (Int, Int) -> Void, _ pick: (Database, HistoryLog) throws -> Int64?,
    _ limit: VerificationRun.ReadLimit, _ walPatience: WALIndexHeader.Patience, betweenReads: () throws -> Void
  ) throws -> (report: VerificationReport, kept: (seq: Int64, rows: StateRows)?)? {
    var run = try read { db, history in try VerificationRun(db, history, keeping: pick) }
    // Its base parsed after the read: 5 s of a million tasks' compacted file.
    try run.startFromBase()
    var tables: TableComparison?
    // Once the replay has caught up with the log, each read compares one table with it, row by
    // row as the table is read, so memory holds the state once, and no read lasts as long as
    // reading every table (5.8 s at a million tasks). A table that differs is said with every
    // table read whole, in that same read, to list the differences in key order.
    var compared: Set<String> = []
    // An app that appends faster than the replay catches up would keep it going: after 16
    // reads that did not catch up again, the rest is replayed in one read, however long.
    var (limit, caughtUp, lagging) = (limit, false, 0)
    // A long WAL no app writes to: waited for once, not before every read.
    var idleWAL: WALIndexHeader?
    while !run.abandoned {
      // An app writing meanwhile: its WAL starts over before the next read, not after the check.
      _ = WALIndexHeader.waitForTheWALToStartOver(ofDatabaseAt: path, patience: walPatience, idle: &idleWAL)
      try betweenReads()
      let finished = try read { db, history -> Bool? in
        guard try run.follows(db, history) else { return nil }
        if try run.readEarlySnapshot(db, history) { return false }
        guard try run.replayEntries(db, history, upTo: limit, progress: progress) else {
          // (A read that ends at a snapshot the app stored meanwhile is no lag.)
          if caughtUp, !run.endsAtSnapshot { lagging += 1 }
          if lagging >= 16 { limit = VerificationRun.ReadLimit(entries: .max, changeBytes: .max) }
          return false
        }
        // Snapshots after the last entry: each read, then compared, as the replay's are.
        if try run.readSnapshot(dueBefore: .max, db, history) { return false }
        caughtUp = true
        let catalog = history.tables
        var matching = run.replayed.holdsNoRows(outside: catalog)
        if matching, let table = catalog.tableNames.first(where: { !compared.contains($0) }) {
          compared.insert(table)
          matching = try run.replayed.matchesTable(table, in: db, catalog: catalog)
          if matching { return false }
        }
        // (When a table differs, the tables are listed now, in this read.)
        if matching, try run.readSnapshotBehindTheReplay(db, history) { return false }
        try run.finish(db, history, progress: progress)
        tables = TableComparison(catalog: catalog, differingRows: matching ? nil : try StateRows(db, catalog: catalog))
        return true
      }
      guard let finished else {
        BackgroundRelease.free(run.takeReplay())
        return nil
      }
      try run.startFromBarrier()
      try run.compareSnapshotRead()
      if finished { break }
    }
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
/// replayed from the base, in as many read transactions as it takes.
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
  /// The snapshots after the base (`id`, `seq`), by seq, not yet checked: each is checked
  /// when the replay reaches its seq. Only their seqs: each snapshot's rows are read then, so
  /// memory holds one state and one snapshot at a time, however long the log. (Listed again
  /// in each read: the app may store one meanwhile.)
  var snapshots: [Row]
  var nextSnapshot = 0
  /// The snapshots after the base read so far (`id`s): a read that ends at one lists it again.
  var checkedSnapshots: Set<Int64> = []
  /// The snapshot the last read reached, compared with the replay after it.
  private var snapshotRead: SnapshotRead?
  /// The entries after the base (more when the app appends some while the replay goes on).
  var total: Int
  /// The base and the engine's and the app's schemas the replay started from: the replay goes
  /// on only while the file still has them (see ``follows(_:_:)``).
  let baseSeq: Int64
  let engineMigrations: Int
  let appSchemaVersion: Int
  var replayStopped = false
  var previousSeq: Int64
  /// The entry that last wrote each row, for a problem to name both entries: a replay that
  /// disagrees with an entry's before-image may as well come from the earlier one.
  var lastWriter: [String: [StateRows.Row: Int64]] = [:]
  /// The type affinities of the file's entity tables (a table the file no longer has, renamed
  /// by a migration since, converts nothing).
  let affinities: [String: TableAffinities]
  var start: String
  /// What ``finish(_:_:progress:)`` found of snapshots stopped midway, said after the tables.
  var unfinishedParts: String?
  /// The base snapshot's text, read by the first read, parsed after it (``startFromBase()``),
  /// and the rows each table held then.
  private var base: SnapshotRead?
  private var tableRows: [String: Int] = [:]
  /// The snapshots at or before the base (`id`s, by seq), listed by the first read, each read
  /// in a read of its own once the base is parsed, and checked after it.
  private var earlySnapshots: [Int64] = []
  /// Where the snapshot the last read found is, which says what it is checked against.
  private var snapshotReach = SnapshotReach.replayed
  /// The snapshot of a barrier migration the last read replayed, whose state the replay goes
  /// on from: its text read there, parsed after (``startFromBarrier()``), as the base's is.
  private var barrier: SnapshotRead?

  /// Where a snapshot is against the replay.
  private enum SnapshotReach {
    /// At the replay's seq: compared with the replayed rows.
    case replayed
    /// At or before the base: the log no longer reaches it.
    case beforeTheBase
    /// Stored while the check ran, at a seq the replay had passed.
    case behindTheReplay
  }

  /// Runs the file-wide checks and starts the replay from the base.
  init(_ db: Database, _ history: HistoryLog, keeping pick: (Database, HistoryLog) throws -> Int64?) throws {
    keptSeq = try pick(db, history)
    report = try Self.fileWideChecks(db, history)
    (baseSeq, engineMigrations, appSchemaVersion) = (
      history.baseSeq, try EngineMigrations.applied(db).count, history.tables.appSchema.version
    )
    previousSeq = history.baseSeq
    affinities = try Dictionary(
      uniqueKeysWithValues: history.tables.entityTables.map { ($0, try TableAffinities(of: $0, db)) })
    stacks = UndoStackReplay(baseSeq: history.baseSeq)
    start = history.baseSeq > 0 ? "as the base snapshot left it" : "no earlier entry wrote it"
    snapshots = []  // listed by each read of the replay (`follows`)
    total = try Int.fetchOne(db, sql: "SELECT count(*) FROM action_log WHERE \(HistoryLog.followsBase)") ?? 0
    // Start from the base: empty tables, or the state compaction folded history into (its
    // text read here, parsed by `startFromBase`).
    replayed = StateRows(empty: history.tables)
    if history.baseSeq > 0 {
      guard
        let row = try Row.fetchOne(
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
        base = try SnapshotRead(row, name: "base", history: history, db)
      } catch let error as RewindError {
        report.problems.append("base snapshot: \(error.message)")
        abandoned = true
        return
      }
    }
    // The replay's tables are sized for the rows the file's tables hold now (see
    // `startFromBase`). (Best effort: a count that fails, on an index damaged, leaves the
    // damage to the checks.)
    for table in history.tables.tableNames {
      tableRows[table] = (try? Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier)")) ?? 0
    }
    // Snapshots at or before the base (labelled ones compaction kept, or a seq edited to
    // one) are still restored by label: the log no longer reaches them, so their checksum,
    // over their seq and rows, is what there is to check (``readEarlySnapshot(_:_:)``: said
    // after the base, not at all if it fails).
    earlySnapshots = try Int64.fetchAll(
      db, sql: "SELECT id FROM snapshots WHERE seq <= ? AND NOT (kind = 'base' AND seq = ?) ORDER BY seq",
      arguments: [history.baseSeq, history.baseSeq])
  }

  /// Parses the base snapshot the first read found, outside any read transaction, sizes the
  /// replay's tables, and keeps the state at the base if compaction asked for it.
  mutating func startFromBase() throws {
    guard !abandoned else { return }
    if let base = base.take() {
      guard let rows = try rows(toGoOnFrom: base) else {
        abandoned = true
        return
      }
      replayed = rows
    }
    problemsBeforeReplay = report.problems.count
    // The replay's tables are sized for the rows the file's tables held at the first read,
    // most of the rows a long log's replay ends with: they grow once, not by doubling and
    // rehashing every row each time (a tenth of verify's time at 100,000 tasks). So are the
    // last writers, when the log writes every row.
    for (table, rows) in tableRows.sorted(by: { $0.key < $1.key }) {
      replayed.tables[table, default: [:]].reserveCapacity(rows)
      if baseSeq == 0 { lastWriter[table, default: [:]].reserveCapacity(rows) }
    }
    if keptSeq == baseSeq { kept = (baseSeq, replayed) }
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
        for row in broken.prefix(10) {
          let table = row["table"] as String? ?? "?"
          let problem =
            "foreign keys: \(table) row \(row["rowid"] as Int64? ?? 0) refers to a missing row of \(row["parent"] as String? ?? "?")"
          // (The engine's own catalog has references too: not a state table's row.)
          if catalog.tableNames.contains(table) {
            report.addTableProblems([problem])
          } else {
            report.problems.append(problem)
          }
        }
      }
    }

    // Every list entry names a row of its entity table (and of its owner table).
    let dangling = try catalog.danglingListEntries(db)
    if dangling.isEmpty {
      report.passed.append("order lists: every entry names an existing row")
    } else {
      report.addTableProblems(dangling)
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

  /// Whether the file, in this read, still has the base and the schemas the replay started
  /// from; if so, lists the snapshots the replay has yet to check.
  mutating func follows(_ db: Database, _ history: HistoryLog) throws -> Bool {
    guard history.baseSeq == baseSeq, history.tables.appSchema.version == appSchemaVersion,
      try EngineMigrations.applied(db).count == engineMigrations
    else { return false }
    // From the last entry replayed on: a snapshot at its seq is checked with the next entry.
    snapshots = try Row.fetchAll(
      db, sql: "SELECT id, seq FROM snapshots WHERE seq >= ? AND seq > ? ORDER BY seq, id",
      arguments: [previousSeq, baseSeq]
    ).filter { !checkedSnapshots.contains($0["id"]) }
    nextSnapshot = 0
    total = max(total, report.entriesReplayed + Int(clamping: max(0, history.lastSeq - previousSeq)))
    return true
  }

  /// How much of the log one read transaction replays: at most `entries` entries, and the
  /// read ends after the entry that brings their changes' text to `changeBytes`.
  struct ReadLimit {
    var entries: Int
    var changeBytes: Int
  }

  /// Replays the log's entries after the last one replayed, up to `limit`. Returns whether
  /// the replay is over: it reached the log's end, or it stopped (``replayStopped``).
  mutating func replayEntries(
    _ db: Database, _ history: HistoryLog, upTo limit: ReadLimit, progress: (Int, Int) -> Void
  ) throws -> Bool {
    guard !replayStopped else { return true }
    let entries = try Row.fetchCursor(
      db,
      sql: """
        SELECT seq, action, kind, changes, length(CAST(changes AS BLOB)) AS bytes, step, group_key,
          CASE WHEN kind IN ('undo', 'redo') AND json_valid(payload) THEN json_extract(payload, '$.step') END AS moved
        FROM action_log WHERE seq > ? ORDER BY seq LIMIT ?
        """,
      arguments: [previousSeq, limit.entries])
    var (read, bytes) = (0, 0)
    while let entry = try entries.next() {
      // A snapshot the replay has reached ends the read before this entry: its text is read
      // now, parsed and compared after the read (5 s for a million tasks' state).
      if let seq = entry["seq"] as Int64?, try readSnapshot(dueBefore: seq, db, history) { return false }
      read += 1
      bytes += entry["bytes"] as Int? ?? 0
      if try replay(entry, db, history) {
        report.entriesReplayed += 1
        if report.entriesReplayed % 1_000 == 0 { progress(report.entriesReplayed, total) }
        if report.problems.count - problemsBeforeReplay > 20 {
          report.problems.append("(stopping after 20 problems in the log)")
          replayStopped = true
        }
      }
      if replayStopped { return true }
      if bytes >= limit.changeBytes || barrier != nil { return false }
    }
    return read < limit.entries
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
      let change = try stored(change)
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
        barrier = try SnapshotRead(snapshot, name: "barrier", history: history, db)
      } catch let error as RewindError {
        report.problems.append("barrier snapshot: \(error.message)")
        replayStopped = true
        return false
      }
      return true
    }
    if seq == keptSeq { kept = (seq, replayed) }
    return true
  }

  /// Parses the snapshot of the barrier migration the last read replayed, outside any read
  /// transaction (seconds at a million tasks), and goes on from its state.
  mutating func startFromBarrier() throws {
    guard let barrier = barrier.take() else { return }
    let seq = barrier.seq
    guard let rows = try rows(toGoOnFrom: barrier) else {
      replayStopped = true
      return
    }
    replayed = rows
    (lastWriter, start) = ([:], "as the snapshot of the migration at seq \(seq) left it")
    if seq == keptSeq { kept = (seq, replayed) }
  }

  /// The rows of `snapshot` (the base, or a barrier migration's), which the replay goes on
  /// from; `nil`, with the problem said, when they cannot be read: the replay cannot go on.
  private mutating func rows(toGoOnFrom snapshot: consuming SnapshotRead) throws -> StateRows? {
    let name = snapshot.name
    do {
      return try snapshot.takeRows()
    } catch let error as RewindError {
      report.problems.append("\(name) snapshot: \(error.message)")
      return nil
    }
  }

  /// The checks after the replay and the snapshots: the undo stacks and unfinished parts.
  mutating func finish(_ db: Database, _ history: HistoryLog, progress: (Int, Int) -> Void) throws {
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

  /// `change` with an entity table's rows as the table stores them: entries written before
  /// the engine logged rows so (``ColumnAffinity``) hold a `Decimal` of a `NUMERIC` column as
  /// text, say, which the table holds as a real.
  private func stored(_ change: RowChange) throws -> RowChange {
    guard let table = affinities[change.table] else { return change }
    var change = change
    _ = try table.store(&change)
    return change
  }

  /// Reports how the tables, read in the replay's transaction, compared with the replay: they
  /// must be exactly what the log says.
  mutating func compare(_ tables: TableComparison) {
    let problemsBefore = report.problems.count
    report.addTableProblems(
      (tables.differingRows?.changes(to: replayed) ?? []).prefix(20).map { change in
        "\(change.table) \(describe(change.key)): the table has \(describe(change.before)), the log says \(describe(change.after))"
      })
    if report.problems.count == problemsBefore {
      report.passed.append(
        "tables: \(tables.catalog.tableNames.joined(separator: ", ")) match the replayed log exactly")
    }
    if let unfinishedParts { report.passed.append(unfinishedParts) }
  }

  /// Reads the text of the next snapshot listed if its seq is before `seq`, to be compared
  /// after the read (``compareSnapshotRead()``). Returns whether it did: the read is to end
  /// there, before any more of the log is replayed.
  mutating func readSnapshot(dueBefore seq: Int64, _ db: Database, _ history: HistoryLog) throws -> Bool {
    guard nextSnapshot < snapshots.count,
      try snapshots[nextSnapshot].checked("seq", in: EngineTable.snapshots.name, as: Int64.self) < seq
    else { return false }
    let id: Int64 = try snapshots[nextSnapshot].checked("id", in: EngineTable.snapshots.name)
    nextSnapshot += 1
    checkedSnapshots.insert(id)
    snapshotRead = try read(id: id, db, history)
    return true
  }

  /// Reads the text of the next snapshot at or before the base, to be checked after the read
  /// (``compareSnapshotRead()``) by its checksum alone. Returns whether there was one: the read
  /// is to end there, before the replay.
  mutating func readEarlySnapshot(_ db: Database, _ history: HistoryLog) throws -> Bool {
    guard !earlySnapshots.isEmpty else { return false }
    snapshotReach = .beforeTheBase
    snapshotRead = try read(id: earlySnapshots.removeFirst(), db, history)
    return true
  }

  /// Once the replay has caught up, reads the text of a snapshot the app stored while the check
  /// ran at a seq the replay had passed (no read listed it ahead of the replay), to be checked
  /// after the read by its checksum alone. Returns whether there was one.
  mutating func readSnapshotBehindTheReplay(_ db: Database, _ history: HistoryLog) throws -> Bool {
    let ids = try Int64.fetchAll(
      db, sql: "SELECT id FROM snapshots WHERE seq > ? ORDER BY seq, id", arguments: [baseSeq])
    guard let id = ids.first(where: { !checkedSnapshots.contains($0) }) else { return false }
    checkedSnapshots.insert(id)
    snapshotReach = .behindTheReplay
    snapshotRead = try read(id: id, db, history)
    return true
  }

  /// Whether the read under way ends at a snapshot it reached (``readSnapshot(dueBefore:_:_:)``).
  var endsAtSnapshot: Bool { snapshotRead != nil }

  /// Compares the snapshot the last read reached with the replay, which is at its seq, or, for
  /// one the replay does not reach, checks its checksum.
  mutating func compareSnapshotRead() throws {
    let reach = snapshotReach
    snapshotReach = .replayed
    if let snapshot = snapshotRead.take() { try compare(snapshot, reach) }
    // What is said of those before the base comes before the replay, whose problems are
    // counted from here.
    if reach == .beforeTheBase { problemsBeforeReplay = report.problems.count }
  }

  /// The snapshot `id`, its text read whole; `nil` when it is gone (removed since it was
  /// listed), or, with the problem said, when it cannot be read.
  private mutating func read(id: Int64, _ db: Database, _ history: HistoryLog) throws -> SnapshotRead? {
    do {
      guard
        let snapshot = try Row.fetchOne(
          db, sql: "SELECT label, seq, kind, rows, part_set, checksum, schema_seq FROM snapshots WHERE id = ?",
          arguments: [id])
      else { return nil }
      let kind: String = try snapshot.checked("kind", in: EngineTable.snapshots.name)
      let name =
        try (snapshot.checked("label", in: EngineTable.snapshots.name, as: String?.self)).map { "\"\($0)\"" }
        ?? "(\(kind))"
      return try SnapshotRead(snapshot, id: id, automatic: kind == "automatic", name: name, history: history, db)
    } catch let error as RewindError {
      report.problems.append("snapshot: \(error.message)")
      return nil
    }
  }

  /// Parses `snapshot`'s text (which needs no read transaction), which checks its checksum, and
  /// compares its rows with the replay's if it is at the replay's seq.
  private mutating func compare(_ snapshot: consuming SnapshotRead, _ reach: SnapshotReach) throws {
    let (id, name, seq, automatic) = (snapshot.id, snapshot.name, snapshot.seq, snapshot.automatic)
    // An automatic snapshot is derived data: one that is not the log's (its text edited, or
    // taken from tables edited by hand) is dropped by a rebuild of the tables.
    func add(_ problem: String) {
      if automatic {
        report.add(problem, rebuildable: .automaticSnapshot(id: id))
      } else {
        report.problems.append(problem)
      }
    }
    let stored: StateRows
    do {
      stored = try snapshot.takeRows()
    } catch let error as RewindError {
      add("snapshot: \(error.message)")
      return
    }
    switch reach {
    case .beforeTheBase:
      report.passed.append(
        "snapshot \(name) at seq \(seq), before the history kept, holds the rows and seq it was taken with")
    case .behindTheReplay:
      report.passed.append(
        "snapshot \(name) at seq \(seq), stored while verify ran and behind its replay, holds the rows and seq it was taken with"
      )
    case .replayed where stored == replayed:
      report.passed.append("snapshot \(name) at seq \(seq) matches the log")
    case .replayed:
      let first = replayed.changes(to: stored).first.map { "\($0.table) \(describe($0.key))" } ?? ""
      add("snapshot \(name) at seq \(seq) differs from the log, first at \(first)")
    }
  }
}

/// A snapshot's text as a read transaction found it, to be parsed after it (a million tasks'
/// state takes 5 s and more): with its seq, checksum and schema seq (the seal
/// ``HistoryLog/snapshotRows(_:text:)`` checks) and the name reports give it.
private struct SnapshotRead {
  let id: Int64
  /// Whether it is an automatic snapshot (derived data: see ``RebuildableProblem``).
  let automatic: Bool
  let name: String
  let seq: Int64
  private let seal: Row
  private let history: HistoryLog
  private var text: String

  /// Reads the whole text of `row`, a `snapshots` row with `rows` and `part_set`.
  init(_ row: Row, id: Int64 = 0, automatic: Bool = false, name: String, history: HistoryLog, _ db: Database) throws {
    (self.id, self.automatic, self.name, self.history) = (id, automatic, name, history)
    seq = try row.checked("seq", in: EngineTable.snapshots.name)
    // Without its `rows`, which may hold the whole text a second time.
    seal = Row(["seq": row["seq"], "checksum": row["checksum"], "schema_seq": row["schema_seq"]])
    text = try HistoryLog.snapshotText(row, db)
  }

  /// The snapshot's rows, its seal checked; the text is given up, freed once they are read.
  mutating func takeRows() throws -> StateRows {
    let taken = text
    text = ""
    return try history.snapshotRows(seal, text: taken)
  }
}
