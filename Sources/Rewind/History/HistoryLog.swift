import Foundation
import GRDB

/// The action log and the undo stacks of one database, read and written with no app code.
///
/// The store and the `rewind` tool both go through this type, so they agree on what undo,
/// redo and jumps do. Every operation runs inside the caller's write transaction and appends
/// one log entry whose row changes are exactly what it wrote, so the log stays a complete,
/// replayable record. If the transaction fails, call ``reload(_:)``: the in-memory position
/// may be ahead of the database.
struct HistoryLog {
  /// The seq of the last entry.
  private(set) var lastSeq: Int64 = 0
  /// The step undo would revert.
  private(set) var nextUndo: Int64?
  /// The step redo would reapply.
  private(set) var nextRedo: Int64?
  /// The step that an action with the same group key would join.
  private var openGroup: (step: Int64, key: String)?
  /// The step the last appended entry started or joined.
  private var lastStep: Int64?
  private var writer = RowWriter()
  /// The tables and columns the log may name.
  private(set) var tables: TableCatalog
  /// The seq history starts after: 0, or the base snapshot's after a compaction.
  private(set) var baseSeq: Int64 = 0
  /// The seq of the latest snapshot (or the base), for the automatic snapshot policy.
  var lastSnapshotSeq: Int64 = 0

  init(_ db: Database) throws {
    tables = try TableCatalog(db)
    try reload(db)
  }

  /// Reads the position back from the database.
  mutating func reload(_ db: Database) throws {
    lastSeq = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM action_log") ?? 0
    // Undone steps are the ones with the largest ids: walk down from the top while undone.
    nextUndo = nil
    nextRedo = nil
    let steps = try Row.fetchCursor(db, sql: "SELECT id, undone FROM undo_steps ORDER BY id DESC")
    while let step = try steps.next() {
      if step["undone"] as Bool {
        nextRedo = step["id"]
      } else {
        nextUndo = step["id"]
        break
      }
    }
    lastStep = nil
    openGroup = nil
    // The group stays open if the last entry that touched the undo stacks is a grouped action
    // of the step on top of the undo stack.
    if let row = try Row.fetchOne(
      db,
      sql: """
        SELECT kind, step, group_key FROM action_log
        WHERE step IS NOT NULL OR kind IN ('undo', 'redo', 'jump', 'restore', 'import')
        ORDER BY seq DESC LIMIT 1
        """)
    {
      let kind: String = row["kind"]
      let step: Int64? = row["step"]
      if kind == "action", let step, step == nextUndo, let key: String = row["group_key"] {
        openGroup = (step, key)
      }
    }
    try tables.reload(db)
    baseSeq = try Int64.fetchOne(db, sql: "SELECT value FROM rewind_meta WHERE key = 'base_seq'") ?? 0
    lastSnapshotSeq = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM snapshots") ?? baseSeq
  }

  var canUndo: Bool { nextUndo != nil }
  var canRedo: Bool { nextRedo != nil }

  // MARK: - Appending

