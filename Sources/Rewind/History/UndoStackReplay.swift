import GRDB

/// The undo and redo stacks as the log says they are: replayed from the entries' `step`
/// columns and the steps their `undo` and `redo` entries name, for ``RewindDatabase/verify(progress:)``
/// to compare with the `undo_steps` table.
///
/// The rules are the ones ``HistoryLog`` writes by: an entry that takes part in undo (other than
/// a `repair`, which joins the step before it) first drops the redo stack (every undone step);
/// then it starts the step named by its own seq, or joins an earlier one, which becomes the
/// step's last entry. An `undo` marks its step undone, a `redo` marks it done again, and each
/// is the step's latest application, with a `repair` right after it. Compaction drops only
/// steps at or before the base, which the replay does not hold.
///
/// Steps are started in the order of their ids and dropped from the top, so the replay is a
/// stack: 17 bytes a step (and the key of a grouped one), searched by halves.
struct UndoStackReplay {
  /// The steps after the base, by increasing id.
  private var ids: [Int64] = []
  private var lastSeqs: [Int64] = []
  private var undone: [Bool] = []
  private var groupKeys: [Int64: String] = [:]  // by id: few steps are grouped
  /// The latest application of each step an undo or redo moved: that entry, and the repair
  /// right after it (`applied_from`, `applied_to`), by id.
  private var applications: [Int64: (from: Int64, to: Int64)] = [:]
  /// The step the previous entry moved, if it was an undo or a redo.
  private var lastMove: (step: Int64, seq: Int64)?
  private var undoneCount = 0
  private let baseSeq: Int64

  /// What the log itself gets wrong, found while replaying (at most 10).
  private(set) var problems: [String] = []

  init(baseSeq: Int64) {
    self.baseSeq = baseSeq
  }

  /// Replays entry `seq` of kind `kind`, in step `step` (its `step` column) with `groupKey`, or,
  /// for an `undo` or `redo` entry, moving step `moved` (from its payload: an integer, or the
  /// entry is reported).
  mutating func apply(seq: Int64, kind: String, step: Int64?, groupKey: String?, moved: DatabaseValue) {
    let previousMove = lastMove
    lastMove = nil
    // A repair right after an undo or redo is part of that move's application.
    if kind == LogEntry.Kind.repair.rawValue, let previousMove, previousMove.seq == seq - 1,
      applications[previousMove.step]?.to == seq - 1
    {
      applications[previousMove.step]?.to = seq
    }
    if kind == LogEntry.Kind.undo.rawValue || kind == LogEntry.Kind.redo.rawValue {
      guard case .int64(let moved) = moved.storage else {
        report("action_log seq \(seq) (\(kind)) names no step in its payload")
        return
      }
      guard moved > baseSeq else { return }
      guard let index = index(of: moved) else {
        report("action_log seq \(seq) (\(kind)) moves undo step \(moved), which no earlier entry started")
        return
      }
      let isUndo = kind == LogEntry.Kind.undo.rawValue
      // Undo takes the top of the undo stack; redo, the step undone last (the lowest undone).
      let expected = isUndo ? undone.lastIndex(of: false) : undone.firstIndex(of: true)
      if expected != index {
        report(
          "action_log seq \(seq) (\(kind)) moves undo step \(moved), where the \(isUndo ? "undo" : "redo") stack's top is \(expected.map { "step \(ids[$0])" } ?? "empty")"
        )
      }
      if undone[index] != isUndo { undoneCount += isUndo ? 1 : -1 }
      undone[index] = isUndo
      applications[moved] = (seq, seq)
      lastMove = (moved, seq)
      return
    }
    guard let step else { return }
    if kind != LogEntry.Kind.repair.rawValue, undoneCount > 0 { dropRedoStack() }
    guard step > baseSeq else { return }  // a group that began before the base: its step is folded
    if step == seq, kind != LogEntry.Kind.repair.rawValue {
      guard ids.last.map({ $0 < step }) ?? true else {
        report("action_log seq \(seq) starts undo step \(step) below step \(ids.last!)")
        return
      }
      ids.append(step)
      lastSeqs.append(seq)
      undone.append(false)
      if let groupKey { groupKeys[step] = groupKey }
    } else if let index = index(of: step) {
      lastSeqs[index] = seq
    } else {
      report("action_log seq \(seq) (\(kind)) joins undo step \(step), which no earlier entry started")
    }
  }

