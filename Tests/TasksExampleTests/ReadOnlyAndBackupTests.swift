import Foundation
import GRDB
import Testing

/// Reading a database without write access, and copying a live one, through the real tools.
struct ReadOnlyAndBackupTests {
  let directory: TemporaryDirectory
  let runner: ProcessRunner
  var path: String { directory.path("tasks.sqlite") }

  init() throws {
    directory = try TemporaryDirectory()
    runner = ProcessRunner(directory: directory.url)
  }

  var unprivileged: [String] { ProcessRunner.unprivileged }

  func makeTasks() throws {
    for title in ["Buy milk", "Write report", "Call Alice"] {
      #expect(try runner.tasks("add", title).status == 0)
    }
  }

  func files() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
  }

  func setMode(_ mode: Int, _ path: String) throws {
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
  }

  @Test func theToolReadsAFileInAReadOnlyFolderAsAnUnprivilegedUser() throws {
    try makeTasks()
    let export = try runner.run("rewind", ["export", "tasks.sqlite"]).stdout
    // A read-only connection cannot checkpoint, so it leaves SQLite's -wal (empty) and -shm
    // files behind; remove them to read the file as it would sit in a read-only folder.
    #expect(try Data(contentsOf: URL(fileURLWithPath: path + "-wal")).isEmpty)
    try FileManager.default.removeItem(atPath: path + "-wal")
    try FileManager.default.removeItem(atPath: path + "-shm")
    try setMode(0o644, path)
    try setMode(0o555, directory.url.path)
    defer { try? setMode(0o755, directory.url.path) }
    let before = try Data(contentsOf: URL(fileURLWithPath: path))

    let verify = try runner.run("rewind", ["verify", "tasks.sqlite"], launcher: unprivileged)
    #expect(verify.status == 0, "\(verify.stderr)")
    #expect(verify.stdout.hasSuffix("tasks.sqlite is healthy.\n"))
    let inspect = try runner.run("rewind", ["inspect", "tasks.sqlite"], launcher: unprivileged)
    #expect(inspect.status == 0 && inspect.stdout.contains("last seq 4"), "\(inspect.stderr)")
    let log = try runner.run("rewind", ["log", "tasks.sqlite", "--last", "1"], launcher: unprivileged)
    #expect(log.status == 0 && log.stdout.contains("  add  "), "\(log.stderr)")
    let readOnlyExport = try runner.run("rewind", ["export", "tasks.sqlite"], launcher: unprivileged)
    #expect(readOnlyExport.stdout == export, "\(readOnlyExport.stderr)")
    #expect(
      try runner.run("rewind", ["snapshots", "tasks.sqlite"], launcher: unprivileged).stdout == "No snapshots.\n")
    // The app's read commands open read-only too.
    let show = try runner.run("tasks", ["show"], launcher: unprivileged)
    #expect(show.status == 0 && show.stdout.contains("Tasks: 3 (3 to do)"), "\(show.stderr)")
    let history = try runner.run("tasks", ["history"], launcher: unprivileged)
    #expect(history.status == 0 && history.stdout.contains("step 4: add (seq 4)"), "\(history.stderr)")

    // A write is refused, saying why.
    let undo = try runner.run("rewind", ["undo", "tasks.sqlite"], launcher: unprivileged)
    #expect(undo.status != 0 && !undo.crashed)
    #expect(
      undo.stderr.contains(
        "tasks.sqlite cannot be opened for writing: the file, its -wal or -shm file, or its folder is read-only"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    #expect(try files() == ["tasks.sqlite"])
  }

  @Test func theAppShowsAReadOnlyFileAndRefusesToChangeIt() throws {
    try makeTasks()
    try setMode(0o444, path)
    // The folder is writable (SQLite may create the -wal and -shm files there); the file is not.
    try setMode(0o777, directory.url.path)
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let show = try runner.run("tasks", ["show"], launcher: unprivileged)
    #expect(show.status == 0, "\(show.stderr)")
    #expect(show.stdout.contains("Tasks: 3 (3 to do)"))
    let history = try runner.run("tasks", ["history"], launcher: unprivileged)
    #expect(history.status == 0 && history.stdout.contains("step 4: add (seq 4)"), "\(history.stderr)")
    let add = try runner.run("tasks", ["add", "x"], launcher: unprivileged)
    #expect(add.status != 0 && !add.crashed)
    #expect(add.stderr.contains("readonly"), "\(add.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
  }

  @Test func aBackupOfALiveDatabaseHoldsEveryCommitAPlainCopyMayNot() throws {
    try makeTasks()
    // A running app: its commits sit in the -wal file, which only a checkpoint moves into the
    // main file.
    let shell = try RunningProcess("tasks", ["shell"], directory: directory.url)
    _ = shell.write("add Live one\nadd Live two\n")
    #expect(shell.readLines(2) == ["5 add", "6 add"])

    let backup = try runner.run("rewind", ["backup", "tasks.sqlite", "copy.sqlite"])
    #expect(backup.status == 0, "\(backup.stderr)")
    #expect(backup.stdout == "copy.sqlite: a verified copy of tasks.sqlite at seq 6.\n")
    let copy = directory.path("copy.sqlite")
    #expect(try FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? Int == 0o600)
    #expect(try runner.run("rewind", ["verify", "copy.sqlite"]).status == 0)
    #expect(
      try runner.run("rewind", ["export", "copy.sqlite"]).stdout
        == (try runner.run("rewind", ["export", "tasks.sqlite"]).stdout))

    // What the README warns of: the main file alone is an older state.
    let plain = directory.path("plain.sqlite")
    try FileManager.default.copyItem(atPath: path, toPath: plain)
    let plainSeq = try DatabaseQueue(path: plain).read {
      try Int64.fetchOne($0, sql: "SELECT max(seq) FROM action_log")
    }
    #expect(plainSeq != 6)

    // An existing file is never overwritten, the database itself included.
    let before = try Data(contentsOf: URL(fileURLWithPath: copy))
    let again = try runner.run("rewind", ["backup", "tasks.sqlite", "copy.sqlite"])
    #expect(again.status != 0)
    #expect(again.stderr.contains("cannot back up to copy.sqlite: it already exists (choose a new path)"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == before)
    let onItself = try runner.run("rewind", ["backup", "tasks.sqlite", "tasks.sqlite"])
    #expect(onItself.status != 0 && onItself.stderr.contains("it already exists"))

    shell.closeInput()
    #expect(shell.readRemainingLines() == ["6 end"])
    shell.wait()
  }
}
