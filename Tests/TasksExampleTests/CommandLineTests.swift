import Foundation
import GRDB
import Rewind
import Testing

/// The two tools' command lines: placeholders, ranges, option groups, versions, suggestions,
/// and the `tasks shell` session, each through the real processes.
struct CommandLineTests {
  let directory: TemporaryDirectory
  let runner: ProcessRunner

  init() throws {
    directory = try TemporaryDirectory()
    runner = ProcessRunner(directory: directory.url)
  }

  /// A database with three tasks (seqs 1-4).
  func makeTasks() throws {
    for title in ["Buy milk", "Write report", "Call Alice"] {
      #expect(try runner.tasks("add", title).status == 0)
    }
  }

  /// Runs a command that must be refused with `message` on stderr, a usage exit code, and no
  /// change to the file.
  func expectRefusal(_ executable: String, _ arguments: [String], saying message: String) throws {
    let before = try? Data(contentsOf: directory.url.appendingPathComponent("tasks.sqlite"))
    let result = try runner.run(executable, arguments)
    #expect(!result.crashed)
    #expect(result.status != 0, "\(arguments) should fail")
    #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
    #expect(!result.stderr.contains("Missing expected argument"), "\(arguments): \(result.stderr)")
    #expect(result.stdout.isEmpty)
    #expect((try? Data(contentsOf: directory.url.appendingPathComponent("tasks.sqlite"))) == before)
  }

  @Test func negativeAndOutOfRangeNumbersAreRefusedWithTheValidRange() throws {
    try makeTasks()
    try expectRefusal(
      "tasks", ["move", "2", "-1"], saying: "Position -1 is out of range: the list has 3 tasks, so positions are 0...2."
    )
    try expectRefusal(
      "tasks", ["move", "2", "3"], saying: "Position 3 is out of range: the list has 3 tasks, so positions are 0...2.")
    try expectRefusal("tasks", ["toggle", "-4"], saying: "No task with id -4: the ids are 1, 2, 3.")
    try expectRefusal("tasks", ["scroll", "-5"], saying: "The offset must be a number of points, 0 or more, not -5.0.")
    try expectRefusal("tasks", ["history", "--limit", "-1"], saying: "--limit must be 0 or more, not -1.")
    try expectRefusal("tasks", ["jump", "-3"], saying: "there is no seq -3 in the log (it holds 0 to 4)")
    try expectRefusal("rewind", ["log", "tasks.sqlite", "--last", "-2"], saying: "--last must be 0 or more, not -2.")
    try expectRefusal(
      "rewind", ["log", "tasks.sqlite", "--from", "-2"], saying: "--from must be a seq, 0 or more, not -2.")
    try expectRefusal(
      "rewind", ["export", "tasks.sqlite", "--at", "-1"], saying: "there is no seq -1 in the log (it holds 0 to 4)")
    try expectRefusal(
      "rewind", ["restore", "tasks.sqlite", "--to", "-1"], saying: "there is no seq -1 in the log (it holds 0 to 4)")
    try expectRefusal(
      "rewind", ["compact", "tasks.sqlite", "--keep", "-1"], saying: "--keep must be 0 or more, not -1.")
    // A valid move still works, and a negative number is a title where a title goes.
    #expect(try runner.tasks("move", "3", "0").stdout == "5 move\n")
    #expect(try runner.tasks("rename", "1", "-5").stdout == "6 rename\n")
  }