  /// Writes `entry`'s rows and appends it to the log. Returns its seq.
  ///
  /// - Throws: ``RewindError/Code/externalChange`` if another connection appended entries
  ///   since this log was loaded: writing now would overwrite what it did.
  mutating func append(_ entry: LogEntry, _ db: Database) throws -> Int64 {
    // The entry takes the next seq explicitly. If another process appended since this log was
    // read, that seq (and the step id equal to it) is taken: the insert fails on its primary
    // key, the transaction rolls back, and the caller learns it must reload.
    let seq = lastSeq + 1
    do {
      return try append(entry, seq: seq, db)
    } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
      let actual = try Int64.fetchOne(db, sql: "SELECT max(seq) FROM action_log") ?? 0
      guard actual != lastSeq else { throw error }
      throw RewindError(
        .externalChange,
        "the database was changed by another process (its log is at seq \(actual), this store is at \(lastSeq)); reopen it to see the changes")
    }
  }

  private mutating func append(_ entry: LogEntry, seq: Int64, _ db: Database) throws -> Int64 {
    try writer.apply(entry.changes, .forward, in: db)

    var step: Int64?
    switch entry.undo {
    case .none:
      break
    case .joinLastStep:
      step = lastStep
      if let step {
        try db.cachedStatement(sql: "UPDATE undo_steps SET last_seq = ? WHERE id = ?").execute(arguments: [seq, step])
      }
    case .step(let group):
      guard entry.changesDocument else { break }
      if let redo = nextRedo {
        try db.execute(sql: "DELETE FROM undo_steps WHERE id >= ?", arguments: [redo])
        nextRedo = nil
      }
      if let group, let open = openGroup, open.key == group {
        step = open.step
        try db.cachedStatement(sql: "UPDATE undo_steps SET last_seq = ? WHERE id = ?").execute(arguments: [seq, open.step])
      } else {
        step = seq
        try db.cachedStatement(sql: "INSERT INTO undo_steps (id, last_seq, group_key) VALUES (?, ?, ?)")
          .execute(arguments: [seq, seq, group])
        nextUndo = seq
      }
      openGroup = group.map { (step!, $0) }
    }
    if entry.kind != .action, entry.kind != .repair, entry.kind != .initialize {
      openGroup = nil
    }
    lastStep = step

    try db.cachedStatement(
      sql: """
        INSERT INTO action_log (seq, kind, action, payload, changes, step, group_key)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """
    ).execute(arguments: [
      seq, entry.kind.rawValue, entry.action, entry.payload, RowChange.json(entry.changes), step,
      step == nil ? nil : openGroup?.key,
    ])
    lastSeq = seq
    return seq
  }

  // MARK: - Undo and redo

  /// Reverts the step on top of the undo stack. Returns the entry's seq and the changes it
  /// made, or `nil` when there is nothing to undo.
  mutating func undo(_ db: Database) throws -> (seq: Int64, changes: [RowChange])? {
    try move(.backward, db)
  }

  /// Reapplies the step on top of the redo stack. Returns the entry's seq and the changes it
  /// made, or `nil` when there is nothing to redo.
  mutating func redo(_ db: Database) throws -> (seq: Int64, changes: [RowChange])? {
    try move(.forward, db)
  }

  /// Undo (`.backward`) or redo (`.forward`): moves the top step of one stack to the other.
  private mutating func move(_ direction: ChangeDirection, _ db: Database) throws -> (seq: Int64, changes: [RowChange])? {
    let undoing = direction == .backward
    guard let step = undoing ? nextUndo : nextRedo else { return nil }
    let changes = try changesRestoring(try netChanges(ofStep: step, db), direction, db)
    let entry = LogEntry(
      kind: undoing ? .undo : .redo, action: undoing ? "undo" : "redo", payload: #"{"step":\#(step)}"#,
      changes: changes, undo: .none)
    let seq = try append(entry, db)
    try db.cachedStatement(sql: "UPDATE undo_steps SET undone = ? WHERE id = ?").execute(arguments: [undoing, step])
    // Undone steps are the largest ids, so the next tops are the neighbours of `step`.
    if undoing {
      nextRedo = step
      nextUndo = try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(id) FROM undo_steps WHERE id < ?"), arguments: [step])
    } else {
      nextUndo = step
      nextRedo = try Int64.fetchOne(db.cachedStatement(sql: "SELECT min(id) FROM undo_steps WHERE id > ?"), arguments: [step])
    }
    return (seq, changes)
  }

  /// The step's row changes merged per row: the first before and the last after.
  func netChanges(ofStep step: Int64, _ db: Database) throws -> [RowChange] {
    var net = NetChanges()
    let texts = try String.fetchCursor(
      db.cachedStatement(
        sql: """
          SELECT changes FROM action_log
          WHERE seq BETWEEN ? AND (SELECT last_seq FROM undo_steps WHERE id = ?) AND step = ?
          ORDER BY seq
          """),
      arguments: [step, step, step])
    while let text = try texts.next() {
      for change in try RowChange.decodeJSON(text) { net.add(change) }
    }
    return net.changes
  }

  // MARK: - Jumps

  /// The changes that bring the rows of `timeline` back to what they were right after `seq`.
  ///
  /// Every row write is logged with its exact before-image, so a row's value after `seq` is the
  /// `before` of the first later entry that touched it; rows no later entry touched are
  /// already right.
  func changesJumping(to seq: Int64, timeline: Timeline, _ db: Database) throws -> [RowChange] {
    try checkSeq(seq)
    // Far from the head, start from a snapshot instead: the cost follows snapshot spacing.
    let anchor = try nearestAnchor(to: seq, db)
    if anchor.distance < lastSeq - seq {
      let target = try rows(at: seq, from: anchor, db)
      return try StateRows(db, catalog: tables).changes(to: target, timeline: timeline)
    }
    var net = NetChanges()
    let texts = try String.fetchCursor(
      db, sql: "SELECT changes FROM action_log WHERE seq > ? ORDER BY seq", arguments: [seq])
    while let text = try texts.next() {
      for change in try RowChange.decodeJSON(text) where timeline.includes(change.table) {
        net.add(change)
      }
    }
    return try changesRestoring(net.changes, .backward, db)
  }

  /// Throws unless the state right after `seq` can be rebuilt.
  func checkSeq(_ seq: Int64) throws {
    if seq < baseSeq, seq >= 0, seq <= lastSeq {
      throw RewindError(
        .unknownSeq, "seq \(seq) was compacted away: history starts after seq \(baseSeq)")
    }
    guard seq >= baseSeq, seq <= lastSeq else {
      throw RewindError(.unknownSeq, "there is no seq \(seq) in the log (it holds \(baseSeq) to \(lastSeq))")
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

  private func currentRow(
    table: String, key: [String: DatabaseValue], _ db: Database
  ) throws -> [String: DatabaseValue]? {
    let columns = key.keys.sorted()
    let sql = """
      SELECT * FROM \(table.quotedDatabaseIdentifier) WHERE \
      \(columns.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: " AND "))
      """
    guard let row = try Row.fetchOne(
      db.cachedStatement(sql: sql), arguments: StatementArguments(columns.map { key[$0]! }))
    else { return nil }
    return Dictionary(uniqueKeysWithValues: zip(row.columnNames, row.databaseValues))
  }

  // MARK: - Stacks

  /// The undo and redo stacks, at most `limit` steps each.
  static func stacks(_ db: Database, limit: Int = 20) throws -> HistoryStacks {
    // Walk down from the largest id: first the undone steps (the redo stack), then the undo
    // stack, so a long history is never scanned.
    var redo: [Int64] = []
    var undo: [Int64] = []
    let steps = try Row.fetchCursor(db, sql: "SELECT id, undone FROM undo_steps ORDER BY id DESC")
    while undo.count < limit, let step = try steps.next() {
      if step["undone"] as Bool { redo.append(step["id"]) } else { undo.append(step["id"]) }
    }
    func step(_ id: Int64) throws -> HistoryStep {
      let rows = try Row.fetchAll(
        db,
        sql: """
          SELECT seq, action, group_key FROM action_log
          WHERE seq BETWEEN ? AND (SELECT last_seq FROM undo_steps WHERE id = ?) AND step = ?
          ORDER BY seq
          """,
        arguments: [id, id, id])
      return HistoryStep(
        id: id, actions: rows.map { $0["action"] }, seqs: rows.map { $0["seq"] }, groupKey: rows.first?["group_key"])
    }
    return HistoryStacks(undo: try undo.map(step), redo: try redo.reversed().prefix(limit).map(step))
  }
}

/// Row changes merged per row, in the order rows were first touched: the first before and the
/// last after of each.
struct NetChanges {
  private struct RowID: Hashable {
    var table: String
    var key: [String: DatabaseValue]
  }
  private var index: [RowID: Int] = [:]
  private(set) var changes: [RowChange] = []

  mutating func add(_ change: RowChange) {
    let id = RowID(table: change.table, key: change.key)
    if let position = index[id] {
      changes[position].after = change.after
    } else {
      index[id] = changes.count
      changes.append(change)
    }
  }
}
