import Foundation
import GRDB
import GRDBSQLite

/// The action log and the undo stacks of one database, read and written with no app code.
///
/// The store and the `rewind` tool both go through this type, so they agree on what undo,
/// redo and jumps do. Every operation runs inside the caller's write transaction and appends
/// one log entry whose row changes are exactly what it wrote, so the log stays a complete,
/// replayable record.
///
/// Its ``Position`` (last seq, stack tops, open group) is a copy of what the file holds: it
/// moves only inside a write transaction, by ``append(_:_:)`` or by ``sync(_:)``, which reads
/// what other connections committed. A caller whose transaction fails puts back the position
/// it had; the rest is the file's catalog, which only ``reload(_:)`` changes, and caches.
struct HistoryLog {
  /// Where the log is: everything a write transaction moves, kept apart so that a write saves
  /// and puts it back without copying the catalog and the caches (retaining each of their
  /// collections, on every send).
  struct Position {
    /// The seq of the last entry (or the base seq, when compaction left no entry).
    fileprivate(set) var lastSeq: Int64 = 0
    /// The step undo would revert.
    fileprivate(set) var nextUndo: Int64?
    /// The step redo would reapply.
    fileprivate(set) var nextRedo: Int64?
    /// The step that an action with the same group key would join.
    fileprivate var openGroup: (step: Int64, key: String)?
    /// The step the last appended entry started or joined.
    fileprivate var lastStep: Int64?
    /// The last entry that touched the undo stacks (after the file's creation), as the log
    /// holds it: where a reader of the file finds whether an undo group is open.
    fileprivate var lastStackEntry: StackEntry?
    /// The seq history starts after: 0, or the base snapshot's after a compaction.
    fileprivate(set) var baseSeq: Int64 = 0
    /// The last seq of the run of `initialize` entries that created the file, when there are
    /// several (a large initial state, logged in batches): the seqs before it hold part of it.
    fileprivate(set) var initializedThrough: Int64?
    /// How many times the state tables were rebuilt from the log
    /// (``RewindDatabase/rebuildTables(progress:)``, which logs no entry): a change means the
    /// tables changed under memory, which reads them again.
    fileprivate(set) var tablesRebuilt: Int64 = 0
    /// The seq of the latest snapshot (or the base), for the automatic snapshot policy.
    var lastSnapshotSeq: Int64 = 0
    /// The rows the latest snapshot holds (0 when there is none): the state's size then.
    var lastSnapshotRows: Int64 = 0
    /// The connection's data version of the file (see ``HistoryLog/dataVersion(_:)``) when
    /// the position was last read or written: an unchanged value means nothing to catch up.
    fileprivate var dataVersion: UInt32?
  }

  /// An entry that touched the undo stacks: an action of a step (not a repair), or any entry
  /// but an action, a repair or the file's creation. (``read(_:since:)``'s query says the same
  /// in SQL, for the entries of the file.)
  struct StackEntry {
    var kind: String
    var step: Int64?
    var groupKey: String?

    /// Whether an entry of `kind` in `step` touches the undo stacks.
    static func touches(kind: LogEntry.Kind, step: Int64?) -> Bool {
      switch kind {
      case .action: step != nil
      case .repair, .initialize: false
      default: true
      }
    }
  }

  /// Where the log is; see ``Position``.
  var position = Position()
  var writer = RowWriter()
  /// The statements every commit runs, on this log's connection.
  let statements = PreparedStatements()
  /// The time bound to each entry.
  private var clock = LogClock()
  /// The tables and columns the log may name.
  private(set) var tables: TableCatalog

  private(set) var lastSeq: Int64 {
    get { position.lastSeq }
    set { position.lastSeq = newValue }
  }
  private(set) var baseSeq: Int64 {
    get { position.baseSeq }
    set { position.baseSeq = newValue }
  }
  private(set) var initializedThrough: Int64? {
    get { position.initializedThrough }
    set { position.initializedThrough = newValue }
  }
  var lastSnapshotSeq: Int64 {
    get { position.lastSnapshotSeq }
    set { position.lastSnapshotSeq = newValue }
  }
  var lastSnapshotRows: Int64 {
    get { position.lastSnapshotRows }
    set { position.lastSnapshotRows = newValue }
  }

  init(_ db: Database) throws {
    tables = try TableCatalog(db)
    try reload(db)
  }

  /// Reads the position and the catalog back from the database; if that fails, the log is
  /// left as it was rather than half read. `seen`: the last seq of this position, when the
  /// log only grew since (see ``read(_:since:)``).
  mutating func reload(_ db: Database, since seen: Int64? = nil) throws {
    var fresh = self
    try fresh.read(db, since: seen)
    self = fresh
    reloads += 1
  }

  /// How many times ``reload(_:)`` read the position again: for tests.
  private(set) var reloads = 0
  /// How many times ``sync(_:)`` found the data version changed and looked at what was
  /// committed: for tests.
  private(set) var commitsLookedAt = 0

