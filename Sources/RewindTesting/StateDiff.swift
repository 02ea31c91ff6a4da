/// A readable line diff of two values' `dump` output.
enum StateDiff {
  /// The lines of `expected` and `actual` that differ, marked `−` and `+`, with two lines of
  /// context around each change.
  static func lines<T>(expected: T, actual: T) -> String {
    var expectedDump = ""
    var actualDump = ""
    dump(expected, to: &expectedDump)
    dump(actual, to: &actualDump)
    let old = expectedDump.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let new = actualDump.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let edits = diff(old, new)
    // Keep changed lines and two lines of context around them.
    var keep = Set<Int>()
    for (index, edit) in edits.enumerated() where edit.mark != " " {
      for near in max(0, index - 2)...min(edits.count - 1, index + 2) { keep.insert(near) }
    }
    var out: [String] = []
    var last = -1
    for index in keep.sorted() {
      if last >= 0, index > last + 1 { out.append("  …") }
      out.append("\(edits[index].mark) \(edits[index].line)")
      last = index
    }
    return out.joined(separator: "\n")
  }

  /// A longest-common-subsequence diff; the dumps of test states are small.
  private static func diff(_ old: [String], _ new: [String]) -> [(mark: Character, line: String)] {
    var lengths = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
    for i in stride(from: old.count - 1, through: 0, by: -1) {
      for j in stride(from: new.count - 1, through: 0, by: -1) {
        lengths[i][j] = old[i] == new[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
      }
    }
    var edits: [(Character, String)] = []
    var i = 0
    var j = 0
    while i < old.count || j < new.count {
      if i < old.count, j < new.count, old[i] == new[j] {
        edits.append((" ", old[i]))
        i += 1
        j += 1
      } else if j < new.count, i == old.count || lengths[i][j + 1] >= lengths[i + 1][j] {
        edits.append(("+", new[j]))
        j += 1
      } else {
        edits.append(("−", old[i]))
        i += 1
      }
    }
    return edits
  }
}