  @Test func placeholdersNameWhatTheyTake() throws {
    let restore = try runner.run("rewind", ["restore", "--help"]).stdout
    #expect(
      restore.contains(
        "USAGE: rewind restore <database> (--to <seq> [--timeline all|document|view] | --snapshot <name>)"))
    #expect(
      restore.contains("--to <seq>") && restore.contains("--snapshot <name>")
        && restore.contains("--timeline <timeline>"))
    #expect(try runner.run("rewind", ["export", "--help"]).stdout.contains("--at <seq>"))
    #expect(try runner.run("rewind", ["log", "--help"]).stdout.contains("[--last <n>] [--from <seq>]"))
    #expect(try runner.run("rewind", ["compact", "--help"]).stdout.contains("--keep <n>"))
    #expect(try runner.run("rewind", ["snapshot", "--help"]).stdout.contains("--label <name>"))
    #expect(try runner.tasks("move", "--help").stdout.contains("USAGE: tasks move <id> <position>"))
    #expect(try runner.tasks("scroll", "--help").stdout.contains("<points>"))
    #expect(try runner.tasks("history", "--help").stdout.contains("--limit <n>"))
  }

  @Test func restoreTakesExactlyOneTarget() throws {
    try makeTasks()
    for arguments in [["restore", "tasks.sqlite"], ["restore", "tasks.sqlite", "--to", "2", "--snapshot", "x"]] {
      try expectRefusal("rewind", arguments, saying: "Give exactly one of --to <seq> and --snapshot <name>.")
    }
  }

  @Test func bothToolsPrintTheReleaseVersion() throws {
    #expect(try runner.tasks("--version").stdout == "\(rewindVersion)\n")
    #expect(try runner.run("rewind", ["--version"]).stdout == "\(rewindVersion)\n")
  }

  @Test func aMisspeltCommandGetsTheNearestOne() throws {
    try expectRefusal("tasks", ["ad", "Buy milk"], saying: "Unknown command 'ad'. Did you mean 'add'?")
    try expectRefusal(
      "tasks", ["--db", "tasks.sqlite", "histroy"], saying: "Unknown command 'histroy'. Did you mean 'history'?")
    try expectRefusal("rewind", ["lgo", "tasks.sqlite"], saying: "Unknown command 'lgo'. Did you mean 'log'?")
    try expectRefusal(
      "rewind", ["frobnicate"], saying: "Unknown command 'frobnicate'. See 'rewind --help' for the commands.")
    // Nothing was created for a command that did not run.
    #expect(!FileManager.default.fileExists(atPath: directory.path("tasks.sqlite")))
  }

  @Test func theShellTakesUnquotedTitlesHelpHistoryAndExit() throws {
    let result = try runner.tasks(
      "shell",
      input: """
        add Buy milk
        add   Write the report
        rename 1 Buy oat milk
        append 2 , by Friday
        undo
        redo
        move 2 -1
        ad x
        help
        history --limit 1
        exit
        add Never
        """)
    // Some commands failed: the status says so, their lines say which.
    #expect(result.status == 1, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 11)
    #expect(
      Array(lines.prefix(8)) == [
        "2 add", "3 add", "4 rename", "5 append",
        "6 undo: reverted append (seq 5)", "7 redo: reapplied append (seq 5)",
        "error: Position -1 is out of range: the list has 2 tasks, so positions are 0...1.",
        "error: Unknown command 'ad'. Did you mean 'add'? Type help for the commands.",
      ])
    #expect(lines[8].hasPrefix("Commands (`help <command>` for one command's arguments): |   add "))
    #expect(lines[8].contains("|   exit           Leave the shell."))
    #expect(
      lines[9]
        == "Undo stack (next first): |   step 5: append (seq 5) | Redo stack (next first): |   (empty) | Last seq: 7    Undo: available    Redo: none"
    )
    #expect(lines[10] == "7 end")  // `exit` ended the session: `add Never` did not run
    let titles = try DatabaseQueue(path: directory.path("tasks.sqlite")).read {
      try String.fetchAll($0, sql: "SELECT title FROM tasks ORDER BY id")
    }
    #expect(titles == ["Buy oat milk", "Write the report, by Friday"])
  }

  @Test func theShellTakesTheRestOfTheLineAsTyped() throws {
    let result = try runner.tasks(
      "shell",
      input: """
        add   Two  spaces  inside\u{20}\u{20}
        add -1 degree
        add Fix the -v flag
        add "  quoted "
        project add Home
        add Rake  the leaves --project 1
        help add
        """)
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(Array(lines.prefix(6)) == ["2 add", "3 add", "4 add", "5 add", "6 addProject", "7 add"])
    #expect(
      lines[6].hasPrefix(
        "OVERVIEW: Add a task at the end of the list (and of its project's list, with | --project). |  | USAGE: tasks add <title>"
      ))
    let titles = try DatabaseQueue(path: directory.path("tasks.sqlite")).read {
      try String.fetchAll($0, sql: "SELECT title || '|' || ifnull(projectId, '') FROM tasks ORDER BY id")
    }
    #expect(titles == ["Two  spaces  inside|", "-1 degree|", "Fix the -v flag|", "  quoted |", "Rake  the leaves|1"])
  }

  @Test func helpNamesACommandInBothTools() throws {
    let tasks = try runner.tasks("help", "move")
    #expect(tasks.status == 0 && tasks.stdout.contains("USAGE: tasks move <id> <position>"), "\(tasks.stderr)")
    let rewind = try runner.run("rewind", ["help", "log"])
    #expect(rewind.status == 0 && rewind.stdout.contains("USAGE: rewind log <database>"), "\(rewind.stderr)")
  }

  @Test func theShellShowsWritesOfOtherProcesses() throws {
    try makeTasks()
    let shell = try RunningProcess("tasks", ["shell"], directory: directory.url)
    _ = shell.write("show\n")
    #expect(shell.readLines(1).first?.hasPrefix("4 show | Tasks: 3 (3 to do)") == true)
    #expect(try runner.tasks("add", "From elsewhere").stdout == "5 add\n")
    _ = shell.write("show\n")
    let after = shell.readLines(1).first ?? ""
    #expect(after.hasPrefix("5 show | Tasks: 4 (4 to do)") && after.contains("From elsewhere"), "\(after)")
    shell.closeInput()
    #expect(shell.readRemainingLines() == ["5 end"])
    shell.wait()
  }

  @Test func atATerminalTheShellHasABannerAndAPrompt() throws {
    try makeTasks()
    // `script` gives the shell a pseudo-terminal for its standard input ($0 is the binary).
    let launcher = ["/bin/sh", "-c", #"exec script -qec "$0 shell" /dev/null"#]
    let result = try runner.run("tasks", [], input: "show\nexit\n", launcher: launcher)
    let output = result.stdout.replacingOccurrences(of: "\r\n", with: "\n")
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      output.contains(
        "Rewind tasks shell on tasks.sqlite, at seq 4. Type help for the commands, exit to leave.\ntasks> "))
    // At a terminal, `show` prints the screen as it is, one line per line.
    #expect(output.contains("tasks> 4 show\nTasks: 3 (3 to do)\n"))
    #expect(output.hasSuffix("tasks> 4 end\n"))
  }
}