  /// Reads the position. With `seen`, the last seq of the position read before, of a log that
  /// only grew since, the entries up to it are not looked at again for an open undo group.
  private mutating func read(_ db: Database, since seen: Int64? = nil) throws {
    // Taken before what it vouches for: a commit by another connection while the rest is read
    // leaves it behind, so the next write reads the position again rather than trust it.
    position.dataVersion = Self.dataVersion(db)
    try tables.reload(db)
    baseSeq = try Self.fileBaseSeq(db)
    guard baseSeq >= 0 else {
      throw RewindError(.corruptData, "rewind_meta.value of base_seq holds \(baseSeq), not a seq")
    }
    lastSeq = try fileLastSeq(db)
    initializedThrough = try db.checkedInteger(
      "SELECT value FROM rewind_meta WHERE key = 'initialized_through'",
      what: "rewind_meta.value of initialized_through")
    position.tablesRebuilt = try Self.fileTablesRebuilt(db)
    // The group stays open if the last entry that touched the undo stacks is a grouped action
    // of the step on top of the undo stack (a repair that joined the step leaves it open, as it
    // does in the process that logs it). The entries that created the file are skipped by
    // seq: reading their `kind`, stored after their changes, would read the whole initial
    // state (a file with no undoable action since its creation would, at every open). Catching
    // up with another writer (`seen`), only its entries are looked at: if none touched the
    // stacks, the last that did is the one this position knew. (Walking back over view-only
    // entries, whose `kind` is also stored after their changes, took 30 ms at 80,000 of them,
    // in the send after each commit of the other writer.)
    if let row = try Row.fetchOne(
      db,
      sql: """
        SELECT kind, step, group_key FROM action_log
        WHERE seq > ? AND ((step IS NOT NULL AND kind <> 'repair') OR kind NOT IN ('action', 'repair', 'initialize'))
        ORDER BY seq DESC LIMIT 1
        """,
      arguments: [max(seen ?? 0, initializedThrough ?? 0)])
    {
      try readStacks(db)
      position.lastStackEntry = StackEntry(
        kind: try row.checked("kind", in: EngineTable.actionLog.name),
        step: try row.checked("step", in: EngineTable.actionLog.name),
        groupKey: try row.checked("group_key", in: EngineTable.actionLog.name))
    } else if seen == nil {
      try readStacks(db)
      position.lastStackEntry = nil
    }
    // (Catching up with no entry since `seen` that touched the undo stacks, they are as this
    // position knew them: not read again. Reading them on every send after another writer's
    // view-only commit cost 12 ms with 32,000 steps undone.)
    position.lastStep = nil
    position.openGroup = nil
    if let entry = position.lastStackEntry, let step = entry.step, step == position.nextUndo {
      // A repair logged now (opening, or catching up with other writers) mends what that
      // step left, whatever logged it (an action, or the tool's restore or import): it joins
      // the step, as it would have in the process that logged it, so undoing the step in
      // any process gives the same state.
      position.lastStep = step
      if entry.kind == LogEntry.Kind.action.rawValue, let key = entry.groupKey { position.openGroup = (step, key) }
    }
    try readLatestSnapshot(from: try Row.fetchOne(db.cachedStatement(sql: Self.commitsSeenSQL))!)
  }

  /// Reads the tops of the undo and redo stacks (see ``stackTops(_:)``).
  private mutating func readStacks(_ db: Database) throws {
    stackReads += 1
    (position.nextUndo, position.nextRedo) = try Self.stackTops(db)
  }

  /// The tops of the undo and redo stacks. Undone steps are the ones with the largest ids
  /// (undo takes the top of the undo stack; a new step first drops the redo stack), so the top
  /// of the undo stack is the last step not undone, and the redo stack's the step after it.
  /// SQLite walks down to it over the undone steps (a walk in Swift, each row decoded, took
  /// 24 ms over 32,000 of them at every open).
  static func stackTops(_ db: Database) throws -> (nextUndo: Int64?, nextRedo: Int64?) {
    let table = EngineTable.undoSteps.name
    var nextUndo: Int64?
    if let top = try Row.fetchOne(
      db, sql: "SELECT id, undone FROM undo_steps WHERE undone IS NOT 1 ORDER BY id DESC LIMIT 1")
    {
      let id: Int64 = try top.checked("id", in: table)
      // Anything but 0 here was written by hand (the column's CHECK allows 0 and 1).
      guard try !top.checked("undone", in: table, as: Bool.self) else {
        throw RewindError(
          .corruptData, "\(table).undone of step \(id) holds \(top["undone"] as DatabaseValue), not 0 or 1")
      }
      nextUndo = id
    }
    let nextRedo = try db.checkedInteger(
      "SELECT min(id) FROM undo_steps WHERE id > ?", arguments: [nextUndo ?? .min], what: "\(table).id")
    return (nextUndo, nextRedo)
  }

  /// How many times the undo stacks' tops were read (see ``readStacks(_:)``): for tests.
  private(set) var stackReads = 0

  /// What another connection's commit may have changed of what a position is read from: the
  /// log's last seq and base, the entries that created the file, the schema and the app's
  /// migrations, the tables' rebuilds; and the latest snapshot. Every change to the undo
  /// stacks is logged with an entry, and every change to the tables' catalog comes with a
  /// migration.
  private static let commitsSeenSQL = """
    SELECT (SELECT max(seq) FROM action_log) AS last_seq,
      (SELECT value FROM rewind_meta WHERE key = 'base_seq') AS base_seq,
      (SELECT value FROM rewind_meta WHERE key = 'initialized_through') AS initialized_through,
      (SELECT value FROM rewind_meta WHERE key = 'tables_rebuilt') AS tables_rebuilt,
      (SELECT schema_version FROM pragma_schema_version) AS schema_version,
      (SELECT count(*) FROM rewind_app_migrations) AS migrations,
      (SELECT seq FROM snapshots ORDER BY seq DESC LIMIT 1) AS snapshot_seq,
      (SELECT row_count FROM snapshots ORDER BY seq DESC LIMIT 1) AS snapshot_rows
    """

  /// Whether `row`, of ``commitsSeenSQL``, shows the position as it is: no entry logged, no
  /// compaction and no migration since it was read or last written (another connection only
  /// stored a snapshot, say). What it cannot tell (a value of another type) it leaves to a
  /// reload, which reports it.
  private func isCurrent(_ row: Row) -> Bool {
    func integer(_ column: String) -> Int64?? { (row[column] as DatabaseValue).integerOrNull }
    guard case .some(let last) = integer("last_seq"), case .some(let base) = integer("base_seq"),
      case .some(let initialized) = integer("initialized_through"), case .some(let rebuilt) = integer("tables_rebuilt")
    else { return false }
    return max(last ?? 0, baseSeq) == lastSeq && (base ?? 0) == baseSeq && initialized == initializedThrough
      && (rebuilt ?? 0) == position.tablesRebuilt
      && row["schema_version"] == tables.schemaVersion && row["migrations"] == tables.appSchema.migrationCount
  }

