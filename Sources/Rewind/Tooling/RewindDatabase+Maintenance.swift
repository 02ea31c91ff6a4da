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
  /// The problems ``RewindDatabase/rebuildTables(progress:)`` puts right, by their index in
  /// ``problems``.
  var rebuildable: [Int: RebuildableProblem] = [:]

  /// Whether every check passed.
  public var isHealthy: Bool { problems.isEmpty }

  /// Whether every problem is one ``RewindDatabase/rebuildTables(progress:)`` puts right: rows
  /// of the state tables edited by hand, and automatic snapshots taken from them since. The
  /// log, the other snapshots, the undo stacks and the file itself are sound. `false` for a
  /// healthy file.
  public var canRebuildTables: Bool { !problems.isEmpty && rebuildable.count == problems.count }

  /// Adds problems found in the state tables' rows.
  mutating func addTableProblems(_ lines: some Sequence<String>) {
    for line in lines { add(line, rebuildable: .tableRow) }
  }

  mutating func add(_ problem: String, rebuildable kind: RebuildableProblem) {
    rebuildable[problems.count] = kind
    problems.append(problem)
  }
}

/// A problem ``RewindDatabase/rebuildTables(progress:)`` puts right.
enum RebuildableProblem: Equatable {
  /// A row of a state table that is not the log's: changed, added or removed by hand, or a
  /// reference or list entry that such a change broke.
  case tableRow
  /// An automatic snapshot that is not the log's state at its seq (taken from tables edited
  /// by hand, or edited itself): derived data, dropped (the next one is taken in its time).
  case automaticSnapshot(id: Int64)
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
  /// An app may go on writing to the file meanwhile: the base's rows are the state that
  /// ``verify(progress:)``'s replay reached at the base (the file's state there, once the
  /// whole replay holds), stored in parts, each in a short transaction of its own, and the
  /// write lock is taken to move the base. If the base moved in between (an undo changed what
  /// redo needs, another compaction ran, the app migrated the file), its rows are read again
  /// under the lock. The entries folded in are then removed in batches of about 10 ms each, and
  /// the file shrinks in steps of up to about 30 ms each (incremental auto-vacuum); a file created
  /// without that mode (by an earlier release, or holding the app's own tables first) is
  /// switched to it by one `VACUUM` at its first compaction, which holds the write lock while
  /// it rewrites the file. What a compaction stopped partway left, the next one finishes.
  ///
  /// - Throws: ``RewindError`` if `keep` is negative, or if ``verify(progress:)`` finds a
  ///   problem: compacting would bury it, or cannot finish (``RewindError/Code/externalChange``:
  ///   the file was compacted or migrated between its reads, three times). Nothing changes then.
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
    let bytesBefore = fileSize()
    // Folding a damaged history into a base would make the damage unrecoverable and invisible.
    // The replay that shows it whole also gives the base's rows, in the same read transaction
    // (released once encoded: the compaction goes on for seconds).
    let read = try { () throws -> HistoryLog.EncodedSnapshot? in
      var appSchemaVersion = 0
      let (health, kept) = try verify(progress: { _, _ in }) { db, history in
        appSchemaVersion = history.tables.appSchema.version
        return try Self.compactionBase(keep: keep, history, db)?.0
      }
      if let first = health.problems.first {
        throw RewindError(
          .corruptData,
          "refusing to compact: verify finds \(health.problems.count) problem\(health.problems.count == 1 ? "" : "s"), the first: \(first)"
        )
      }
      return kept.map { kept in
        var snapshot = HistoryLog.EncodedSnapshot(kept.rows, seq: kept.seq)
        snapshot.appSchemaVersion = appSchemaVersion
        return snapshot
      }
    }()
    let parts = try read.map { try SnapshotWorker.writeParts(of: $0, in: queue, partBytes: partBytes) }
    progress(1, 3)
    try afterReading()
    let result = try write("compacting") {
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
    // Builds of SQLite with secure delete on (Debian's) overwrite every page a deletion frees
    // with zeros: 289 MB of WAL frames for a million tasks' creation, which an app writing
    // meanwhile then waits to see copied. In a file in auto-vacuum mode, compaction gives
    // every free page back (moved over or cut off) at each commit, or right after in steps
    // (`givePagesBack`), so `FAST` (zeros only on pages written anyway) leaves none of their
    // content once it ends, and once its last steps are copied from the WAL. A compaction
    // stopped between the two leaves them free until the next one (any, see `compact`) gives
    // them back. A file in neither mode keeps the setting: its pages go back only by its first
    // compaction's `VACUUM`.
    let secureDelete =
      try autoVacuumMode() == .none
      ? nil
      : try queue.writeWithoutTransaction { db in
        let mode = try Int.fetchOne(db, sql: "PRAGMA secure_delete") ?? 0
        try db.execute(sql: "PRAGMA secure_delete = FAST")
        return mode == 2 ? "FAST" : String(mode)
      }
    defer {
      if let secureDelete {
        try? queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA secure_delete = \(secureDelete)") }
      }
    }
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
      batch = Self.nextBatch(after: batch, took: ContinuousClock.now - start)
      next = end + 1
      try between()
    }
  }

  /// The size of the batch of folded entries removed after one of `batch` entries that held
  /// the write lock for `took`: half after a slow one, double after a fast one.
  static func nextBatch(after batch: Int64, took: Duration) -> Int64 {
    if took > .milliseconds(20) { return max(1, batch / 2) }
    if took < .milliseconds(5) { return batch * 2 }
    return batch
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
  /// that an app's sends and reads never wait for it.
  ///
  /// A log file past `Durability`'s `journal_size_limit` is not emptied: the write lock would
  /// be held while the file system frees its blocks (0.3 to 0.9 s for the gigabyte and more an
  /// app sending all the while wrote during compaction's reads, here). It is cut back as it
  /// starts over, a step at a time by a store's connection (see
  /// `WALCheckpointer.Marks.walShrinkStep`), or removed when the last connection closes.
  ///
  /// Best effort: the compaction has committed, and a log left as it is loses nothing (even
  /// opening the connection that does not wait can find the file locked for a moment).
  private func shortenWAL() {
    try? queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
    guard Self.bytes(of: path + "-wal") <= Durability.walSizeLimit else { return }
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
    Self.bytes(of: path) + Self.bytes(of: path + "-wal")
  }

  /// The size of one file, 0 when there is none.
  private static func bytes(of file: String) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber)?.int64Value ?? 0
  }
}

/// A row or key as compact JSON, for messages.
@usableFromInline
func describe(_ row: RowImage?) -> String {
  var out = ""
  JSONText.appendRow(row, to: &out)
  return row == nil ? "absent" : out
}
