import GRDB

extension Store {
  /// Whether there is an undo step to revert.
  public var canUndo: Bool {
    registrar.access(self, keyPath: historyKeyPath)
    return repository.history.canUndo
  }

  /// Whether there is an undone step to reapply.
  public var canRedo: Bool {
    registrar.access(self, keyPath: historyKeyPath)
    return repository.history.canRedo
  }

  /// Reverts the last undo step: its whole change, view-state part included.
  ///
  /// Undo steps through actions that changed the document; actions that changed only view
  /// state (selection, scrolling, search) are skipped. Consecutive actions with the same
  /// ``LoggedAction/undoGroup`` are one step. The undo is itself a log entry; it applies the
  /// recorded row changes and does not run reducers.
  ///
  /// - Returns: the seq of the `undo` entry, or `nil` when there is nothing to undo.
  /// - Complexity: proportional to the size of the step's change, not to the history.
  @discardableResult
  public func undo() throws -> Int64? {
    try runHistoryOperation { db, history in try history.undo(db) }
  }

  /// Reapplies the last undone step.
  ///
  /// A new undoable action after an undo drops the redo stack, as document apps do; the
  /// undone entries stay in the log, where jumps can still reach them.
  ///
  /// - Returns: the seq of the `redo` entry, or `nil` when there is nothing to redo.
  @discardableResult
  public func redo() throws -> Int64? {
    try runHistoryOperation { db, history in try history.redo(db) }
  }

  /// Moves the state to what it was right after `seq`: the whole state, or the document or
  /// the view state alone.
  ///
  /// The jump is a log entry, and an undo step when it changes the document, so it can be
  /// undone. After a jump, ``PersistentState/repairViewState()`` fixes view state that points
  /// at entities that no longer exist, in a `repair` entry of the same undo step.
  ///
  /// - Returns: the seq of the `jump` entry.
  /// - Throws: ``RewindError/Code/unknownSeq`` if `seq` is not in the log.
  /// - Complexity: proportional to the changes logged after `seq`.
  @discardableResult
  public func jump(to seq: Int64, timeline: Timeline = .all) throws -> Int64 {
    let result = try runHistoryOperation { db, history in
      let changes = try history.changesJumping(to: seq, timeline: timeline, db)
      let entry = LogEntry(
        kind: .jump, action: "jump", payload: #"{"timeline":"\#(timeline.rawValue)","to":\#(seq)}"#,
        changes: changes, undo: .step(group: nil))
      return (try history.append(entry, db), changes)
    }
    return result!
  }

  /// The undo and redo stacks, at most `limit` steps each.
  public func historyStacks(limit: Int = 20) throws -> HistoryStacks {
    try repository.stacks(limit: limit)
  }

  // MARK: - Implementation

  /// Runs a history operation and the view-state repair after it in one transaction, and
  /// applies their row changes to the in-memory state; on failure, neither moves.
  private func runHistoryOperation(
    _ operation: (Database, inout HistoryLog) throws -> (seq: Int64, changes: [RowChange])?
  ) throws -> Int64? {
    var applied: [[RowChange]] = []
    do {
      let seq = try repository.write { db, history -> Int64? in
        guard let (seq, changes) = try operation(db, &history) else { return nil }
        try repository.schema.apply(changes, .forward, to: &current)
        applied.append(changes)
        if let repairs = try repairChanges() {
          applied.append(repairs)
          _ = try history.append(repairEntry(after: seq, repairs), db)
        }
        return seq
      }
      if seq != nil {
        didCommit()
        repository.takeAutomaticSnapshotIfDue(current)
      }
      return seq
    } catch {
      for changes in applied.reversed() {
        try repository.schema.apply(changes, .backward, to: &current)
      }
      throw error
    }
  }

  /// Runs the state's repair and returns the changes it made, if any.
  private func repairChanges() throws -> [RowChange]? {
    current.repairViewState()
    let changes = try repository.schema.takeChanges(from: &current)
    return changes.isEmpty ? nil : changes
  }

  private func repairEntry(after seq: Int64?, _ changes: [RowChange]) -> LogEntry {
    LogEntry(
      kind: .repair, action: "repair", payload: seq.map { #"{"after":\#($0)}"# } ?? "{}",
      changes: changes, undo: .joinLastStep)
  }

  /// Repairs dangling view state found when opening a database.
  func repair(after seq: Int64?) throws {
    guard let changes = try repairChanges() else { return }
    do {
      _ = try repository.write { db, history in try history.append(repairEntry(after: seq, changes), db) }
    } catch {
      try repository.schema.apply(changes, .backward, to: &current)
      throw error
    }
  }
}
