import Foundation
import GRDB

/// What ``RewindDatabase/verify(progress:)`` checked and found.
public struct VerificationReport: Sendable {
  /// What was checked and passed, one line each.
  public var passed: [String] = []
  /// What is wrong, one precise line each. Empty when the database is healthy.
  public var problems: [String] = []
  /// The number of log entries replayed.
  public var entriesReplayed = 0

  /// Whether every check passed.
  public var isHealthy: Bool { problems.isEmpty }
}

/// What ``RewindDatabase/compact(keep:progress:)`` did.
public struct CompactionReport: Sendable {
  /// History now starts after this seq.
  public var baseSeq: Int64
  /// Log entries folded into the base snapshot and removed.
  public var entriesRemoved: Int
  /// Log entries kept after the base (the `compact` entry aside): more than asked for when
  /// ``moreKept`` says why.
  public var entriesKept: Int = 0
  /// Why more entries than asked for were kept, or `nil` when they were not.
  public var moreKept: MoreKept?
  /// The file's size before and after, its write-ahead log included (a running store's
  /// writes may still be there rather than in the file).
  public var bytesBefore: Int64
  public var bytesAfter: Int64

  /// Why compaction kept more entries than asked for.
  public enum MoreKept: Hashable, Sendable {
    /// Redo still needs the steps undone from this seq on: history stays from there.
    case redo(fromSeq: Int64)
    /// This many entries were written while compaction ran (by a store, another process): it
    /// kept the base it had read rather than read the state again.
    case writtenWhileCompacting(Int)
    /// The file was created in several entries, which a base cannot split.
    case fileCreation
  }
}

