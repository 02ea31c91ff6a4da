import Foundation
import GRDB
import Testing

/// The `rewind` tool, each command a process on a real file written by `tasks`.
struct RewindCommandTests {
  let directory: TemporaryDirectory
  let runner: ProcessRunner
  var db: String { directory.path("tasks.sqlite") }

  init() throws {
    directory = try TemporaryDirectory()
    runner = ProcessRunner(directory: directory.url)
  }

  @discardableResult
  func rewind(_ arguments: String...) throws -> String {
    let result = try runner.run("rewind", arguments)
    #expect(result.status == 0, "rewind \(arguments): \(result.stderr)")
    return result.stdout
  }

  func rewindFails(_ arguments: String...) throws -> String {
    let result = try runner.run("rewind", arguments)
    #expect(result.status != 0, "rewind \(arguments) should fail")
    return result.stderr
  }

  /// Every row of every table, the log included: equal dumps mean nothing changed.
  func everything() throws -> [String] {
    try DatabaseQueue(path: db).read { db in
      try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").flatMap {
        table in
        try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)").map { "\(table) \($0)" }
      }
    }
  }

  /// A dozen `tasks` commands; returns the export taken right after each one, by seq.
  func history() throws -> [Int: String] {
    let commands: [[String]] = [
      ["add", "Buy milk"], ["add", "Write report"], ["add", "Call Alice"], ["toggle", "1"],
      ["favorite", "2"], ["move", "3", "0"], ["select", "2"], ["append", "2", " today"],
      ["edit", "on"], ["present", "new-task", "--draft", "Trip"], ["delete", "1"], ["undo"],
    ]
    var exports: [Int: String] = [:]
    for command in commands {
      let result = try runner.run("tasks", ["--db", "tasks.sqlite"] + command)
      #expect(result.status == 0, "\(command): \(result.stderr)")
      exports[Int(result.stdout.split(separator: " ")[0])!] = try rewind("export", "tasks.sqlite")
    }
    return exports
  }

  @Test func restoreThenExportReproducesTheExportTakenAtEverySeq() throws {
    let exports = try history()
    #expect(exports.count == 12)
    for (seq, export) in exports.sorted(by: { $0.key < $1.key }) {
      #expect(try rewind("export", "tasks.sqlite", "--at", "\(seq)") == export, "export --at \(seq)")
      #expect(try rewind("restore", "tasks.sqlite", "--to", "\(seq)").hasSuffix(" restore\n"))
      #expect(try rewind("export", "tasks.sqlite") == export, "restore --to \(seq)")
    }
    // Written to a file, the bytes are the same as on stdout.
    try rewind("export", "tasks.sqlite", "--at", "5", "-o", "at5.json")
    #expect(try String(contentsOfFile: directory.path("at5.json"), encoding: .utf8) == exports[5])
    #expect(try rewind("verify", "tasks.sqlite").contains("is healthy"))
  }

  /// `--timeline document` takes entities and lists back and keeps the view state; `view` the
  /// other way round.
  @Test func restoreOnOneTimelineTakesThatPartBack() throws {
    let exports = try history()
    func parts(_ export: String) throws -> [String: NSDictionary] {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(export.utf8)) as? [String: Any])
      var parts: [String: NSDictionary] = [:]
      for part in ["entities", "lists", "view"] { parts[part] = try #require(object[part] as? NSDictionary) }
      return parts
    }
    let past = try parts(try #require(exports[5]))
    let now = try parts(try rewind("export", "tasks.sqlite"))
    #expect(past["entities"] != now["entities"] && past["view"] != now["view"])
    #expect(try rewind("restore", "tasks.sqlite", "--to", "5", "--timeline", "document").hasSuffix(" restore\n"))
    let document = try parts(try rewind("export", "tasks.sqlite"))
    #expect(document["entities"] == past["entities"] && document["lists"] == past["lists"])
    #expect(document["view"] == now["view"])
    try rewind("undo", "tasks.sqlite")
    #expect(try rewind("restore", "tasks.sqlite", "--to", "5", "--timeline", "view").hasSuffix(" restore\n"))
    let view = try parts(try rewind("export", "tasks.sqlite"))
    #expect(view["entities"] == now["entities"] && view["view"] == past["view"])
    #expect(
      try rewind("restore", "tasks.sqlite", "--to", "5", "--timeline", "view").contains(
        "Nothing to restore: the log shows the view state as it was right after seq 5. (That is the log's word"))
    let state = try everything()
    #expect(
      try rewindFails("restore", "tasks.sqlite", "--snapshot", "x", "--timeline", "view").contains(
        "--timeline goes with --to"))
    #expect(try rewindFails("restore", "tasks.sqlite", "--to", "5", "--timeline", "nope").contains("nope"))
    #expect(try everything() == state)
  }

  @Test func importIsUndoableAndRedoable() throws {
    let exports = try history()
    try rewind("export", "tasks.sqlite", "--at", "4", "-o", "early.json")
    let before = try rewind("export", "tasks.sqlite")
    #expect(try rewind("import", "tasks.sqlite", "early.json").hasSuffix(" import\n"))
    #expect(try rewind("export", "tasks.sqlite") == exports[4])
    try rewind("undo", "tasks.sqlite")
    #expect(try rewind("export", "tasks.sqlite") == before)
    try rewind("redo", "tasks.sqlite")
    #expect(try rewind("export", "tasks.sqlite") == exports[4])
    // The app opens the imported state exactly.
    let show = try runner.tasks("--db", "tasks.sqlite", "show")
    #expect(show.stdout.contains("Tasks: 3 (3 to do)"))
  }

  @Test func restoreSnapshotBringsBackALabelledSnapshot() throws {
    _ = try history()
    #expect(try rewind("snapshot", "tasks.sqlite", "--label", "checkpoint").contains("at seq 13"))
    let atSnapshot = try rewind("export", "tasks.sqlite")
    try runner.tasks("--db", "tasks.sqlite", "add", "Later")
    try runner.tasks("--db", "tasks.sqlite", "delete", "2")
    #expect(try rewind("export", "tasks.sqlite") != atSnapshot)
    #expect(try rewind("snapshots", "tasks.sqlite").contains("\"checkpoint\"  seq 13  manual"))
    try rewind("restore", "tasks.sqlite", "--snapshot", "checkpoint")
    #expect(try rewind("export", "tasks.sqlite") == atSnapshot)
    #expect(try rewind("verify", "tasks.sqlite").contains("snapshot \"checkpoint\" at seq 13 matches the log"))
  }

  @Test func badRequestsAreRefusedAndChangeNothing() throws {
    _ = try history()
    try rewind("snapshot", "tasks.sqlite", "--label", "taken")
    let state = try everything()
    let cases: [([String], String)] = [
      (["restore", "tasks.sqlite", "--to", "999"], "there is no seq 999 in the log"),
      (["export", "tasks.sqlite", "--at=-3"], "there is no seq -3 in the log"),
      (["restore", "tasks.sqlite", "--snapshot", "nope"], "there is no snapshot labelled nope"),
      // Control characters echoed from the command line are shown escaped, not raw.
      (["restore", "tasks.sqlite", "--snapshot", "a\tb\u{1}c\u{1B}[2J"], #"labelled a\u{9}b\u{1}c\u{1B}[2J"#),
      (["und\u{1B}[2Jo", "tasks.sqlite"], #"Unknown command 'und\u{1B}[2Jo'"#),
      (["snapshot", "tasks.sqlite", "--label", "taken"], "a snapshot labelled taken already exists"),
      (["inspect", "missing.sqlite"], "missing.sqlite does not exist"),
    ]
    for (arguments, message) in cases {
      let result = try runner.run("rewind", arguments)
      #expect(result.status != 0, "\(arguments)")
      #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
      #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
      #expect(!result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(arguments)")
    }
    let imports: [(String, String)] = [
      ("{\"format\": \"rewind-export\"", "is not valid JSON"),
      (#"{"format":"other","version":1,"entities":{},"lists":{},"view":{}}"#, #"format is "other""#),
      (
        #"{"format":"rewind-export","version":1,"entities":{"tasks":[{"id":1,"title":"a","done":0},{"id":1,"title":"b","done":0}]},"lists":{},"view":{}}"#,
        "tasks has two rows with id 1"
      ),
      (
        #"{"format":"rewind-export","version":1,"entities":{"tasks":[{"id":1,"title":"a","done":0}]},"lists":{"allTasks":[1,7]},"view":{}}"#,
        "order list allTasks names id 7, which is not in tasks"
      ),
      (
        #"{"format":"rewind-export","version":1,"entities":{"tasks":[{"id":1,"title":"a","done":0,"evil":1}]},"lists":{},"view":{}}"#,
        "has column evil"
      ),
      (
        #"{"format":"rewind-export","version":1,"entities":{"tasks":[{"id":1,"title":null,"done":0}]},"lists":{},"view":{}}"#,
        "NOT NULL constraint failed: tasks.title"
      ),
      (
        #"{"format":"rewind-export","version":1,"entities":{"notes":[]},"lists":{},"view":{}}"#,
        "the file is an export of another app: its entity tables (notes) are none of this database's"
      ),
      (
        #"{"format":"rewind-export","version":1,"entities":{"tasks":[],"projects":[],"notes":[]},"lists":{},"view":{}}"#,
        "entity table notes does not exist"
      ),
      (#"{"format":"rewind-export","version":"1","entities":{},"lists":{},"view":{}}"#, "version"),
    ]
    for (json, message) in imports {
      try json.write(toFile: directory.path("bad.json"), atomically: true, encoding: .utf8)
      let stderr = try rewindFails("import", "tasks.sqlite", "bad.json")
      #expect(stderr.contains(message), "\(json): \(stderr)")
    }
    #expect(try everything() == state)
  }

  @Test func verifyCatchesAHandEditedTable() throws {
    _ = try history()
    #expect(
      try rewind("verify", "tasks.sqlite").contains(
        "tables: list_entries, projects, tasks, view_state match the replayed log exactly"))
    try DatabaseQueue(path: db).write { try $0.execute(sql: "UPDATE tasks SET title = 'x'") }
    let result = try runner.run("rewind", ["verify", "tasks.sqlite"])
    #expect(result.status != 0)
    #expect(
      result.stdout.contains(
        #"problem: tasks {"id":2}: the table has {"done":0,"id":2,"notes":"","projectId":null,"title":"x"}, the log says {"done":0,"id":2,"notes":"","projectId":null,"title":"Write report today"}"#
      ))
    #expect(result.stderr.contains("failed verification"))
    // A restore to the last seq walks back through no entry: it says that is the log's word,
    // not that the tables were checked (it said "the state already is" the one at that seq).
    let last = try #require(
      try DatabaseQueue(path: db).read { try Int64.fetchOne($0, sql: "SELECT max(seq) FROM action_log") })
    let state = try everything()
    let restore = try rewind("restore", "tasks.sqlite", "--to", "\(last)")
    #expect(restore.contains("the log shows the state as it was right after seq \(last)"), "\(restore)")
    #expect(restore.contains("`rewind verify` finds rows edited by hand"), "\(restore)")
    #expect(try everything() == state)
    // What puts the log's rows back, logging nothing.
    let tasks = try #require(
      try DatabaseQueue(path: db).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM tasks") })
    #expect(
      try rewind("rebuild-tables", "tasks.sqlite")
        == "Rebuilt the tables to the log's state at seq \(last): \(tasks) rows written (tasks \(tasks)).\n")
    #expect(try rewind("verify", "tasks.sqlite").contains("is healthy"))
    #expect(
      try DatabaseQueue(path: db).read { try Int64.fetchOne($0, sql: "SELECT max(seq) FROM action_log") } == last)
    #expect(try rewind("inspect", "tasks.sqlite").contains("; tables rebuilt from the log 1 time (after hand edits)"))
    #expect(
      try rewind("rebuild-tables", "tasks.sqlite")
        == "Nothing to rebuild: the tables already hold the log's state at seq \(last).\n")
  }

  @Test func verifyCatchesATamperedLog() throws {
    _ = try history()
    try DatabaseQueue(path: db).write {
      try $0.execute(sql: "UPDATE action_log SET changes = replace(changes, 'Call Alice', 'Call Bob') WHERE seq = 4")
    }
    let result = try runner.run("rewind", ["verify", "tasks.sqlite"])
    #expect(result.status != 0)
    #expect(result.stdout.contains("problem: "))
    // An entry that no longer replays: the log is no guide then, and the tables are left as
    // they are. (The edit above keeps the log consistent with itself: a rebuild would follow it.)
    try DatabaseQueue(path: db).write {
      try $0.execute(sql: "UPDATE action_log SET changes = replace(changes, 'Buy milk', 'Buy tea') WHERE seq = 2")
    }
    let state = try everything()
    let refusal = try rewindFails("rebuild-tables", "tasks.sqlite")
    #expect(refusal.contains("refusing to rebuild the tables from the log: verify finds"), "\(refusal)")
    #expect(refusal.contains("restore the file from a backup"), "\(refusal)")
    #expect(try everything() == state)
  }

  @Test func compactSaysWhenRedoKeepsMoreThanAsked() throws {
    _ = try history()
    // The last command undid the delete: its step stays, whatever --keep says.
    let report = try rewind("compact", "tasks.sqlite", "--keep", "1")
    #expect(report.contains("kept 2 entries, not 1: redo still needs the steps undone from seq 12 on"), "\(report)")
    #expect(try rewind("redo", "tasks.sqlite") == "15 redo: reapplied delete (seq 12)\n")
  }

  @Test func compactKeepsWhatItKeepsWorking() throws {
    let exports = try history()
    let report = try rewind("compact", "tasks.sqlite", "--keep", "4")
    #expect(report.contains("Folded 9 entries into a base snapshot at seq 9; kept 4 entries after it;"))
    #expect(try rewind("verify", "tasks.sqlite").contains("is healthy"))
    #expect(try rewind("inspect", "tasks.sqlite").contains("starts after seq 9 (compacted)"))
    // Kept seqs still restore exactly; compacted ones are refused clearly.
    #expect(try rewind("export", "tasks.sqlite", "--at", "9") == exports[9])
    #expect(try rewindFails("restore", "tasks.sqlite", "--to", "5").contains("seq 5 was compacted away"))
    // Undo and redo still work on the kept steps: redo the delete, then restore before it and
    // undo the restore.
    // Compaction is entry 14 of the log; seqs go on after it.
    #expect(try rewind("redo", "tasks.sqlite") == "15 redo: reapplied delete (seq 12)\n")
    let afterRedo = try rewind("export", "tasks.sqlite")
    try rewind("restore", "tasks.sqlite", "--to", "10")
    #expect(try rewind("export", "tasks.sqlite") == exports[10])
    try rewind("undo", "tasks.sqlite")
    #expect(try rewind("export", "tasks.sqlite") == afterRedo)
    #expect(try rewind("verify", "tasks.sqlite").contains("is healthy"))
  }

  @Test func compactRefusesADamagedFile() throws {
    _ = try history()
    try DatabaseQueue(path: db).write { try $0.execute(sql: "UPDATE tasks SET title = 'x' WHERE id = 2") }
    let state = try everything()
    #expect(
      try rewindFails("compact", "tasks.sqlite", "--keep", "2").contains("refusing to compact: verify finds 1 problem"))
    #expect(try everything() == state)
  }

  @Test func logAndInspectDescribeTheFile() throws {
    _ = try history()
    let lines = try rewind("log", "tasks.sqlite", "--json").split(separator: "\n")
    #expect(lines.count == 13)
    for line in lines {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      #expect(object?["seq"] != nil && object?["changes"] is [Any])
    }
    let last = try rewind("log", "tasks.sqlite", "--last", "2")
    #expect(last.split(separator: "\n").count == 2)
    #expect(last.contains("delete  list_entries -1, tasks -1"))
    #expect(last.contains("undo [undo]  list_entries +1, tasks +1"))
    #expect(try rewind("log", "tasks.sqlite", "--from", "12").split(separator: "\n").count == 2)
    // A seq past the end is an error, as for export, not an empty list.
    #expect(try rewindFails("log", "tasks.sqlite", "--from", "999").contains("there is no seq 999 in the log"))
    let inspect = try rewind("inspect", "tasks.sqlite")
    #expect(
      inspect.contains("Schema: version 11") && inspect.contains("App schema: version 3 (2-task-notes, 3-projects)"))
    #expect(inspect.contains("tasks: 3 rows"))
    #expect(inspect.contains("allTasks (ids of tasks): 3 ids"))
    #expect(inspect.contains("selection = 2"))
    #expect(inspect.contains("last seq 13"))
    #expect(inspect.contains("(can redo)"))
  }

  @Test func everyCommandHasHelp() throws {
    let root = try rewind("--help")
    for command in [
      "inspect", "log", "undo", "redo", "snapshot", "snapshots", "restore", "export", "import", "verify", "compact",
      "backup", "ui",
    ] {
      #expect(root.contains("  \(command) "), "\(command) in rewind --help")
      #expect(try rewind(command, "--help").contains("USAGE: rewind \(command) <database>"))
    }
  }
}
