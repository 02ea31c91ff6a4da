import Foundation
import GRDB
import Testing

/// Undo, redo, history and jumps through the `tasks` front end, each command its own process.
struct TasksHistoryCommandTests {
  let directory: TemporaryDirectory
  let runner: ProcessRunner

  init() throws {
    directory = try TemporaryDirectory()
    runner = ProcessRunner(directory: directory.url)
  }

  func titles() throws -> [String] {
    try DatabaseQueue(path: directory.path("tasks.sqlite")).read {
      try String.fetchAll($0, sql: "SELECT title FROM tasks ORDER BY id")
    }
  }

  /// The rows of the state tables, as the `sqlite3` shell would list them.
  func stateRows() throws -> [String] {
    try DatabaseQueue(path: directory.path("tasks.sqlite")).read { db in
      try ["tasks", "list_entries", "view_state"].flatMap { table in
        try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1, 2").map { "\(table) \($0)" }
      }
    }
  }

  func run(_ arguments: String...) throws -> String {
    let result = try runner.run("tasks", arguments)
    #expect(result.status == 0, "\(arguments): \(result.stderr)")
    return result.stdout
  }

  @Test func undoBringsBackADeletedTaskAndRedoDeletesItAgain() throws {
    _ = try run("add", "A")
    _ = try run("add", "B")
    _ = try run("select", "2")
    _ = try run("delete", "1")
    #expect(try titles() == ["B"])
    #expect(try run("undo") == "6 undo: reverted delete (seq 5)\n")
    #expect(try titles() == ["A", "B"])
    #expect(try run("show").contains("Undo: available    Redo: available"))
    #expect(try run("redo") == "7 redo: reapplied delete (seq 5)\n")
    #expect(try titles() == ["B"])
    #expect(try run("show").contains("> 2. [ ] B"))
  }

  @Test func jumpReproducesTheRowsHeldRightAfterEverySeq() throws {
    let commands: [[String]] = [
      ["add", "Buy milk"], ["add", "Write report"], ["add", "Call Alice"], ["toggle", "1"],
      ["favorite", "2"], ["move", "3", "0"], ["select", "2"], ["append", "2", " now"],
      ["edit", "on"], ["search", "o"], ["present", "settings"], ["delete", "1"], ["undo"],
      ["scroll", "30"],
    ]
    // Creates the database (seq 1, the initial view state) and logs nothing: the search is empty.
    #expect(try run("search", "") == "- search: no change, nothing logged\n")
    var rowsAfter: [Int: [String]] = [1: try stateRows()]
    for command in commands {
      let output = try runner.run("tasks", command)
      #expect(output.status == 0, "\(command): \(output.stderr)")
      let seq = Int(output.stdout.split(separator: " ")[0])!
      rowsAfter[seq] = try stateRows()
    }
    for seq in rowsAfter.keys.sorted() {
      #expect(try run("jump", "\(seq)").hasSuffix(" jump\n"))
      #expect(try stateRows() == rowsAfter[seq], "jump \(seq)")
    }
  }

  @Test func undoRevertsTheRenameNotTheViewActionsAfterIt() throws {
    for command in [["add", "X"], ["rename", "1", "Y"], ["select", "1"], ["search", "Y"], ["edit", "on"]] {
      _ = try runner.run("tasks", command)
    }
    _ = try run("undo")
    #expect(try titles() == ["X"])
    let show = try run("show")
    #expect(show.contains("search \"Y\""))
    #expect(show.contains("Edit mode: on"))
  }

  @Test func oneUndoRevertsConsecutiveTyping() throws {
    _ = try run("add", "X")
    _ = try run("add", "T")
    for text in ["a", "b", "c"] { _ = try run("append", "2", text) }
    #expect(try titles() == ["X", "Tabc"])
    _ = try run("undo")
    #expect(try titles() == ["X", "T"])
    #expect(try run("history").contains("step 4: append + append + append (seqs 4, 5, 6)"))
  }

  @Test func documentAndViewJumpsMoveOneTimelineEach() throws {
    _ = try run("add", "A")  // seq 2
    _ = try run("add", "B")  // seq 3
    _ = try run("select", "2")  // seq 4
    _ = try run("jump", "--document", "2")
    #expect(try titles() == ["A"])
    #expect(try run("show").contains("Detail: nothing selected"))  // repaired
    _ = try run("undo")
    #expect(try titles() == ["A", "B"])
    _ = try run("jump", "--view", "3")
    #expect(try run("show").contains("Detail: nothing selected"))
    #expect(try titles() == ["A", "B"])
  }

  @Test func historyErrorsExitNonZeroAndChangeNothing() throws {
    let nothing = try runner.tasks("undo")
    #expect(nothing.status != 0)
    #expect(nothing.stderr.contains("Nothing to undo."))
    #expect(try runner.tasks("redo").stderr.contains("Nothing to redo."))
    let unknown = try runner.tasks("jump", "42")
    #expect(unknown.status != 0)
    #expect(unknown.stderr.contains("there is no seq 42 in the log"))
    #expect(try runner.tasks("jump", "--document", "--view", "1").status != 0)
    let count = try DatabaseQueue(path: directory.path("tasks.sqlite")).read {
      try Int.fetchOne($0, sql: "SELECT count(*) FROM action_log")
    }
    #expect(count == 1)  // the initialize entry only
  }
}