  /// Whether `row`, of ``commitsSeenSQL``, shows a log that may only have grown since seq
  /// `seen`: `false` when it shows the base past `seen`, the last seq before it, or the tables
  /// rebuilt since (`true` when it cannot tell).
  private func onlyGrew(_ row: Row, since seen: Int64) -> Bool {
    func integer(_ column: String) -> Int64? { (row[column] as DatabaseValue).integerOrNull ?? nil }
    if let base = integer("base_seq"), base > seen { return false }
    if let last = integer("last_seq"), last < seen { return false }
    if let rebuilt = integer("tables_rebuilt"), rebuilt != position.tablesRebuilt { return false }
    return true
  }

  /// Takes the latest snapshot's seq and rows from `row`, of ``commitsSeenSQL``.
  private mutating func readLatestSnapshot(from row: Row) throws {
    // Snapshots from before the base (kept labelled ones, or a tampered seq) do not delay the
    // next automatic one.
    lastSnapshotSeq = max(try row.checked("snapshot_seq", in: EngineTable.snapshots.name) ?? baseSeq, baseSeq)
    lastSnapshotRows = try row.checked("snapshot_rows", in: EngineTable.snapshots.name) ?? 0
  }

  /// The rows of every state table, counted: a scan of each (tens of milliseconds at a
  /// million rows), for the automatic snapshot policy and estimates of a rebuild's cost.
  func stateRowCount(_ db: Database) throws -> Int64 {
    try tables.tableNames.reduce(0) {
      $0 + (try Int64.fetchOne(db, sql: "SELECT count(*) FROM \($1.quotedDatabaseIdentifier)") ?? 0)
    }
  }

  /// The condition that keeps to the entries after the base, for a query of `action_log`:
  /// compaction removes the entries it folded in batches after it has moved the base, so
  /// until it is done (or for good, if it was stopped) older entries may remain, and none of
  /// them is history any more.
  static let followsBase =
    "seq > coalesce((SELECT CAST(value AS INTEGER) FROM rewind_meta WHERE key = 'base_seq'), 0)"

  /// How many times the state tables were rebuilt from the log, as the file has it inside the
  /// caller's transaction (see ``Position/tablesRebuilt``).
  static func fileTablesRebuilt(_ db: Database) throws -> Int64 {
    try db.checkedInteger(
      "SELECT value FROM rewind_meta WHERE key = 'tables_rebuilt'", what: "rewind_meta.value of tables_rebuilt") ?? 0
  }

  /// The seq history starts after, as the file has it inside the caller's transaction: 0, or
  /// the base of the last compaction.
  static func fileBaseSeq(_ db: Database) throws -> Int64 {
    try db.checkedInteger(
      "SELECT value FROM rewind_meta WHERE key = 'base_seq'", what: "rewind_meta.value of base_seq") ?? 0
  }

  /// The seq of the file's last entry, as it is inside the caller's transaction. Compaction can
  /// leave no entry after the base: seqs go on from the base, never back.
  func fileLastSeq(_ db: Database) throws -> Int64 {
    max(try db.checkedInteger("SELECT max(seq) FROM action_log", what: "action_log.seq") ?? 0, baseSeq)
  }

  /// The data version of the connection's file (`SQLITE_FCNTL_DATA_VERSION`): SQLite counts a
  /// change each time the connection commits, and each time a transaction begins after another
  /// connection (or process) committed. It is read on every write, with no statement run
  /// (`PRAGMA data_version`, which counts only the other connections' commits, cost about 830
  /// instructions a send). `nil` when SQLite cannot tell: the position is then never trusted.
  private static func dataVersion(_ db: Database) -> UInt32? {
    var version: UInt32 = 0
    // (No database name: SQLite takes the main database without comparing names.)
    let code = sqlite3_file_control(db.sqliteConnection, nil, SQLITE_FCNTL_DATA_VERSION, &version)
    return code == SQLITE_OK ? version : nil
  }

  /// Takes the data version the connection's own commit left, right after it: the position
  /// describes the file as committed, and no other connection's commit is counted before the
  /// connection's next transaction begins. (Not after a failed transaction: the position put
  /// back may be older than what the connection has seen, and must not be trusted.)
  mutating func noteCommitted(_ db: Database) {
    position.dataVersion = Self.dataVersion(db)
  }

  /// Whether undo (redo) would move a step: steps from before a barrier migration stay on the
  /// stacks, where undo and redo refuse them with the reason, but they are not offered.
  var canUndo: Bool { position.nextUndo.map { $0 >= tables.appSchema.lastBarrier } ?? false }
  var canRedo: Bool { position.nextRedo.map { $0 >= tables.appSchema.lastBarrier } ?? false }

  // MARK: - Catching up with other writers

  /// What other connections committed since this position was read.
  enum Sync {
    /// Nothing: the position is current.
    case current
    /// The row changes of the entries they appended, in order: apply them forward.
    case missed([RowChange])
    /// Entries this position has not seen were compacted away, or the tables were rebuilt from
    /// the log: read the state from the tables.
    case reload

    /// Whether no entry was committed since: memory has nothing to follow.
    var isCurrent: Bool {
      if case .current = self { true } else { false }
    }
  }

  /// Brings the position up to date inside the caller's write transaction, and says what the
  /// caller's in-memory state must do to follow. - Complexity: O(1) when no other connection
  /// committed; otherwise proportional to the entries it missed.
  mutating func sync(_ db: Database) throws -> Sync {
    let version = Self.dataVersion(db)
    if let version, version == position.dataVersion { return .current }
    commitsLookedAt += 1
    // Most often the commit stored a snapshot (the store's own worker writes one on a
    // connection of its own, in many parts): reading the whole position again took 0.4 to
    // 1.2 ms of the send after each, at 100,000 tasks.
    let seenRow = try Row.fetchOne(db.cachedStatement(sql: Self.commitsSeenSQL))!
    if isCurrent(seenRow) {
      try readLatestSnapshot(from: seenRow)
      position.dataVersion = version
      return .current
    }
    let (seen, rebuilt) = (lastSeq, position.tablesRebuilt)
    // Not a log that only grew (or tables rewritten with no entry): the position is read again
    // whole. What the quick look read says so at once; a value it cannot take is read (and
    // reported) by the reload.
    if !onlyGrew(seenRow, since: seen) {
      try reload(db)
      return .reload
    }
    try reload(db, since: seen)
    if baseSeq > seen || lastSeq < seen || position.tablesRebuilt != rebuilt {
      try reload(db)
      return .reload
    }
    if lastSeq == seen { return .current }
    var changes: [RowChange] = []
    try forEachEntry(after: seen, through: lastSeq, db) { changes += $0 }
    return .missed(changes)
  }

