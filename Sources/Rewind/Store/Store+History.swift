import GRDB

extension Store {
  /// Whether there is an undo step to revert.
  public var canUndo: Bool {
    registrar.access(self, keyPath: commitKeyPath)
    return repository.history.canUndo
  }

  /// Whether there is an undone step to reapply.
  public var canRedo: Bool {
    registrar.access(self, keyPath: commitKeyPath)
    return repository.history.canRedo
  }

  /// Reverts the last undo step: its whole change, view-state part included.
  ///
  /// Undo steps through actions that changed the document; actions that changed only view
  /// state (selection, scrolling, search) are skipped. Consecutive actions with the same
  /// ``LoggedAction/undoGroup`` are one step. The undo is itself a log entry; it applies the
  /// recorded row changes and does not run reducers.
  ///
  /// Undo works column by column against the rows as they are now, and never overwrites what
  /// the step did not write: a column changed since by another writer, a non-undoable action
  /// or the `rewind` tool keeps its value, and a row deleted since stays deleted. A row the step
  /// inserted is deleted, unless it is a view-state row that holds another value by now (a
  /// selection made since is kept); a view property with no row holds its default, so a row
  /// the step left holding the default and removed since still counts as what the step left.
  /// Redo reverts exactly what the undo did, so undo then redo returns to where it started.
  ///
  /// - Returns: the seq of the `undo` entry, or `nil` when there is nothing to undo.
  /// - Throws: ``RewindError/Code/conflict`` naming the rows, when undoing would leave an order
  ///   list entry without its entity; nothing changes then.
  /// - Complexity: proportional to the size of the step's change, not to the history.
  @discardableResult
  public func undo() throws -> Int64? {
    try runHistoryOperation("undo") { db, history in
      try history.undo(db, loadsAlike: loadsAlike).map { ($0.seq, $0.changes) }
    }
  }

  /// Reapplies the last undone step: reverts, column by column, what its undo did.
  ///
  /// A new undoable action after an undo drops the redo stack, as document apps do; the
  /// undone entries stay in the log, where jumps can still reach them.
  ///
  /// - Returns: the seq of the `redo` entry, or `nil` when there is nothing to redo.
  /// - Throws: ``RewindError/Code/conflict`` as ``undo()`` does.
  @discardableResult
  public func redo() throws -> Int64? {
    try runHistoryOperation("redo") { db, history in
      try history.redo(db, loadsAlike: loadsAlike).map { ($0.seq, $0.changes) }
    }
  }

  /// Whether a view-state row and no row, the two sides of `change`, load as the same value:
  /// the row holds its property's default. Undo and redo treat them as the same.
  private func loadsAlike(_ change: RowChange) -> Bool {
    (change.before == nil) != (change.after == nil) && repository.schema.leaveStateAsIs([change])
  }

  /// Moves the state to what it was right after `seq`: the whole state, or the document or
  /// the view state alone.
  ///
  /// The jump is a log entry, and an undo step when it changes the document, so it can be
  /// undone. After a jump, ``PersistentState/repairViewState()`` fixes view state that points
  /// at entities that no longer exist, in a `repair` entry of the same undo step.
  ///
  /// - Returns: the seq of the `jump` entry, or `nil` when the state is already what it was
  ///   right after `seq` (nothing is logged).
  /// - Throws: ``RewindError/Code/unknownSeq`` if `seq` is not in the log or was compacted
  ///   away; if a row to restore does not decode, the error, with the state and the file
  ///   unchanged.
  /// - Complexity: proportional to the changes logged after `seq`.
  @discardableResult
  public func jump(to seq: Int64, timeline: Timeline = .all) throws -> Int64? {
    try runHistoryOperation("jump to \(seq)") { db, history in
      let changes = try history.changesJumping(to: seq, timeline: timeline, db)
      // Rows that differ only where the state does not (view-state defaults written back after
      // a jump to seq 0 removed them) are no change of the state: logging them would be a step
      // between the next undo and the jump it should revert.
      guard !changes.isEmpty, !repository.schema.leaveStateAsIs(changes) else { return nil }
      let entry = LogEntry(
        kind: .jump, action: "jump", payload: #"{"timeline":"\#(timeline.rawValue)","to":\#(seq)}"#,
        changes: changes, undo: .step(group: nil))
      let (seq, cascaded) = try history.commit(entry, db)
      return (seq, changes + cascaded)
    }
  }

  /// The undo and redo stacks, at most `limit` steps each.
  public func historyStacks(limit: Int = 20) throws -> HistoryStacks {
    try repository.stacks(limit: limit)
  }

  /// The step that the `undo` or `redo` entry `seq` reverted or reapplied (what ``undo()`` and
  /// ``redo()`` return), or `nil` when `seq` is no such entry.
  ///
  /// ```swift
  /// if let seq = try store.undo(), let step = try store.step(movedBy: seq) {
  ///   print("undid \(step.actions.joined(separator: " + "))")
  /// }
  /// ```
  public func step(movedBy seq: Int64) throws -> HistoryStep? {
    try repository.step(movedBy: seq)
  }

  // MARK: - Implementation

  /// Runs a history operation and the view-state repair after it in one transaction.
  ///
  /// The operation's rows are decoded for memory before memory changes, so a row that does not
  /// decode fails the operation with memory and file untouched; a failure after that (the
  /// repair, the commit) reads the state back from the file.
  private func runHistoryOperation(
    _ name: String, _ operation: (Database, inout HistoryLog) throws -> (seq: Int64, changes: [RowChange])?
  ) throws -> Int64? {
    var touched = false
    let seq: Int64?
    do {
      seq = try write(
        { db, history -> Int64? in
          guard let (seq, changes) = try operation(db, &history) else { return nil }
          let prepared = try repository.schema.prepare(changes, .forward)
          touched = true
          prepared.apply(to: &current)
          // The repair joins a jump's step, and an undo's or redo's application.
          try repair(after: seq, db, &history)
          return seq
        },
        rollingBack: { if touched { resync() } })
    } catch {
      // SQLite's own refusals (a constraint a damaged log image breaks) are this layer's error.
      if let error = error as? RewindError { throw error }
      throw RewindError(.commitFailed, "\(name) failed; the state is as the file holds it", underlying: error)
    }
    didCommit()
    if seq != nil { repository.takeAutomaticSnapshotIfDue(rows: repository.schema.rowCount(of: current)) }
    return seq
  }

  /// Runs the state's repair and logs what it changed as a `repair` entry (in the step of the
  /// entry before it, if that entry started or joined one).
  func repair(after seq: Int64?, _ db: Database, _ history: inout HistoryLog) throws {
    repository.schema.repairViewState(of: &current)
    let changes = try repository.schema.takeChanges(from: &current)
    guard !changes.isEmpty else { return }
    _ = try history.append(
      LogEntry(
        kind: .repair, action: "repair", payload: seq.map { #"{"after":\#($0)}"# } ?? "{}",
        changes: changes, undo: .joinLastStep),
      db)
  }
}
