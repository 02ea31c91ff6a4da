import Foundation
import GRDB
import Testing

/// Damaged, foreign and hostile input: each gets a clear error, leaves the file as it was, and
/// crashes nothing.
struct BadInputTests {
  let directory: TemporaryDirectory
  let runner: ProcessRunner
  var path: String { directory.path("tasks.sqlite") }

  init() throws {
    directory = try TemporaryDirectory()
    runner = ProcessRunner(directory: directory.url)
  }

  /// A database with `count` tasks and their history, closed (its WAL folded into the file).
  func makeDatabase(tasks count: Int = 60) throws {
    let lines =
      (0..<count).map { "add \"Task \($0) \(String(repeating: "x", count: 200))\"" } + ["select 1", "toggle 2"]
    let result = try runner.tasks("--db", path, "shell", input: lines.joined(separator: "\n"))
    #expect(result.status == 0)
  }

  func bytes() -> Data? { FileManager.default.contents(atPath: path) }

  /// Runs a command that must fail cleanly: non-zero exit, no crash, one clear line.
  @discardableResult
  func expectRefusal(_ executable: String, _ arguments: [String], mentioning words: String, launcher: [String] = [])
    throws -> ProcessRunner.Result
  {
    let result = try runner.run(executable, arguments, launcher: launcher)
    #expect(!result.crashed, "\(executable) \(arguments) crashed: \(result.stderr)")
    #expect(result.status != 0, "\(executable) \(arguments) should fail")
    #expect(result.stderr.contains(words), "\(executable) \(arguments): \(result.stderr)")
    return result
  }

  @Test func aTruncatedDatabaseIsRefusedWithoutCrashingOrChangingIt() throws {
    try makeDatabase()
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    let size = try handle.seekToEnd()
    try handle.truncate(atOffset: size / 2)
    try handle.close()
    let before = bytes()
    try expectRefusal("tasks", ["--db", path, "show"], mentioning: "is damaged")
    try expectRefusal("rewind", ["verify", path], mentioning: "is damaged")
    #expect(bytes() == before)
  }

  @Test func aCorruptedDatabaseIsRefusedWithoutCrashingOrChangingIt() throws {
    try makeDatabase()
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    try handle.seek(toOffset: 3 * 4096)
    try handle.write(contentsOf: Data(repeating: 0xA5, count: 8192))
    try handle.close()
    let before = bytes()
    for (executable, arguments) in [
      ("tasks", ["--db", path, "show"]), ("rewind", ["verify", path]), ("rewind", ["export", path]),
    ] {
      let result = try runner.run(executable, arguments)
      #expect(!result.crashed)
      #expect(result.status != 0, "\(executable) \(arguments)")
      #expect(result.stderr.contains("malformed") || result.stderr.contains("corrupt"), "\(result.stderr)")
    }
    #expect(bytes() == before)
  }

  @Test func aMissingOrAlteredEngineTableIsNamed() throws {
    try makeDatabase()
    try DatabaseQueue(path: path).write { try $0.execute(sql: "DROP TABLE view_state") }
    var before = bytes()
    try expectRefusal("tasks", ["--db", path, "show"], mentioning: "the engine table view_state is missing")
    try expectRefusal("rewind", ["inspect", path], mentioning: "the engine table view_state is missing")
    #expect(bytes() == before)

    try FileManager.default.removeItem(atPath: path)
    try makeDatabase()
    try DatabaseQueue(path: path).write { try $0.execute(sql: "ALTER TABLE action_log RENAME COLUMN changes TO stuff") }
    before = bytes()
    try expectRefusal(
      "tasks", ["--db", path, "add", "x"], mentioning: "the engine table action_log has no column changes")
    try expectRefusal("rewind", ["verify", path], mentioning: "the engine table action_log has no column changes")
    #expect(bytes() == before)
  }

  @Test func anAlteredAppTableIsAnErrorNotACrash() throws {
    try makeDatabase()
    try DatabaseQueue(path: path).write { try $0.execute(sql: "ALTER TABLE tasks DROP COLUMN done") }
    let before = bytes()
    try expectRefusal(
      "tasks", ["--db", path, "show"], mentioning: "TaskItem.databaseColumnOrder names done, which tasks does not have")
    #expect(bytes() == before)
  }

  /// A row edited into a value its entity cannot read is named by its key, so that it can be
  /// found and fixed.
  @Test func aRowThatDoesNotDecodeIsNamedByItsKey() throws {
    try makeDatabase(tasks: 5)
    // SQLite keeps NULL out of the table's columns: the edit lifts that first, as a hand edit can.
    try DatabaseQueue(path: path).writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA writable_schema = ON")
      try db.execute(sql: "UPDATE sqlite_master SET sql = replace(sql, 'NOT NULL', '') WHERE name = 'tasks'")
    }
    try DatabaseQueue(path: path).write { try $0.execute(sql: "UPDATE tasks SET notes = NULL WHERE id = 4") }
    let before = bytes()
    try expectRefusal(
      "tasks", ["--db", path, "show"],
      mentioning: #"a row of tasks does not decode as TaskItem: the row keyed {"id":4}"#)
    #expect(bytes() == before)
  }