  /// The differences between the replayed stacks and the `undo_steps` rows after the base (at
  /// most 10 lines), read in id order beside the replay.
  func differences(from db: Database) throws -> [String] {
    var found: [String] = []
    let rows = try Row.fetchCursor(
      db,
      sql: """
        SELECT id, last_seq, undone, group_key, applied_from, applied_to FROM undo_steps WHERE id > ? ORDER BY id
        """,
      arguments: [baseSeq])
    let table = EngineTable.undoSteps.name
    var index = 0
    func missing(upTo id: Int64?) {
      while index < ids.count, id.map({ ids[index] < $0 }) ?? true {
        found.append(
          "undo_steps: step \(ids[index]) (seq \(ids[index]) to \(lastSeqs[index])) is missing, so undo would skip it")
        index += 1
      }
    }
    while found.count < 10, let row = try rows.next() {
      let id: Int64 = try row.checked("id", in: table)
      let lastSeq: Int64 = try row.checked("last_seq", in: table)
      let isUndone: Bool = try row.checked("undone", in: table)
      let groupKey: String? = try row.checked("group_key", in: table)
      missing(upTo: id)
      guard index < ids.count, ids[index] == id else {
        found.append("undo_steps: step \(id) is in the table, but no entry of action_log starts it")
        continue
      }
      if lastSeq != lastSeqs[index] {
        found.append("undo_steps: step \(id) ends at seq \(lastSeq), but its last entry is seq \(lastSeqs[index])")
      }
      if isUndone != undone[index] {
        found.append(
          "undo_steps: step \(id) is marked \(isUndone ? "undone" : "done"), but the log \(undone[index] ? "undid it last" : "did not undo it, or redid it last")"
        )
      }
      // NULL: a step no undo or redo moved, or one moved before engine schema 4 recorded it.
      if let from: Int64 = try row.checked("applied_from", in: table),
        let to: Int64 = try row.checked("applied_to", in: table),
        applications[id].map({ $0 != (from, to) }) ?? true
      {
        found.append(
          "undo_steps: step \(id) says its latest application is seq \(from) to \(to), but the log's is \(applications[id].map { "seq \($0.from) to \($0.to)" } ?? "its own entries")"
        )
      }
      if groupKey != groupKeys[id] {
        found.append(
          "undo_steps: step \(id) has group key \(groupKey.map { "\"\($0)\"" } ?? "NULL"), but its first entry has \(groupKeys[id].map { "\"\($0)\"" } ?? "none")"
        )
      }
      index += 1
    }
    if found.count < 10 { missing(upTo: nil) }
    return Array(found.prefix(10))
  }

  private func index(of id: Int64) -> Int? {
    let low = ids.partitioningIndex { $0 >= id }
    return low < ids.count && ids[low] == id ? low : nil
  }

  /// An action after an undo: the undone steps can no longer be redone (the top of the stack, in
  /// a consistent log).
  private mutating func dropRedoStack() {
    while undone.last == true {
      let id = ids.removeLast()
      (groupKeys[id], applications[id]) = (nil, nil)
      lastSeqs.removeLast()
      undone.removeLast()
      undoneCount -= 1
    }
    guard undoneCount > 0 else { return }
    report("action_log: an undone step lies below one that is not, which undo and redo never leave")
    let kept = undone.indices.filter { !undone[$0] }
    for index in undone.indices where undone[index] { (groupKeys[ids[index]], applications[ids[index]]) = (nil, nil) }
    (ids, lastSeqs, undone, undoneCount) = (kept.map { ids[$0] }, kept.map { lastSeqs[$0] }, kept.map { _ in false }, 0)
  }

  private mutating func report(_ problem: String) {
    if problems.count < 10 { problems.append(problem) }
  }
}
