/// Checks that a walk of the log reads every seq of its range, in order.
///
/// Seqs are consecutive: each entry is the last plus one, and compaction removes only a prefix
/// (up to `base_seq`). A seq missing inside a range (an entry deleted by hand, or a `base_seq`
/// removed after a compaction) would leave its changes out of a jump, a restore, an export, an
/// undo or a catch-up, which would then build a state that never was, without a word: the walk
/// stops at the gap instead.
struct ContiguousSeqs {
  private let low: Int64
  private let high: Int64
  /// The seq the next entry must have; `nil` past the largest seq there can be.
  private var next: Int64?

  /// A walk of the entries after `low` through `high`.
  init(after low: Int64, through high: Int64) {
    self.low = low
    self.high = high
    next = low < .max ? low + 1 : nil  // values read from a file may be any integer
  }

  /// Takes the next entry read.
  mutating func take(_ seq: Int64) throws {
    guard let expected = next, seq == expected else { throw gap() }
    next = expected < .max ? expected + 1 : nil
  }

  /// Throws unless every seq of the range was read.
  func finish() throws {
    if let next, next <= high { throw gap() }
  }

  private func gap() -> RewindError {
    RewindError(
      .corruptData,
      "action_log has no entry at seq \(next.map(String.init) ?? "past \(Int64.max)"), which history after seq \(low) through \(high) needs: entries were removed from the log (or rewind_meta's base_seq after a compaction), so no state across the gap can be rebuilt; nothing was changed. `rewind verify` lists the damage; restore the file from a backup"
    )
  }
}
