import ArgumentParser
import Foundation
import Rewind

struct Inspect: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show the schema version, tables and row counts, order lists, view state, history position and snapshots."
  )
  @OptionGroup var database: DatabaseArgument
  func run() throws { print(try database.openForReading().inspect()) }
}

struct Log: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the action log: seq, time, kind, action, and the rows each entry changed.",
    discussion: "Changes are summarized per table: +inserted ~updated -deleted rows.")
  @OptionGroup var database: DatabaseArgument
  @Option(parsing: .unconditional, help: ArgumentHelp("Only the last N entries: 0 or more.", valueName: "n"))
  var last: Int?
  @Option(parsing: .unconditional, help: ArgumentHelp("Only entries from this seq on.", valueName: "seq"))
  var from: Int64?
  @Flag(help: "Print JSON Lines: one object per entry, with its payload and row changes.") var json = false

  func validate() throws {
    if let last, last < 0 { throw ValidationError("--last must be 0 or more, not \(last).") }
    if let from, from < 0 { throw ValidationError("--from must be a seq, 0 or more, not \(from).") }
  }

  func run() throws {
    for record in try database.openForReading().log(from: from, last: last) {
      if json {
        print(record.jsonLine)
      } else {
        let kind = record.kind == "action" ? "" : " [\(record.kind)]"
        print("\(record.seq)  \(record.time)  \(record.action)\(kind)  \(try record.changeSummary())")
      }
    }
  }
}

struct Snapshots: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "List the snapshots.")
  @OptionGroup var database: DatabaseArgument
  func run() throws {
    let snapshots = try database.openForReading().snapshots()
    if snapshots.isEmpty { print("No snapshots.") }
    for snapshot in snapshots {
      // Labels quoted, as inspect shows them: a label such as "(automatic)" is not taken for the kind.
      print(
        "\(snapshot.label.map { "\"\($0)\"" } ?? "(\(snapshot.kind))")  seq \(snapshot.seq)  \(snapshot.kind)  \(snapshot.time)"
      )
    }
  }
}

struct Export: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write the whole state (entities, order lists, view state) as JSON.",
    discussion: """
      The same state always gives the same bytes. With --at, exports the state right after \
      that seq without changing the database. `rewind import` reads the result back.
      """)
  @OptionGroup var database: DatabaseArgument
  @Option(parsing: .unconditional, help: ArgumentHelp("Export the state right after this seq.", valueName: "seq"))
  var at: Int64?
  @Option(name: .short, help: ArgumentHelp("Write to this file instead of stdout.", valueName: "file"))
  var output: String?

  func run() throws {
    let opened = try database.openForReading()
    if let output { try opened.checkExportDestination(output) }
    let json = try opened.export(at: at)
    if let output {
      try writeOwnerOnly(json, to: output)
    } else {
      try write(json, to: STDOUT_FILENO, path: "standard output")
    }
  }
}

struct Verify: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Check integrity, the schema version, and that replaying the log reproduces the tables exactly.",
    discussion: "Exits non-zero and lists each problem when anything does not match.")
  @OptionGroup var database: DatabaseArgument

  func run() throws {
    let progress = Progress(label: "replaying")
    let report = try database.openForReading().verify(progress: progress.report)
    for line in report.passed { print("ok: \(line)") }
    for line in report.problems { print("problem: \(line)") }
    if !report.isHealthy {
      throw CLIError(
        "\(database.path) failed verification with \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s")"
      )
    }
    print("\(database.path) is healthy.")
  }
}

/// Writes `text` to `path` readable by its owner only, as the database is: an export holds the
/// same data. A regular file (or a new one) is replaced atomically: a temporary file renamed
/// over it, through symbolic links. Anything else (a device, a pipe) is written into, so that
/// its errors (a full device) are reported and it is not replaced by a file.
func writeOwnerOnly(_ text: String, to path: String) throws {
  let target = try followingLinks(path)
  var info = stat()
  if stat(target, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
    let fd = open(target, O_WRONLY | O_TRUNC)
    guard fd >= 0 else { throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    try write(text, to: fd, path: path)
    return
  }
  let temporary = target + ".rewind-tmp-\(getpid())"
  let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  guard fd >= 0 else { throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))") }
  do {
    try write(text, to: fd, path: path)
  } catch {
    close(fd)
    unlink(temporary)
    throw error
  }
  close(fd)
  guard rename(temporary, target) == 0 else {
    let reason = String(cString: strerror(errno))
    unlink(temporary)
    throw CLIError("cannot write \(path): \(reason)")
  }
}

/// The path a chain of symbolic links at `path` ends at (which may not exist yet).
private func followingLinks(_ path: String) throws -> String {
  var current = path
  for _ in 0..<40 {
    guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return current }
    current =
      destination.hasPrefix("/")
      ? destination
      : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(destination).path
  }
  throw CLIError("cannot write \(path): too many levels of symbolic links")
}

/// Writes all of `text`'s UTF-8 bytes to `fd` in place: an export's text is one contiguous
/// buffer (100 MB at a million tasks), which a copy into an array or `Data` first would double.
private func write(_ text: String, to fd: Int32, path: String) throws {
  var text = text
  try text.withUTF8 { bytes in
    guard let start = bytes.baseAddress else { return }
    var written = 0
    while written < bytes.count {
      let result = Foundation.write(fd, start + written, bytes.count - written)
      if result < 0, errno == EINTR { continue }
      guard result > 0 else { throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))") }
      written += result
    }
  }
}

struct Backup: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write a consistent copy of the database to a new file, while apps keep writing, and verify it.",
    discussion: """
      A plain copy of a live database is unsafe: the latest commits may still be in its -wal \
      file. This copy holds the state as of one commit in a single file (SQLite's VACUUM INTO), \
      readable by its owner only. OUT must not exist.
      """)
  @OptionGroup var database: DatabaseArgument
  @Argument(help: ArgumentHelp("The new file to write.", valueName: "out")) var output: String

  func run() throws {
    let seq = try database.openForReading().backup(to: output)
    print("\(output): a verified copy of \(database.path) at seq \(seq).")
  }
}