extension RewindDatabase {
  /// Checks the file: SQLite's integrity check, the schema version, that replaying the log's
  /// row changes from the base reproduces every state table exactly (and every snapshot taken
  /// since the base), and that replaying its undo steps, undos and redos gives the `undo_steps`
  /// table (a step deleted or flipped by hand would make undo skip or mangle it).
  ///
  /// - Parameter progress: called with (entries replayed, entries in all) now and then.
  public func verify(progress: (Int, Int) -> Void = { _, _ in }) throws -> VerificationReport {
    var report = VerificationReport()
    try read { db, history in
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

      // Start from the base: empty tables, or the state compaction folded history into.
      var replayed = StateRows(empty: catalog)
      if history.baseSeq > 0 {
        guard
          let base = try Row.fetchOne(
            db,
            sql:
              "SELECT seq, rows, part_set, checksum, schema_seq FROM snapshots WHERE kind = 'base' ORDER BY seq DESC LIMIT 1"
          )
        else {
          report.problems.append("history starts after seq \(history.baseSeq) but there is no base snapshot")
          return
        }
        do {
          replayed = try history.snapshotRows(base, db)
        } catch let error as RewindError {
          report.problems.append("base snapshot: \(error.message)")
          return
        }
      }
      // Snapshots at or before the base (labelled ones compaction kept, or a seq edited to
      // one) are still restored by label: the log no longer reaches them, so their checksum,
      // over their seq and rows, is what there is to check.
      for early in try Row.fetchAll(
        db, sql: "SELECT id, seq FROM snapshots WHERE seq <= ? AND NOT (kind = 'base' AND seq = ?) ORDER BY seq",
        arguments: [history.baseSeq, history.baseSeq])
      {
        try check(early, against: nil)
      }
      // Only their seqs: each snapshot's rows are read when the replay reaches it, so memory
      // holds one state and one snapshot at a time, however long the log.
      let snapshots = try Row.fetchAll(
        db, sql: "SELECT id, seq FROM snapshots WHERE seq > ? ORDER BY seq", arguments: [history.baseSeq])
      var nextSnapshot = 0
      let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM action_log WHERE \(HistoryLog.followsBase)") ?? 0
      var problemsBefore = report.problems.count
      let entries = try Row.fetchCursor(
        db,
        sql: """
          SELECT seq, action, kind, changes, step, group_key,
            CASE WHEN kind IN ('undo', 'redo') AND json_valid(payload) THEN json_extract(payload, '$.step') END AS moved
          FROM action_log WHERE \(HistoryLog.followsBase) ORDER BY seq
          """)
      var stacks = UndoStackReplay(baseSeq: history.baseSeq)
      var replayStopped = false
      var previousSeq = history.baseSeq
      // The entry that last wrote each row, for a problem to name both entries: a replay that
      // disagrees with an entry's before-image may as well come from the earlier one.
      var lastWriter: [String: [StateRows.Row: Int64]] = [:]
      var start = history.baseSeq > 0 ? "as the base snapshot left it" : "no earlier entry wrote it"
      while let entry = try entries.next() {
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
          break
        }
        while nextSnapshot < snapshots.count,
          try snapshots[nextSnapshot].checked("seq", in: EngineTable.snapshots.name, as: Int64.self) < seq
        {
          try check(snapshots[nextSnapshot], against: replayed)
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
          continue
        }
        for change in changes {
          let actual = replayed.tables[change.table]?[change.key]
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
        replayed.apply(changes, .forward)
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
            break
          }
          do {
            replayed = try history.snapshotRows(snapshot, db)
            (lastWriter, start) = ([:], "as the snapshot of the migration at seq \(seq) left it")
          } catch let error as RewindError {
            report.problems.append("barrier snapshot: \(error.message)")
            replayStopped = true
            break
          }
        }
        report.entriesReplayed += 1
        if report.entriesReplayed % 1_000 == 0 { progress(report.entriesReplayed, total) }
        if report.problems.count - problemsBefore > 20 {
          report.problems.append("(stopping after 20 problems in the log)")
          replayStopped = true
          break
        }
      }
      while nextSnapshot < snapshots.count {
        try check(snapshots[nextSnapshot], against: replayed)
        nextSnapshot += 1
      }
      progress(report.entriesReplayed, total)
      if report.problems.count == problemsBefore {
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

      // The tables must be exactly what the log says.
      problemsBefore = report.problems.count
      let tables = try StateRows(db, catalog: catalog)
      for change in tables.changes(to: replayed).prefix(20) {
        report.problems.append(
          "\(change.table) \(describe(change.key)): the table has \(describe(change.before)), the log says \(describe(change.after))"
        )
      }
      if report.problems.count == problemsBefore {
        report.passed.append("tables: \(catalog.tableNames.joined(separator: ", ")) match the replayed log exactly")
      }

      /// Checks the snapshot `listed` names: its checksum, and its rows against `rows`, the
      /// replayed state at its seq (`nil`: the log does not reach it).
      func check(_ listed: Row, against rows: StateRows?) throws {
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
      // Parts no snapshot names are not damage: a snapshot stopped midway (a process killed)
      // left them, or one is being written now. Said, so that the bytes they hold are explained.
      if let unfinished = try Row.fetchOne(
        db,
        sql: """
          SELECT count(*), count(DISTINCT part_set) FROM snapshot_parts
          WHERE part_set NOT IN (SELECT part_set FROM snapshots WHERE part_set IS NOT NULL)
          """),
        let parts = unfinished[0] as Int?, parts > 0, let sets = unfinished[1] as Int?
      {
        report.passed.append(
          "snapshot_parts: \(parts) part\(parts == 1 ? "" : "s") of \(sets) unfinished snapshot\(sets == 1 ? "" : "s") (stopped midway, or being written now), removed by the next snapshot stored an hour or more after they were written"
        )
      }
    }
    return report
  }

