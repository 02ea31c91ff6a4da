import Foundation
import GRDB
import Testing

/// The `tasks` front end, each command a fresh process on a real file.
struct TasksCommandTests {
  let directory: TemporaryDirectory
  let runner: ProcessRunner

  init() throws {
    directory = try TemporaryDirectory()
    runner = ProcessRunner(directory: directory.url)
  }

  func database() throws -> DatabaseQueue {
    try DatabaseQueue(path: directory.path("tasks.sqlite"))
  }

  @Test func aSequenceOfProcessesPersistsEveryCommand() throws {
    let commands: [[String]] = [
      ["add", "Buy milk"], ["add", "Write report"], ["append", "2", " by Friday"],
      ["toggle", "1"], ["favorite", "2"], ["move", "2", "0"], ["select", "2"], ["edit", "on"],
      ["search", "report"], ["scroll", "40"], ["present", "settings"], ["dismiss"],
      ["present", "new-task", "--draft", "Plan trip"], ["rename", "1", "Buy oat milk"],
      ["add", "Temp"],  // adding dismisses the new-task form
      ["delete", "3"],
    ]
    for (index, command) in commands.enumerated() {
      let result = try runner.run("tasks", command)
      #expect(result.status == 0, "\(command): \(result.stderr)")
      // Each prints the committed seq (the initialize entry is seq 1) and the action's name.
      #expect(result.stdout.hasPrefix("\(index + 2) "))
    }
    let titles = try database().read { try String.fetchAll($0, sql: "SELECT title FROM tasks ORDER BY id") }
    #expect(titles == ["Buy oat milk", "Write report by Friday"])
    let actions = try database().read {
      try String.fetchAll($0, sql: "SELECT action FROM action_log ORDER BY seq")
    }
    #expect(
      actions == [
        "initialize", "add", "add", "append", "toggle", "favorite", "move", "select", "setEditing",
        "search", "scroll", "present", "dismiss", "present", "rename", "add", "delete",
      ])

    let show = try runner.tasks("show")
    #expect(show.status == 0)
    #expect(
      show.stdout == """
        Tasks: 2 (1 to do), search "report" shows 1
        > 2. [ ] Write report by Friday * =
        Edit mode: on    Scroll: 40
        Detail: #2 "Write report by Friday", to do, favorite, position 1 of 2
        Modal: none
        Last seq: 17    Undo: available    Redo: none

        """)
  }

  @Test func showChangesNothing() throws {
    try runner.tasks("add", "Buy milk")
    let before = try Data(contentsOf: directory.url.appendingPathComponent("tasks.sqlite"))
    let logBefore = try database().read { try Int.fetchOne($0, sql: "SELECT count(*) FROM action_log") }
    #expect(try runner.tasks("show").status == 0)
    let logAfter = try database().read { try Int.fetchOne($0, sql: "SELECT count(*) FROM action_log") }
    #expect(logBefore == logAfter)
    #expect(try Data(contentsOf: directory.url.appendingPathComponent("tasks.sqlite")) == before)
  }

  @Test func aFileThatIsNotSQLiteIsRefusedAndLeftAsItWas() throws {
    let path = directory.path("notes.txt")
    try "Shopping: milk, eggs.\n".write(toFile: path, atomically: true, encoding: .utf8)
    let result = try runner.tasks("--db", "notes.txt", "show")
    #expect(result.status != 0)
    #expect(result.stderr.contains("notes.txt is not an SQLite database"))
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "Shopping: milk, eggs.\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["notes.txt"])
  }

  @Test func anUnknownTaskIsAnErrorThatChangesNothing() throws {
    try runner.tasks("add", "Buy milk")
    let count = { try self.database().read { try Int.fetchOne($0, sql: "SELECT count(*) FROM action_log") } }
    let before = try count()
    for command in [
      ["rename", "9", "x"], ["delete", "9"], ["select", "9"], ["select", "first"], ["move", "1", "-1"],
    ] {
      let result = try runner.run("tasks", command)
      #expect(result.status != 0, "\(command)")
      #expect(!result.stderr.isEmpty)
    }
    #expect(try runner.tasks("delete", "9").stderr.contains("No task with id 9"))
    #expect(try count() == before)
  }

  @Test func shellPrintsOneLinePerCommandStartingWithTheCommittedSeq() throws {
    let result = try runner.tasks(
      "shell",
      input: """
        add "Buy milk"
        add 'Write report'
        # a comment

        rename 7 nope
        select 2
        frobnicate
        show
        """)
    #expect(result.status == 1, "\(result.stderr)")  // two commands failed
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 7)
    #expect(lines[0] == "2 add")
    #expect(lines[1] == "3 add")
    #expect(lines[2].hasPrefix("error: ") && lines[2].contains("No task with id 7"))
    #expect(lines[3] == "4 select")
    #expect(lines[4].hasPrefix("error: "))
    #expect(lines[5].hasPrefix("4 show | Tasks: 2 (2 to do) | "))
    #expect(lines[5].contains("> 2. [ ] Write report"))
    #expect(lines[6] == "4 end")
    let titles = try database().read { try String.fetchAll($0, sql: "SELECT title FROM tasks ORDER BY id") }
    #expect(titles == ["Buy milk", "Write report"])
  }

  @Test func demoCreatesADatabaseAndCanRunAgain() throws {
    for _ in 0..<2 {
      let result = try runner.tasks("demo")
      #expect(result.status == 0, "\(result.stderr)")
      #expect(result.stdout.contains("sqlite3 demo.sqlite"))
    }
    let demo = try DatabaseQueue(path: directory.path("demo.sqlite"))
    let titles = try demo.read { try String.fetchAll($0, sql: "SELECT title FROM tasks ORDER BY id") }
    #expect(titles == ["Buy milk", "Write report by Friday", "Call Alice"])
    let count = try demo.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM action_log") }
    #expect(count == 12)  // initialize + the 11 scripted commands, once: the rerun replaced the file
  }

  @Test func demoRefusesToReplaceAFileThatIsNotADemoDatabase() throws {
    let path = directory.path("precious.txt")
    try "keep me".write(toFile: path, atomically: true, encoding: .utf8)
    let result = try runner.tasks("--db", "precious.txt", "demo")
    #expect(result.status != 0)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")
  }

  @Test func rewindPrintsItsHelp() throws {
    let result = try runner.run("rewind", ["--help"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("Inspect, rewind and restore Rewind databases"))
  }
}