  @Test func historyStillWorksForAnActionTheAppNoLongerKnows() throws {
    try makeDatabase(tasks: 3)
    // An entry written by an older version of the app, under a name it no longer has.
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "UPDATE action_log SET action = 'teleport', payload = '{\"teleport\":{}}' WHERE seq = 4")
    }
    #expect(try runner.run("rewind", ["verify", path]).status == 0)
    #expect(try runner.tasks("--db", path, "undo").status == 0)  // reverts the toggle (seq 6)
    #expect(try runner.tasks("--db", path, "undo").status == 0)  // reverts the teleport's add
    let titles = try DatabaseQueue(path: path).read { try String.fetchAll($0, sql: "SELECT title FROM tasks") }
    #expect(titles.count == 2)
    #expect(try runner.run("rewind", ["restore", path, "--to", "4"]).status == 0)
    #expect(try runner.run("rewind", ["verify", path]).status == 0)
    #expect(try runner.run("rewind", ["log", path]).stdout.contains("teleport"))
  }

  @Test func aLogNamingAForeignTableOrColumnIsRefused() throws {
    try makeDatabase(tasks: 3)
    try DatabaseQueue(path: path).write { db in
      try db.execute(
        sql:
          #"UPDATE action_log SET changes = replace(changes, '"table":"tasks"', '"table":"sqlite_master"') WHERE seq = 4"#
      )
    }
    let before = bytes()
    try expectRefusal(
      "rewind", ["restore", path, "--to", "3"], mentioning: "table sqlite_master is not a Rewind table")
    try expectRefusal("rewind", ["verify", path], mentioning: "failed verification")
    #expect(bytes() == before)
  }

  @Test func aReadOnlyFileOrFolderIsAClearError() throws {
    let nobody = ProcessRunner.unprivileged
    try makeDatabase(tasks: 3)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path)
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
    let before = bytes()
    // A read-only file in a read-only folder.
    let result = try runner.run("tasks", ["--db", path, "add", "x"], launcher: nobody)
    #expect(!result.crashed)
    #expect(result.status != 0)
    #expect(result.stderr.contains("readonly") || result.stderr.contains("unable to open"), "\(result.stderr)")
    // A writable file in a read-only folder: SQLite cannot create its -wal file there.
    try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: path)
    let folder = try runner.run("tasks", ["--db", path, "add", "x"], launcher: nobody)
    #expect(!folder.crashed)
    #expect(folder.status != 0)
    #expect(folder.stderr.contains("unable to open") || folder.stderr.contains("readonly"), "\(folder.stderr)")
    #expect(bytes() == before)
  }

  @Test func aFullDiskFailsTheActionAndKeepsEveryAcknowledgedOne() throws {
    try makeDatabase(tasks: 3)
    // Cap the size of any file the app writes; with SIGXFSZ ignored, writes past it fail with
    // EFBIG, which SQLite reports as a full disk.
    let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
    let launcher = ["/bin/sh", "-c", "trap '' XFSZ; exec /usr/bin/prlimit --fsize=\(size + 64 * 1024) -- \"$@\"", "sh"]
    let lines = (0..<300).map { "add \"Big \($0) \(String(repeating: "y", count: 2_000))\"" }
    let result = try runner.run(
      "tasks", ["--db", path, "shell"], input: lines.joined(separator: "\n"), launcher: launcher)
    #expect(!result.crashed, "\(result.stderr)")
    let outputs = result.stdout.split(separator: "\n").map(String.init)
    let failures = outputs.filter { $0.hasPrefix("error:") }
    #expect(!failures.isEmpty)
    #expect(
      failures.allSatisfy { $0.contains("disk is full") || $0.contains("disk I/O error") }, "\(failures.prefix(2))")
    let acknowledged = outputs.compactMap(CrashAndConcurrencyTests.ack).map(\.seq)
    // Without the cap, the file verifies and holds exactly what was acknowledged.
    let verify = try runner.run("rewind", ["verify", path])
    #expect(verify.status == 0, "\(verify.stdout)")
    let seqs = Set(try DatabaseQueue(path: path).read { try Int64.fetchAll($0, sql: "SELECT seq FROM action_log") })
    #expect(acknowledged.allSatisfy(seqs.contains))
  }

  @Test func importsWithWrongTypesAreRefusedAndLargeOnesWork() throws {
    try makeDatabase(tasks: 2)
    let wrong =
      #"{"format":"rewind-export","version":1,"entities":{"tasks":[{"id":1,"title":"a","done":"yes"}]},"lists":{},"view":{}}"#
    try wrong.write(toFile: directory.path("wrong.json"), atomically: true, encoding: .utf8)
    let before = bytes()
    try expectRefusal(
      "rewind", ["import", path, "wrong.json"], mentioning: "tasks[0].done is text, but the column holds integers")
    let number =
      #"{"format":"rewind-export","version":1,"entities":{"tasks":[{"id":1,"title":7,"done":0}]},"lists":{},"view":{}}"#
    try number.write(toFile: directory.path("number.json"), atomically: true, encoding: .utf8)
    try expectRefusal(
      "rewind", ["import", path, "number.json"], mentioning: "tasks[0].title is an integer, but the column holds text")
    #expect(bytes() == before)

    // 20,000 tasks in one import.
    let count = 20_000
    var json = #"{"format":"rewind-export","version":1,"entities":{"tasks":["#
    json += (1...count).map { #"{"done":0,"id":\#($0),"title":"Imported \#($0)"}"# }.joined(separator: ",")
    json +=
      #"]},"lists":{"allTasks":["# + (1...count).map(String.init).joined(separator: ",")
      + #"],"favorited":[]},"view":{}}"#
    try json.write(toFile: directory.path("large.json"), atomically: true, encoding: .utf8)
    let imported = try runner.run("rewind", ["import", path, "large.json"])
    #expect(imported.status == 0, "\(imported.stderr)")
    let show = try runner.tasks("--db", path, "show")
    #expect(show.stdout.hasPrefix("Tasks: 20000 (20000 to do)"))
    #expect(try runner.run("rewind", ["verify", path]).status == 0)
  }
}