  /// Folds history older than the last `keep` entries into a base snapshot and shrinks the
  /// file. What is kept still undoes, restores and verifies; labelled snapshots are kept
  /// (restoring one needs no log), automatic ones older than the base are dropped.
  ///
  /// Compaction is itself a `compact` log entry, so seqs keep growing (the next entry never
  /// reuses a removed seq) and every store on the file notices it before its next write. It
  /// never cuts into what redo needs: when the redo stack reaches further back than `keep`, the
  /// base stays before its oldest step, whose entries say what redo reapplies. Jumps and
  /// restores to a seq before the base are refused.
  ///
  /// An app may go on writing to the file meanwhile: the base's rows are read in a read
  /// transaction and stored in parts, each in a short transaction of its own, and the write
  /// lock is taken to move the base. If the base moved in between (an undo changed what redo
  /// needs, another compaction ran, the app migrated the file), its rows are read again under
  /// the lock. The entries folded in are then removed in batches of about 10 ms each, and the
  /// file shrinks in steps of up to about 30 ms each (incremental auto-vacuum); a file created
  /// without that mode (by an earlier release, or holding the app's own tables first) is
  /// switched to it by one `VACUUM` at its first compaction, which holds the write lock while
  /// it rewrites the file. What a compaction stopped partway left, the next one finishes.
  ///
  /// - Throws: ``RewindError`` if `keep` is negative, or if ``verify(progress:)`` finds a
  ///   problem: compacting would bury it. Nothing changes then.
  public func compact(keep: Int, progress: (Int, Int) -> Void = { _, _ in }) throws -> CompactionReport {
    do {
      return try compact(keep: keep, progress: progress, partBytes: SnapshotWorker.defaultPartBytes, afterReading: {})
    } catch {
      throw DatabaseFile.readOnlyRefusal(error, path: path) ?? error
    }
  }

  /// ``compact(keep:progress:)``, writing the base in parts of `partBytes`, running
  /// `afterReading` between the read of the base's rows and the write that folds them in,
  /// `betweenRemovals` after each batch of folded entries removed, and `betweenFreeingSteps`
  /// after each step that gives free pages back: for tests of what may happen in between.
  func compact(
    keep: Int, progress: (Int, Int) -> Void = { _, _ in }, partBytes: Int, afterReading: () throws -> Void,
    betweenRemovals: () throws -> Void = {}, betweenFreeingSteps: () throws -> Void = {}
  ) throws -> CompactionReport {
    try checkWritable()
    guard keep >= 0 else { throw RewindError(.invalidValue, "keep must be 0 or more, not \(keep)") }
    // Folding a damaged history into a base would make the damage unrecoverable and invisible.
    let health = try verify()
    if let first = health.problems.first {
      throw RewindError(
        .corruptData,
        "refusing to compact: verify finds \(health.problems.count) problem\(health.problems.count == 1 ? "" : "s"), the first: \(first)"
      )
    }
    let bytesBefore = fileSize()
    let read = try queue.read { db -> HistoryLog.EncodedSnapshot? in
      let history = try HistoryLog(db)
      guard let (base, _) = try Self.compactionBase(keep: keep, history, db) else { return nil }
      var snapshot = HistoryLog.EncodedSnapshot(try history.rows(at: base, db), seq: base)
      snapshot.appSchemaVersion = history.tables.appSchema.version
      return snapshot
    }
    let parts = try read.map { try SnapshotWorker.writeParts(of: $0, in: queue, partBytes: partBytes) }
    progress(1, 3)
    try afterReading()
    let result = try write {
      db, history -> (base: Int64, removed: Int, kept: Int, moreKept: CompactionReport.MoreKept?)? in
      guard var (base, moreKept) = try Self.compactionBase(keep: keep, history, db) else {
        try parts?.remove(db)
        return nil
      }
      var snapshot: HistoryLog.EncodedSnapshot
      var stored: SnapshotWorker.WrittenParts
      // Entries the app appended meanwhile move the base they would give: the one read is
      // kept while it is still allowed (it keeps those entries too).
      if let read, let parts, read.seq <= base, read.seq > history.baseSeq,
        read.appSchemaVersion == history.tables.appSchema.version, try parts.areWhole(db)
      {
        if read.seq < base { moreKept = moreKept ?? .writtenWhileCompacting(Int(base - read.seq)) }
        (base, snapshot, stored) = (read.seq, read, parts)
      } else {
        try parts?.remove(db)
        snapshot = HistoryLog.EncodedSnapshot(try history.rows(at: base, db), seq: base)
        stored = SnapshotWorker.WrittenParts(partSet: nil, count: 0, lastPart: snapshot.json)
      }
      let removed = try Int.fetchOne(db, sql: "SELECT count(*) FROM action_log WHERE seq <= ?", arguments: [base]) ?? 0
      try db.execute(sql: "DELETE FROM snapshots WHERE kind <> 'manual' AND seq <= ?", arguments: [base])
      try history.insertSnapshot(snapshot, kind: "base", label: nil, parts: stored, db)
      // The entries folded in are removed after, in short batches (`removeFoldedEntries`).
      // Steps that started before the base cannot be undone whole any more. Undone steps stay:
      // what their redo reverts is after the base (see `compactionBase`).
      try db.execute(sql: "UPDATE action_log SET step = NULL WHERE seq > ? AND step <= ?", arguments: [base, base])
      try db.execute(sql: "DELETE FROM undo_steps WHERE id <= ? AND undone = 0", arguments: [base])
      try db.execute(sql: "UPDATE rewind_meta SET value = ? WHERE key = 'base_seq'", arguments: [base])
      try history.reload(db)
      _ = try history.append(
        LogEntry(
          kind: .compact, action: "compact", payload: #"{"base":\#(base),"removed":\#(removed)}"#, changes: [],
          undo: .none),
        db)
      progress(2, 3)
      return (base, removed, Int(history.lastSeq - base) - 1, moreKept)
    }
    guard let result else {
      // What a compaction stopped partway (its tool killed, say) left: folded entries, free
      // pages.
      try removeFoldedEntries(between: betweenRemovals)
      if try autoVacuumMode() == .incremental { try givePagesBack(between: betweenFreeingSteps) }
      return CompactionReport(
        baseSeq: history.baseSeq, entriesRemoved: 0, entriesKept: Int(history.lastSeq - history.baseSeq),
        moreKept: nil, bytesBefore: bytesBefore, bytesAfter: fileSize())
    }
    try removeFoldedEntries(between: betweenRemovals)
    try givePagesBack(between: betweenFreeingSteps)
    shortenWAL()
    progress(3, 3)
    return CompactionReport(
      baseSeq: result.base, entriesRemoved: result.removed, entriesKept: result.kept, moreKept: result.moreKept,
      bytesBefore: bytesBefore, bytesAfter: fileSize())
  }