  /// Calls `body` with the validated row changes of each entry after `low` through `high`, in
  /// order, and throws if one of them is missing from the log (see ``ContiguousSeqs``).
  func forEachEntry(
    after low: Int64, through high: Int64, _ db: Database, _ body: ([RowChange]) throws -> Void
  ) throws {
    var seqs = ContiguousSeqs(after: low, through: high)
    let rows = try Row.fetchCursor(
      db.cachedStatement(sql: "SELECT seq, changes FROM action_log WHERE seq > ? AND seq <= ? ORDER BY seq"),
      arguments: [low, high])
    while let row = try rows.next() {
      try seqs.take(try row.checked("seq", in: EngineTable.actionLog.name, as: Int64.self))
      try body(try decodeChanges(row))
    }
    try seqs.finish()
  }

  /// The validated row changes of a log row with `seq` and `changes` columns.
  func decodeChanges(_ row: Row) throws -> [RowChange] {
    let seq = try row.checked("seq", in: EngineTable.actionLog.name, as: Int64.self)
    do {
      let changes = tables.appSchema.upgrade(
        try RowChange.decodeJSON(try row.checked("changes", in: EngineTable.actionLog.name, as: String.self)),
        at: seq)
      // Images from before a barrier keep the shape they had (tables and columns that may be
      // gone): they are read, never written back.
      if seq >= tables.appSchema.lastBarrier {
        for change in changes { try tables.validate(change) }
      }
      return changes
    } catch let error as RewindError {
      throw RewindError(.corruptData, "action_log seq \(seq): \(error.message)", underlying: error.underlying)
    }
  }

  // MARK: - Appending

  /// Writes `entry`'s rows and appends it to the log. Returns its seq.
  @discardableResult
  mutating func append(_ entry: LogEntry, _ db: Database) throws -> Int64 {
    try commit(entry, db).seq
  }

