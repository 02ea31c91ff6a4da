import Foundation
import GRDB
import Testing

/// Files changed behind the engine's back, and arguments out of range: every command of both
/// tools either works or fails with a clear error on stderr; none crashes (issue 10).
@Suite(.serialized)
struct TamperedFileTests {
  let directory: TemporaryDirectory
  let runner: ProcessRunner
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    runner = ProcessRunner(directory: directory.url)
    path = directory.path("tasks.sqlite")
  }

  /// A small history with an undone step, a labelled snapshot and a selection.
  func makeDatabase() throws {
    let lines = ["add A", "add B", "add C", "rename 2 Bee", "select 2", "favorite 1", "delete 3", "undo"]
    #expect(try runner.tasks("--db", path, "shell", input: lines.joined(separator: "\n")).status == 0)
    #expect(try runner.run("rewind", ["snapshot", path, "--label", "s"]).status == 0)
  }

  /// Changes the file as the `sqlite3` shell would: no foreign key checks, and (to reach what
  /// a damaged disk could) no CHECK constraints either.
  func tamper(_ sql: String) throws {
    var configuration = Configuration()
    configuration.foreignKeysEnabled = false
    try DatabaseQueue(path: path, configuration: configuration).writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
      try db.execute(sql: sql)
    }
  }

  static let commands: [(String, [String])] = [
    ("tasks", ["show"]), ("tasks", ["history"]), ("tasks", ["undo"]), ("tasks", ["redo"]),
    ("tasks", ["jump", "2"]), ("tasks", ["add", "D"]), ("tasks", ["move", "2", "0"]),
    ("rewind", ["inspect"]), ("rewind", ["log"]), ("rewind", ["log", "--json"]), ("rewind", ["verify"]),
    ("rewind", ["snapshots"]), ("rewind", ["export", "--at", "3"]), ("rewind", ["undo"]),
    ("rewind", ["restore", "--to", "2"]), ("rewind", ["restore", "--snapshot", "s"]),
    ("rewind", ["compact", "--keep", "0"]),
  ]

  /// Runs every command of both tools on a fresh copy of the tampered file; none may crash.
  func expectNoCrash(after sql: String) throws {
    for (tool, arguments) in Self.commands {
      try? FileManager.default.removeItem(atPath: path)
      try? FileManager.default.removeItem(atPath: path + "-wal")
      try? FileManager.default.removeItem(atPath: path + "-shm")
      try makeDatabase()
      try tamper(sql)
      let full = tool == "tasks" ? ["--db", path] + arguments : [arguments[0], path] + arguments.dropFirst()
      let result = try runner.run(tool, full)
      #expect(!result.crashed, "\(sql): \(tool) \(full.joined(separator: " ")) crashed: \(result.stderr)")
      if result.status != 0 {
        #expect(!result.stderr.isEmpty, "\(sql): \(tool) \(arguments) failed without saying why")
      }
    }
  }

  @Test(arguments: [
    "UPDATE action_log SET step = 'x' WHERE step IS NOT NULL",
    "UPDATE action_log SET seq = seq + 100 WHERE seq = 3",
    "UPDATE action_log SET kind = 7 WHERE seq = 2",
    "UPDATE action_log SET group_key = 5",
    "UPDATE snapshots SET seq = 'x'",
    "UPDATE snapshots SET rows = '[1,2]'",
    "UPDATE rewind_lists SET entity_table = 1",
    "UPDATE rewind_lists SET entity_table = 'nope'",
    "UPDATE rewind_entity_tables SET key_column = 5",
    "UPDATE undo_steps SET undone = 'x'",
    "UPDATE undo_steps SET last_seq = 'abc', applied_from = 'q'",
    "UPDATE rewind_meta SET value = 'x' WHERE key = 'base_seq'",
    "UPDATE list_entries SET position = 5",
    "UPDATE list_entries SET position = 'a0'",
    "UPDATE view_state SET value = '\"x\"' WHERE path = 'selection'",
    "UPDATE view_state SET path = 7 WHERE path = 'selection'",
    "UPDATE tasks SET done = 'maybe'",
    // Found by review: values at the ends of Int64 overflowed seq, id and compaction arithmetic.
    "UPDATE rewind_meta SET value = 9223372036854775807 WHERE key = 'base_seq'",
    "UPDATE rewind_meta SET value = -5 WHERE key = 'base_seq'",
    "INSERT INTO action_log (seq, action, payload, changes) VALUES (9223372036854775807, 'x', '{}', '[]')",
    "UPDATE undo_steps SET applied_from = -9223372036854775808",
    "UPDATE snapshots SET seq = -9223372036854775808",
    "UPDATE tasks SET id = 9223372036854775807 WHERE id = 2",
  ])
  func aTamperedValueIsAnErrorNotACrash(sql: String) throws {
    try expectNoCrash(after: sql)
  }

  @Test func twoEntriesAtOnePositionCanStillBeMoved() throws {
    try makeDatabase()
    try tamper("UPDATE list_entries SET position = 'a0' WHERE list = 'allTasks'")
    // Moving 1 to offset 1 needs a key between 2's and 3's, which are equal: 0.1 trapped here.
    for arguments in [["move", "1", "1"], ["move", "2", "0"], ["add", "E"], ["show"]] {
      let result = try runner.run("tasks", ["--db", path] + arguments)
      #expect(!result.crashed && result.status == 0, "\(arguments): \(result.stderr)")
    }
    // The file still differs from its log where it was edited, and verify says where.
    let verify = try runner.run("rewind", ["verify", path])
    #expect(!verify.crashed && verify.status != 0 && verify.stdout.contains("list_entries"))
  }

  @Test func outOfRangeArgumentsAreRefusedOrShown() throws {
    try makeDatabase()
    let scroll = try runner.run("tasks", ["--db", path, "scroll", "1e19"])
    #expect(!scroll.crashed && scroll.status == 0, "\(scroll.stderr)")
    let show = try runner.run("tasks", ["--db", path, "show"])
    #expect(!show.crashed && show.status == 0, "\(show.stderr)")
    let history = try runner.run("tasks", ["--db", path, "history", "--limit=-1"])
    #expect(!history.crashed && history.status != 0 && history.stderr.contains("--limit"))
  }

  @Test func aCorruptFileIsReportedByVerify() throws {
    try makeDatabase()
    try DatabaseQueue(path: path).writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
    }
    // Scribble over the middle of the file, page-aligned so the size still looks right.
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.seek(toOffset: 4096 * 2)
    handle.write(Data(repeating: 0xA5, count: 4096))
    try handle.close()
    for (tool, arguments) in [
      ("rewind", ["verify", path]), ("rewind", ["inspect", path]), ("tasks", ["--db", path, "show"]),
    ] {
      let result = try runner.run(tool, arguments)
      #expect(!result.crashed, "\(tool) \(arguments) crashed: \(result.stderr)")
    }
    #expect(try runner.run("rewind", ["verify", path]).status != 0)
  }

  @Test func pathsThatAreNotFilesAreRefused() throws {
    for bad in [":memory:", "file::memory:", "file:tasks.sqlite?mode=memory"] {
      let result = try runner.run("tasks", ["--db", bad, "add", "lost"])
      #expect(!result.crashed && result.status != 0, "\(bad)")
      #expect(result.stderr.contains("not a file path"), "\(bad): \(result.stderr)")
    }
  }

  @Test func anExportNeverOverwritesTheDatabaseAndIsOwnerOnly() throws {
    try makeDatabase()
    let before = FileManager.default.contents(atPath: path)
    let result = try runner.run("rewind", ["export", path, "-o", path])
    #expect(result.status != 0 && result.stderr.contains("itself"))
    #expect(FileManager.default.contents(atPath: path) == before)
    #expect(try runner.run("rewind", ["export", path, "-o", "state.json"]).status == 0)
    let mode = try FileManager.default.attributesOfItem(atPath: directory.path("state.json"))[.posixPermissions] as? Int
    #expect(mode == 0o600)
  }

  @Test func anExportIntoADeviceOrThroughALinkWritesIntoIt() throws {
    try makeDatabase()
    if FileManager.default.isWritableFile(atPath: "/dev/full") {
      let full = try runner.run("rewind", ["export", path, "-o", "/dev/full"])
      #expect(full.status != 0 && full.stderr.contains("/dev/full"), "\(full.stderr)")
      let kind = try FileManager.default.attributesOfItem(atPath: "/dev/full")[.type] as? FileAttributeType
      #expect(kind == .typeCharacterSpecial)
    }
    try FileManager.default.createSymbolicLink(atPath: directory.path("link.json"), withDestinationPath: "state.json")
    #expect(try runner.run("rewind", ["export", path, "-o", "link.json"]).status == 0)
    let link = try FileManager.default.destinationOfSymbolicLink(atPath: directory.path("link.json"))
    #expect(link == "state.json")
    #expect(FileManager.default.contents(atPath: directory.path("state.json"))?.isEmpty == false)
  }

  @Test func twoProcessesCreatingOneFileAtOnceBothSucceed() throws {
    for round in 0..<6 {
      let file = directory.path("new-\(round).sqlite")
      let first = try RunningProcess("tasks", ["--db", file, "add", "first"], directory: directory.url)
      let second = try RunningProcess("tasks", ["--db", file, "add", "second"], directory: directory.url)
      let (firstExit, secondExit) = (first.wait(), second.wait())
      #expect(firstExit.status == 0 && !firstExit.crashed, "round \(round): \(first.standardError())")
      #expect(secondExit.status == 0 && !secondExit.crashed, "round \(round): \(second.standardError())")
      let titles = try DatabaseQueue(path: file).read {
        try String.fetchAll($0, sql: "SELECT title FROM tasks ORDER BY title")
      }
      #expect(titles == ["first", "second"])
      #expect(try runner.run("rewind", ["verify", file]).status == 0)
    }
  }
}