  /// Removes the entries at or before the base, oldest first, in write transactions of about
  /// 10 ms each (the batch halves after a slower one and doubles after a faster one: an entry
  /// that created the file may hold megabytes), so that an app sending meanwhile waits for
  /// one batch at most. Removing them under the compaction's own lock held it 1.8 s at a
  /// million tasks. Every reader of the log keeps to the entries after the base
  /// (``HistoryLog/followsBase``), so entries left behind by a stopped compaction are never
  /// history; the next compaction removes them. `between` runs after each batch.
  private func removeFoldedEntries(between: () throws -> Void) throws {
    let (base, oldest) = try queue.read { db in
      (try HistoryLog.fileBaseSeq(db), try db.checkedInteger("SELECT min(seq) FROM action_log", what: "action_log.seq"))
    }
    guard var next = oldest, next <= base else { return }
    // From one entry: the oldest are often the file's creation, megabytes each (at 100,000
    // tasks, deleting the first 16 at once held the lock 120 to 760 ms, and a send waited as
    // long); ordinary entries double the batch after each fast one.
    var batch: Int64 = 1
    while next <= base {
      let end = min(base, next + batch - 1)
      let start = ContinuousClock.now
      try queue.writeWithoutTransaction { db in
        try db.execute(sql: "DELETE FROM action_log WHERE seq <= ?", arguments: [end])
      }
      let took = ContinuousClock.now - start
      if took > .milliseconds(20) { batch = max(1, batch / 2) } else if took < .milliseconds(5) { batch *= 2 }
      next = end + 1
      try between()
    }
  }

  /// The most pages one step of ``givePagesBack(between:)`` moves: 5 to 30 ms of the write
  /// lock here.
  static let pagesFreedPerStep = 256