  /// Writes `entry`'s rows and appends it to the log, with the rows its deletions carry along
  /// (see ``writeRows(_:_:)``). Returns its seq, and the changes of those rows: what memory
  /// must apply beyond the entry's own changes.
  mutating func commit(_ entry: LogEntry, _ db: Database) throws -> (seq: Int64, cascaded: [RowChange]) {
    // The entry takes the next seq explicitly. Callers sync first, so the seq is free; if a
    // connection that bypassed the engine took it, the insert fails on its primary key and the
    // transaction rolls back rather than overwrite anything.
    let (seq, overflow) = lastSeq.addingReportingOverflow(1)
    guard !overflow else {
      throw RewindError(
        .corruptData, "action_log is at seq \(lastSeq), the largest there can be: no entry can follow it")
    }
    do {
      return try append(entry, seq: seq, db)
    } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
      // The statement failed alone: the transaction can still be read to find the row.
      let reason =
        (try? brokenReference(in: entry.changes, db))
        ?? "a row would refer to a row that does not exist, or a row that others refer to would be deleted"
      // An undo or redo that breaks a relation conflicts with what was written since its step.
      let moving = entry.kind == .undo || entry.kind == .redo
      throw RewindError(
        moving ? .conflict : .relationViolation,
        "\(entry.action) cannot be \(moving ? "done" : "committed"): \(reason) (a foreign key); nothing was written",
        underlying: error)
    } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
      let actual = try fileLastSeq(db)
      guard actual != lastSeq else { throw error }
      throw RewindError(
        .externalChange,
        "the database was changed behind the engine's back (its log is at seq \(actual), this store is at \(lastSeq))")
    }
  }

  private mutating func append(
    _ entry: LogEntry, seq: Int64, _ db: Database
  ) throws -> (seq: Int64, cascaded: [RowChange]) {
    // The entry's changes and those of the rows its deletions carried along: what is logged.
    // (The entry itself is read in place, not copied to change its `changes`.)
    let moving = entry.kind == .undo || entry.kind == .redo
    if !tables.keyCollations.isEmpty { try refuseKeysHeldAsOne(in: entry, moving: moving, db) }
    let (changes, cascaded): (written: [RowChange], cascaded: [RowChange])
    do {
      (changes, cascaded) = try writeRows(entry.changes, db)
    } catch var error as RewindError where error.code == .commitFailed {
      // A row a UNIQUE constraint refuses. For an undo or redo, its values were taken since.
      error.code = moving ? .conflict : .commitFailed
      error.message = "\(entry.action) cannot be \(moving ? "done" : "committed"): \(error.message)"
      throw error
    }
    if !cascaded.isEmpty, moving {
      // Undo never removes what it did not write: rows that refer to what it deletes came later.
      throw RewindError(
        .conflict,
        "\(entry.action) would also \(cascaded.contains { $0.after != nil } ? "change" : "delete") rows written after the step, which refer to the rows it deletes: \(cascaded.prefix(5).map { "\($0.table) \(describe($0.key))" }.joined(separator: ", ")); nothing was changed"
      )
    }
    if !cascaded.isEmpty, entry.kind == .import {
      // The file names every row the state is to hold: a row it keeps that refers to one it
      // drops is the file's error, not something to delete behind it.
      throw RewindError(
        .invalidImport,
        "the file's rows refer to rows it does not hold: importing it would also \(cascaded.contains { $0.after != nil } ? "change" : "delete") \(cascaded.prefix(5).map { "\($0.table) \(describe($0.key))" }.joined(separator: ", ")); nothing was changed"
      )
    }
    if tables.relations.hasCycle, let reason = try brokenReference(in: changes, db) {
      // Foreign keys checked at commit would fail there, naming nothing: say which row.
      throw RewindError(
        moving ? .conflict : .relationViolation,
        "\(entry.action) cannot be committed: \(reason) (a foreign key); nothing was written")
    }
    let dangling = try danglingListEntries(in: changes, db)
    if !dangling.isEmpty {
      throw RewindError(
        moving ? .conflict : .relationViolation,
        "\(entry.action) cannot be \(moving ? "done without breaking the state" : "committed"): \(dangling.prefix(5).joined(separator: "; ")); nothing was changed"
      )
    }

    var step: Int64?
    switch entry.undo {
    case .none:
      break
    case .joinLastStep:
      step = position.lastStep
      if let step {
        try extendStep(step, to: seq, db)
      }
    case .step(let group):
      guard LogEntry.changesDocument(changes) else { break }
      if let redo = position.nextRedo {
        try db.execute(sql: "DELETE FROM undo_steps WHERE id >= ?", arguments: [redo])
        position.nextRedo = nil
      }
      if let group, let open = position.openGroup, open.key == group {
        step = open.step
        try extendStep(open.step, to: seq, db)
      } else {
        step = seq
        try statements.statement(.insertStep, in: db).execute { parameters in
          parameters.bind(seq.databaseValue)
          parameters.bind(seq.databaseValue)
          parameters.bind(group.map(\.databaseValue) ?? .null)
        }
        position.nextUndo = seq
      }
      position.openGroup = group.map { (step!, $0) }
    }
    if entry.kind != .action, entry.kind != .repair, entry.kind != .initialize {
      position.openGroup = nil
    }
    position.lastStep = step

    if entry.kind == .repair { try extendApplication(endingAt: seq - 1, to: seq, db) }

    var json = TextBuffer(capacity: 256 * changes.count)
    RowChange.writeJSON(changes, to: &json)
    // (Optionals bound through `map`, specialized here: GRDB's `Optional.databaseValue` is
    // generic code that copied each through its value witnesses.)
    let group = step == nil ? DatabaseValue.null : position.openGroup.map { $0.key.databaseValue } ?? .null
    if StackEntry.touches(kind: entry.kind, step: step) {
      position.lastStackEntry = StackEntry(
        kind: entry.kind.rawValue, step: step, groupKey: step == nil ? nil : position.openGroup?.key)
    }
    try statements.statement(.insertEntry, in: db).execute { parameters in
      parameters.bind(seq.databaseValue)
      clock.withNow { parameters.bind(text: $0) }
      parameters.bind(entry.kind.rawValue.databaseValue)
      parameters.bind(entry.action.databaseValue)
      parameters.bind(entry.payload.databaseValue)
      json.withBytes { parameters.bind(text: $0) }
      parameters.bind(step.map(\.databaseValue) ?? .null)
      parameters.bind(group)
    }
    lastSeq = seq
    return (seq, cascaded)
  }

  /// Makes `seq` the last entry of undo step `step`.
  private func extendStep(_ step: Int64, to seq: Int64, _ db: Database) throws {
    try statements.statement(.extendStep, in: db).execute { parameters in
      parameters.bind(seq.databaseValue)
      parameters.bind(step.databaseValue)
    }
  }

  // MARK: - Undo and redo

  /// What an undo or redo did: its entry and its changes.
  struct StepMove {
    var seq: Int64
    var changes: [RowChange]
  }

  /// Reverts the step on top of the undo stack, or returns `nil` when there is nothing to undo.
  ///
  /// `loadsAlike` tells a view-state row and no row apart only where they load as different
  /// values (see ``revert(_:_:loadsAlike:)``); the tool, with no app, has no defaults.
  mutating func undo(_ db: Database, loadsAlike: (RowChange) -> Bool = { _ in false }) throws -> StepMove? {
    try move(.backward, db, loadsAlike)
  }

  /// Reapplies the step on top of the redo stack, or returns `nil` when there is nothing to redo.
  mutating func redo(_ db: Database, loadsAlike: (RowChange) -> Bool = { _ in false }) throws -> StepMove? {
    try move(.forward, db, loadsAlike)
  }

  /// Undo (`.backward`) or redo (`.forward`): reverts the step's latest application column by
  /// column (see ``revert(_:_:loadsAlike:)``), refuses if that breaks an invariant, and moves
  /// the step to the other stack. Its entry (and a repair appended right after it) is recorded
  /// as the step's latest application, so that the next move reverts exactly this one.
  private mutating func move(
    _ direction: ChangeDirection, _ db: Database, _ loadsAlike: (RowChange) -> Bool
  ) throws -> StepMove? {
    let undoing = direction == .backward
    guard let step = undoing ? position.nextUndo : position.nextRedo else { return nil }
    let barrier = tables.appSchema.lastBarrier
    if step < barrier {
      throw RewindError(
        .historyBarrier,
        "step \(step) is before the app migration at seq \(barrier), which history does not cross: it can be read (log, export --at), not \(undoing ? "undone" : "redone")"
      )
    }
    let changes = try revert(try latestApplication(ofStep: step, db), db, loadsAlike: loadsAlike)
    let entry = LogEntry(
      kind: undoing ? .undo : .redo, action: undoing ? "undo" : "redo", payload: #"{"step":\#(step)}"#,
      changes: changes, undo: .none)
    let seq = try append(entry, db)
    try db.cachedStatement(sql: "UPDATE undo_steps SET undone = ?, applied_from = ?, applied_to = ? WHERE id = ?")
      .execute(arguments: [undoing, seq, seq, step])
    // Undone steps are the largest ids, so the next tops are the neighbours of `step`.
    if undoing {
      position.nextRedo = step
      position.nextUndo = try db.checkedInteger(
        "SELECT max(id) FROM undo_steps WHERE id < ?", arguments: [step], what: "undo_steps.id")
    } else {
      position.nextUndo = step
      position.nextRedo = try db.checkedInteger(
        "SELECT min(id) FROM undo_steps WHERE id > ?", arguments: [step], what: "undo_steps.id")
    }
    return StepMove(seq: seq, changes: changes)
  }

  /// A repair right after an undo or redo (the store's own, or the tool's followed by the app's
  /// repair when it next writes or opens) is part of that move: the next move of the step
  /// reverts it too, so undo then redo brings back what the repair cleared.
  private func extendApplication(endingAt previous: Int64, to seq: Int64, _ db: Database) throws {
    guard let step = try Self.stepID(movedBy: previous, db) else { return }
    try db.cachedStatement(sql: "UPDATE undo_steps SET applied_to = ? WHERE id = ? AND applied_to = ?")
      .execute(arguments: [seq, step, previous])
  }

  /// The row changes of the step's latest application, merged per row: its own entries, or the
  /// undo or redo entry (and repair) that last moved it.
  func latestApplication(ofStep step: Int64, _ db: Database) throws -> [RowChange] {
    guard
      let row = try Row.fetchOne(
        db.cachedStatement(sql: "SELECT last_seq, undone, applied_from, applied_to FROM undo_steps WHERE id = ?"),
        arguments: [step])
    else { throw RewindError(.corruptData, "undo step \(step) is missing from undo_steps") }
    let undone = try row.checked("undone", in: EngineTable.undoSteps.name, as: Bool.self)
    var net = NetChanges()
    if let from = try row.checked("applied_from", in: EngineTable.undoSteps.name, as: Int64?.self),
      let to = try row.checked("applied_to", in: EngineTable.undoSteps.name, as: Int64?.self)
    {
      // (Compared before subtracting: the seqs are the file's, any integer.)
      try forEachEntry(after: from > baseSeq ? from - 1 : baseSeq, through: to, db) {
        for change in $0 { net.add(change) }
      }
      return net.changes
    }
    let last = try row.checked("last_seq", in: EngineTable.undoSteps.name, as: Int64.self)
    let rows = try Row.fetchCursor(
      db.cachedStatement(sql: "SELECT seq, changes, step FROM action_log WHERE seq BETWEEN ? AND ? ORDER BY seq"),
      arguments: [step, last])
    // Entries up to the base were compacted away (a step an earlier release folded).
    var seqs = ContiguousSeqs(after: step > baseSeq ? step - 1 : baseSeq, through: last)
    while let row = try rows.next() {
      try seqs.take(try row.checked("seq", in: EngineTable.actionLog.name, as: Int64.self))
      // Entries in the range that are not the step's (a non-undoable action between two
      // grouped ones) are skipped; a step that is not an integer is damage, not "another step".
      guard try row.checked("step", in: EngineTable.actionLog.name, as: Int64?.self) == step else { continue }
      for change in try decodeChanges(row) { net.add(change, byColumn: true) }
    }
    try seqs.finish()
    // A step undone by an earlier release has no recorded application: its undo reverted its
    // own entries, so redo reapplies them.
    return undone ? net.changes.reversed().map(\.inverted) : net.changes
  }

  /// The changes that revert `applied` against the rows as they are now, column by column:
  ///
  /// - a row it updated gets back the old value of each column that still holds the value it
  ///   wrote; a column changed since (by another writer, a non-undoable action, the tool) is
  ///   kept, and a row deleted since stays deleted;
  /// - a row it inserted is deleted, whatever changed in it since (the deleted row, with those
  ///   changes, is what the next redo brings back);
  /// - a row it deleted is inserted again, unless a row with that key exists by now;
  /// - but a view-state row stands for a property's value, as a column does: it gets back
  ///   what it was before the step (a row, or none) only while it still holds what the step
  ///   left. No row and a row holding the property's default load as the same value, so they
  ///   count as the same when `loadsAlike` says so of the change from one to the other (a
  ///   view-only jump to seq 0 removes rows an undoable step left holding the default).
  ///
  /// A list entry's `owner` and `position` say together where it is: they are reverted
  /// together, only while both hold what the step wrote (an entry moved since stays where it
  /// was moved). And an entry put back at a position that another entry of its list has taken
  /// since gets a position of its own, just before that entry's, so that no two entries share
  /// one (they would sort by id, not where either was put).
  ///
  /// Rows already as wanted are left out.
  func revert(
    _ applied: [RowChange], _ db: Database, loadsAlike: (RowChange) -> Bool = { _ in false }
  ) throws -> [RowChange] {
    var changes: [RowChange] = []
    for change in applied.reversed() {
      let current = try currentRow(table: change.table, key: change.key, db)
      let target: RowImage?
      switch (change.before, change.after) {
      case _ where change.table == EngineTable.viewState.name:
        // A value set since (by another writer, a non-undoable action) is someone else's: kept.
        guard
          current == change.after
            || loadsAlike(RowChange(table: change.table, key: change.key, before: current, after: change.after))
        else { continue }
        target = change.before
      case (nil, _):
        target = nil
      case (let before?, nil):
        target = current ?? before
      case (let before?, let after?):
        guard var row = current else { continue }
        for column in Set(before.keys).union(after.keys) where row[column] == after[column] {
          row[column] = before[column]
        }
        if change.table == EngineTable.listEntries.name,
          Self.placementColumns.contains(where: { (current?[$0] ?? .null) != (after[$0] ?? .null) })
        {
          for column in Self.placementColumns { row[column] = current?[column] }
        }
        target = row
      }
      if target != current {
        changes.append(RowChange(table: change.table, key: change.key, before: current, after: target))
      }
    }
    return try placingListEntriesApart(changes, db)
  }

  /// The columns of a list entry that say where it is.
  private static let placementColumns = ["owner", "position"]

  /// `changes`, with each list entry they place at a position another entry of its list
  /// holds (in the file, and not moved by `changes`; or placed there by an earlier change)
  /// given a position just before that one instead.
  private func placingListEntriesApart(_ changes: [RowChange], _ db: Database) throws -> [RowChange] {
    let table = EngineTable.listEntries.name
    guard changes.contains(where: { $0.table == table && $0.after != nil }) else { return changes }
    // Entries these changes move or remove: where the file has them now does not count.
    let moving = Set(changes.filter { $0.table == table }.map(\.key))
    var placed: [Placement: DatabaseValue] = [:]
    // The positions placed so far in each list (under each owner), in ascending order: the
    // gap below a taken position is found by halving them. (A look at every entry placed,
    // for each that collided, made a redo of 16,000 colliding entries take 6.5 s.)
    var placedPositions: [ListOwner: [String]] = [:]
    var result: [RowChange] = []
    for var change in changes {
      guard change.table == table, var row = change.after, let list = row["list"], let wanted = row["position"]
      else {
        result.append(change)
        continue
      }
      let owner = row["owner"] ?? .null
      let listOwner = ListOwner(list: list, owner: owner)
      if try isTaken(Placement(list, owner, wanted), by: change.key, moving: moving, placed: placed, db) {
        row["position"] = try position(
          before: wanted, in: list, owner: owner, placed: placedPositions[listOwner] ?? [], db)
        change.after = row
      }
      let position = row["position"] ?? wanted
      placed[Placement(list, owner, position)] = change.key["id"]
      if let key = String.fromDatabaseValue(position) {
        placedPositions[listOwner, default: []].insertSorted(key)
      }
      result.append(change)
    }
    return result
  }

  /// A list, under an owner (`NULL` for a plain list).
  private struct ListOwner: Hashable {
    var list: DatabaseValue
    var owner: DatabaseValue
  }

  /// A list's position, under an owner (`NULL` for a plain list).
  private struct Placement: Hashable {
    var list: DatabaseValue
    var owner: DatabaseValue
    var position: DatabaseValue
    init(_ list: DatabaseValue, _ owner: DatabaseValue, _ position: DatabaseValue) {
      (self.list, self.owner, self.position) = (list, owner, position)
    }
  }

  /// Whether another entry than `key`'s holds `placement`: placed there by an earlier change,
  /// or in the file and not moved by the changes.
  private func isTaken(
    _ placement: Placement, by key: RowImage, moving: Set<RowImage>, placed: [Placement: DatabaseValue],
    _ db: Database
  ) throws -> Bool {
    if let id = placed[placement] { return id != key["id"] }
    let holders = try Row.fetchAll(
      db.cachedStatement(sql: "SELECT list, id FROM list_entries WHERE list = ? AND owner IS ? AND position = ?"),
      arguments: [placement.list, placement.owner, placement.position])
    return holders.contains { holder in
      let holderKey = RowImage(EngineTable.listEntryKey, [holder["list"], holder["id"]])
      return holderKey != key && !moving.contains(holderKey)
    }
  }

  /// A position key just before `position` in the list, after every entry below it: in the
  /// file (entries the changes move included: a bound they are leaving only narrows the gap)
  /// and placed by the changes.
  private func position(
    before position: DatabaseValue, in list: DatabaseValue, owner: DatabaseValue, placed: [String],
    _ db: Database
  ) throws -> DatabaseValue {
    guard let upper = String.fromDatabaseValue(position) else {
      throw RewindError(.corruptData, "list_entries position \(position) is not text")
    }
    var lower = try String.fetchOne(
      db.cachedStatement(
        sql: "SELECT max(position) FROM list_entries WHERE list = ? AND owner IS ? AND position < ?"),
      arguments: [list, owner, upper])
    let below = placed.partitioningIndex { $0 >= upper }
    if below > placed.startIndex, placed[below - 1] > (lower ?? "") { lower = placed[below - 1] }
    return PositionKey.between(lower, upper).databaseValue
  }

  // MARK: - Jumps

  /// The changes that bring the rows of `timeline` back to what they were right after `seq`.
  ///
  /// Every row write is logged with its exact before-image, so a row's value after `seq` is the
  /// `before` of the first later entry that touched it; rows no later entry touched are
  /// already right.
  func changesJumping(to seq: Int64, timeline: Timeline, _ db: Database) throws -> [RowChange] {
    try checkReturnable(seq)
    if let anchor = try rebuildAnchor(for: seq, db) {
      let target = try rows(at: seq, from: anchor, db)
      return try StateRows(db, catalog: tables).changes(to: target, timeline: timeline)
    }
    var net = NetChanges()
    try forEachEntry(after: seq, through: lastSeq, db) { changes in
      for change in changes where timeline.includes(change.table) { net.add(change) }
    }
    return try changesRestoring(net.changes, .backward, db)
  }

  /// Throws unless the state right after `seq` can be rebuilt.
  func checkSeq(_ seq: Int64) throws {
    if seq < baseSeq, seq >= 0 {
      throw RewindError(
        .unknownSeq, "seq \(seq) was compacted away: history starts after seq \(baseSeq)")
    }
    guard seq >= baseSeq, seq <= lastSeq else {
      throw RewindError(.unknownSeq, "there is no seq \(seq) in the log (it holds \(baseSeq) to \(lastSeq))")
    }
    if let end = initializedThrough, seq > 0, seq < end {
      throw RewindError(
        .unknownSeq,
        "seq \(seq) is partway through the file's creation (its initial state was logged in batches, seqs 1 to \(end)): the created state is the one at seq \(end)"
      )
    }
  }

  /// Throws unless the state right after `seq` can be rebuilt and made current again: it must
  /// not be before a barrier migration.
  func checkReturnable(_ seq: Int64) throws {
    try checkSeq(seq)
    try checkNotBeforeBarrier(seq)
  }

  /// Throws ``RewindError/Code/historyBarrier`` if `seq` is before the last barrier migration.
  func checkNotBeforeBarrier(_ seq: Int64) throws {
    let barrier = tables.appSchema.lastBarrier
    if seq < barrier {
      throw RewindError(
        .historyBarrier,
        "seq \(seq) is before the app migration at seq \(barrier), which history does not cross: it can be read (log, export --at), not returned to"
      )
    }
  }

  // MARK: - Rows

  /// Changes from each row as it is now to the row `direction` selects in `changes`; rows
  /// already there are left out.
  func changesRestoring(
    _ changes: [RowChange], _ direction: ChangeDirection, _ db: Database
  ) throws -> [RowChange] {
    try changes.compactMap { change in
      try tables.validate(change)
      let current = try currentRow(table: change.table, key: change.key, db)
      let target = change.target(direction)
      return current == target ? nil : RowChange(table: change.table, key: change.key, before: current, after: target)
    }
  }

  func currentRow(table: String, key: RowImage, _ db: Database) throws -> RowImage? {
    // The row keyed by these very bytes: a key column that compares without case would give
    // `dairy`'s row for `Dairy` (its index finds the candidates, the second test the row).
    let exact = tables.keyCollations[table] != nil
    let conditions: [String] = key.keys.map { column in
      let name = column.quotedDatabaseIdentifier
      return exact ? "\(name) = ? AND \(name) = ? COLLATE BINARY" : "\(name) = ?"
    }
    let sql = "SELECT * FROM \(table.quotedDatabaseIdentifier) WHERE \(conditions.joined(separator: " AND "))"
    let arguments = exact ? key.values.flatMap { [$0, $0] } : key.values
    guard let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
    else { return nil }
    return StateRows.image(of: row, in: table)
  }

  // MARK: - Stacks

  /// The undo and redo stacks, at most `limit` steps each, from their tops (see
  /// ``stackTops(_:)``): a long history or redo stack is never scanned.
  static func stacks(_ db: Database, limit: Int = 20) throws -> HistoryStacks {
    // Steps from before a barrier migration cannot be moved: they are not listed.
    let barrier = try AppSchemaHistory(db).lastBarrier
    let (nextUndo, _) = try stackTops(db)
    let limit = max(limit, 0)
    let redo = try Int64.fetchAll(
      db, sql: "SELECT id FROM undo_steps WHERE id > ? AND id >= ? ORDER BY id LIMIT ?",
      arguments: [nextUndo ?? .min, barrier, limit])
    let undo = try nextUndo.map {
      try Int64.fetchAll(
        db, sql: "SELECT id FROM undo_steps WHERE id <= ? AND id >= ? ORDER BY id DESC LIMIT ?",
        arguments: [$0, barrier, limit])
    }
    func step(_ id: Int64) throws -> HistoryStep { try Self.step(id, db) }
    return HistoryStacks(undo: try (undo ?? []).map(step), redo: try redo.map(step))
  }

  /// The undo step with `id`: its entries' actions and seqs.
  static func step(_ id: Int64, _ db: Database) throws -> HistoryStep {
    let rows = try Row.fetchAll(
      db,
      sql: """
        SELECT seq, action, group_key FROM action_log
        WHERE seq BETWEEN ? AND (SELECT last_seq FROM undo_steps WHERE id = ?) AND step = ?
        ORDER BY seq
        """,
      arguments: [id, id, id])
    return HistoryStep(
      id: id,
      actions: try rows.map { try $0.checked("action", in: EngineTable.actionLog.name) },
      seqs: try rows.map { try $0.checked("seq", in: EngineTable.actionLog.name) },
      groupKey: try rows.first?.checked("group_key", in: EngineTable.actionLog.name, as: String?.self))
  }

  /// The step that the `undo` or `redo` entry `seq` reverted or reapplied, or `nil` when `seq`
  /// is no such entry.
  static func step(movedBy seq: Int64, _ db: Database) throws -> HistoryStep? {
    try stepID(movedBy: seq, db).map { try step($0, db) }
  }

  /// The id of the step that the `undo` or `redo` entry `seq` moved, from its payload.
  static func stepID(movedBy seq: Int64, _ db: Database) throws -> Int64? {
    try db.checkedInteger(
      "SELECT json_extract(payload, '$.step') FROM action_log WHERE seq = ? AND kind IN ('undo', 'redo')",
      arguments: [seq], what: "the step named by the payload of action_log seq \(seq)")
  }
}

