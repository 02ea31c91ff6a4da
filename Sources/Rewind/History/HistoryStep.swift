/// One undo step: one action, or consecutive actions that share a group key.
public struct HistoryStep: Hashable, Sendable {
  /// The step's id: the seq of its first entry.
  public var id: Int64
  /// The names of its entries' actions, in order.
  public var actions: [String]
  /// The seqs of its entries, in order.
  public var seqs: [Int64]
  /// The group key its entries share, if any.
  public var groupKey: String?
}

extension HistoryStep: CustomStringConvertible {
  /// Its actions and seqs: `add (seq 7)`, `rename + rename (seqs 8, 9)`.
  public var description: String {
    // Compaction may have folded the step's entries: an undone step's, in a file compacted
    // by a release before 0.5, or the step an `undo` or `redo` entry kept since moved.
    guard !seqs.isEmpty else { return "step \(id) (its entries were compacted)" }
    let place = seqs.count == 1 ? "seq \(seqs[0])" : "seqs \(seqs.map(String.init).joined(separator: ", "))"
    return "\(actions.joined(separator: " + ")) (\(place))"
  }
}

/// Where a database's history stands; see ``RewindDatabase/position()``.
public struct HistoryPosition: Hashable, Sendable {
  /// The seq of the last log entry.
  public var lastSeq: Int64
  /// History starts after this seq (0 unless compacted).
  public var baseSeq: Int64
  /// Whether there is a step to undo.
  public var canUndo: Bool
  /// The ids of the steps redo would reapply, the next one last.
  public var redoSteps: [Int64]
  /// How many times `rewind rebuild-tables` put the tables back to the log's state after hand
  /// edits. States read from the tables before a change of it may have held the edits.
  public var tablesRebuilt: Int64
}

/// The undo and redo stacks, as stored in the database.
public struct HistoryStacks: Hashable, Sendable {
  /// Steps undo would revert, the next one first.
  public var undo: [HistoryStep]
  /// Steps redo would reapply, the next one first.
  public var redo: [HistoryStep]
}