  /// Gives the file's free pages (the removed entries') back to the file system.
  ///
  /// A file in incremental auto-vacuum mode (every file a store creates, see
  /// `DatabaseFile.enableWAL`) is shrunk in steps of ``pagesFreedPerStep`` pages, each a
  /// write transaction of its own, so that an app sending meanwhile waits for one step at
  /// most; `between` runs after each. Any other file is switched to that mode by one
  /// `VACUUM`, which rewrites the whole file under the write lock (as every compaction did
  /// before): once per file.
  private func givePagesBack(between: () throws -> Void) throws {
    let mode = try autoVacuumMode()
    guard mode == .incremental else {
      // From FULL the mode changes alone; from NONE only a `VACUUM` makes the pointer map.
      try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL") }
      if mode == .none { try queue.vacuum() }
      return
    }
    func freePages() throws -> Int { try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0 } }
    // Bounded: an app deleting rows meanwhile frees pages of its own, which must not keep
    // compaction going.
    var steps = try freePages() / Self.pagesFreedPerStep + 1
    while steps > 0, try freePages() > 0 {
      try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA incremental_vacuum(\(Self.pagesFreedPerStep))")
      }
      steps -= 1
      try between()
    }
  }

  /// SQLite's auto-vacuum modes, as `PRAGMA auto_vacuum` gives them.
  private enum AutoVacuum: Int {
    case none = 0
    case full = 1
    case incremental = 2
  }

  /// The file's auto-vacuum mode.
  private func autoVacuumMode() throws -> AutoVacuum {
    try queue.read { db in AutoVacuum(rawValue: try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") ?? 0) ?? .none }
  }

  /// Copies the write-ahead log into the file and, if no connection is using it then, empties
  /// it. The copy (`PASSIVE`) never holds the write lock. Emptying the log (`TRUNCATE`) does,
  /// and waits for readers meanwhile: it is tried once, on a connection that does not wait, so
  /// that an app's sends and reads never wait for it; the store's connection truncates a log
  /// past `Durability`'s `journal_size_limit` itself when it next starts it over.
  ///
  /// Best effort: the compaction has committed, and a log left as it is loses nothing (even
  /// opening the connection that does not wait can find the file locked for a moment).
  private func shortenWAL() {
    try? queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
    var configuration = Configuration()
    configuration.busyMode = .immediateError
    try? DatabaseFile.reopen(path: path, configuration: configuration).writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
    }
  }

  /// The latest seq compaction keeping `keep` entries may fold history into, and why it is
  /// before the one `keep` asks for, or `nil` when that is not past the current base.
  private static func compactionBase(
    keep: Int, _ history: HistoryLog, _ db: Database
  ) throws -> (Int64, CompactionReport.MoreKept?)? {
    // Redo reverts each undone step's latest application (or reapplies its own entries), and
    // says what it reapplies from the step's own entries: those entries, the first of them at
    // the step's id (before any application), must stay.
    // (Steps from before a barrier migration can never be redone: they need nothing.)
    let redoNeeds = try db.checkedInteger(
      "SELECT min(id) FROM undo_steps WHERE undone = 1 AND id >= ?",
      arguments: [history.tables.appSchema.lastBarrier], what: "undo_steps.id")
    let requested = history.lastSeq.subtractingReportingOverflow(Int64(keep))
    let beforeRedo = (redoNeeds ?? .max).subtractingReportingOverflow(1)
    let asked = requested.overflow ? Int64.min : requested.partialValue
    var base = min(asked, beforeRedo.overflow ? .min : beforeRedo.partialValue)
    var moreKept = base < asked ? redoNeeds.map { CompactionReport.MoreKept.redo(fromSeq: $0) } : nil
    // A base partway through the file's creation would hold half its initial state: keep it.
    if let end = history.initializedThrough, base > 0, base < end { (base, moreKept) = (0, .fileCreation) }
    return base > history.baseSeq ? (base, moreKept) : nil
  }

  /// The file's size and its write-ahead log's.
  private func fileSize() -> Int64 {
    [path, path + "-wal"].reduce(0) { total, path in
      total + (((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0)
    }
  }
}

/// A row or key as compact JSON, for messages.
@usableFromInline
func describe(_ row: RowImage?) -> String {
  var out = ""
  JSONText.appendRow(row, to: &out)
  return row == nil ? "absent" : out
}