/// Row changes merged per row, in the order rows were first touched: the first before and the
/// last after of each.
struct NetChanges {
  /// A row: its table and key.
  struct RowID: Hashable {
    var table: String
    var key: RowImage
  }
  private var index: [RowID: Int] = [:]
  private(set) var changes: [RowChange] = []

  /// The merged change of the row `id`, if any change touched it.
  subscript(id: RowID) -> RowChange? { index[id].map { changes[$0] } }

  /// Merges `change` into the row's merged change.
  ///
  /// - Parameter byColumn: merge updates column by column, for changes with gaps between them
  ///   (a group's entries, with a non-undoable action between two of them): a column the
  ///   later change did not set keeps the value the earlier ones left, and one it set first
  ///   takes its old value from it, so a column only entries in the gaps changed shows as
  ///   unchanged and a revert leaves it alone.
  mutating func add(_ change: RowChange, byColumn: Bool = false) {
    let id = RowID(table: change.table, key: change.key)
    if let position = index[id] {
      guard byColumn, var before = changes[position].before, var after = changes[position].after,
        let laterBefore = change.before, let laterAfter = change.after
      else {
        changes[position].after = change.after
        return
      }
      for (column, value) in laterAfter where laterBefore[column] != value {
        if after[column] == before[column] { before[column] = laterBefore[column] }
        after[column] = value
      }
      changes[position].before = before
      changes[position].after = after
    } else {
      index[id] = changes.count
      changes.append(change)
    }
  }
}

extension [String] {
  /// Inserts `key` where the ascending order puts it (at the end, for keys placed in order).
  fileprivate mutating func insertSorted(_ key: String) {
    if let last, last > key { insert(key, at: partitioningIndex { $0 >= key }) } else { append(key) }
  }
}
