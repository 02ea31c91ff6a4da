import Foundation
import GRDB
import Testing

/// Killing the app at random moments, and the app and the tool writing one file at once.
@Suite(.serialized)
struct CrashAndConcurrencyTests {
  let directory: TemporaryDirectory
  let runner: ProcessRunner

  init() throws {
    directory = try TemporaryDirectory()
    runner = ProcessRunner(directory: directory.url)
  }

  /// The (seq, action) of an acknowledgement line such as "12 add".
  static func ack(_ line: String) -> (seq: Int64, action: String)? {
    let words = line.split(separator: " ")
    guard words.count >= 2, let seq = Int64(words[0]) else { return nil }
    return (seq, String(words[1]))
  }

  @Test func killedMidStreamItLosesNoAcknowledgedAction() throws {
    let path = directory.path("crash.sqlite")
    var random = SystemRandomNumberGenerator()
    var acknowledgedTitles: [String] = []
    var acknowledged: [(seq: Int64, action: String)] = []
    let rounds = 12
    for round in 0..<rounds {
      // A stream of actions: mostly adds (each with its own title), toggles and scrolls.
      let commands: [(line: String, title: String?)] = (0..<40).map { index in
        switch index % 5 {
        case 3: ("toggle 1", nil)
        case 4: ("scroll \(index)", nil)
        default: ("add \"r\(round)-\(index)\"", "r\(round)-\(index)")
        }
      }
      let shell = try RunningProcess("tasks", ["--db", path, "shell"], directory: directory.url)
      shell.write(commands.map(\.line).joined(separator: "\n") + "\n")
      // Kill after a random number of acknowledgements, at a random moment after it.
      let lines = shell.readLines(Int.random(in: 1...39, using: &random))
      usleep(UInt32.random(in: 0...3_000, using: &random))
      shell.kill()
      #expect(shell.wait().crashed)
      let all = lines + shell.readRemainingLines()  // printed before the kill
      #expect(!all.isEmpty)
      for (line, command) in zip(all, commands) {
        // An action that changed nothing (a scroll to where the list already is) is not logged.
        if line.hasPrefix("- ") { continue }
        guard let ack = Self.ack(line) else {
          Issue.record("round \(round): unexpected line \(line)")
          continue
        }
        acknowledged.append(ack)
        if let title = command.title { acknowledgedTitles.append(title) }
      }

      // After each kill: the file opens, verifies, and holds every acknowledged action.
      let verify = try runner.run("rewind", ["verify", path])
      #expect(verify.status == 0, "round \(round): \(verify.stdout) \(verify.stderr)")
      let (log, titles) = try DatabaseQueue(path: path).read { db in
        (
          Dictionary(
            // Repairs the app logged after following the tool's writes are not commands of either.
            uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT seq, action FROM action_log WHERE kind <> 'repair'")
              .map {
                ($0["seq"] as Int64, $0["action"] as String)
              }),
          Set(try String.fetchAll(db, sql: "SELECT title FROM tasks"))
        )
      }
      for ack in acknowledged { #expect(log[ack.seq] == ack.action, "round \(round): seq \(ack.seq) lost") }
      for title in acknowledgedTitles { #expect(titles.contains(title), "round \(round): task \(title) lost") }
    }
    #expect(acknowledged.count >= rounds)
  }

  @Test func theAppAndTheToolWriteOneFileAtOnceWithoutLosingAnything() throws {
    let path = directory.path("shared.sqlite")
    #expect(try runner.tasks("--db", path, "add", "seed").status == 0)
    let shell = try RunningProcess("tasks", ["--db", path, "shell"], directory: directory.url)
    let commands = (0..<200).map { index in index % 4 == 3 ? "toggle 1" : "add \"app-\(index)\"" }
    // The app writes slowly, so the tool's commands land in the middle of its stream.
    let writer = Thread {
      for (index, command) in commands.enumerated() {
        _ = shell.write(command + "\n")
        if index % 2 == 1 { usleep(4_000) }
      }
      shell.closeInput()
    }
    writer.start()

    var toolEntries = 0
    var toolOutput = ""
    let toolCommands: [[String]] = [
      ["log", path, "--last", "3"], ["export", path], ["undo", path], ["snapshot", path, "--label", "s1"],
      ["restore", path, "--to", "2"], ["inspect", path], ["undo", path], ["redo", path],
      ["export", path, "--at", "2"], ["snapshot", path, "--label", "s2"],
    ]
    for command in toolCommands {
      let result = try runner.run("rewind", command)
      toolOutput += result.stdout + result.stderr
      // The app's new actions may drop the redo stack before the tool's redo: that is the one
      // refusal allowed here.
      if command[0] == "redo", result.stderr.contains("Nothing to redo.") { continue }
      #expect(result.status == 0, "rewind \(command): \(result.stderr)")
      if result.status == 0, ["undo", "redo", "restore"].contains(command[0]), !result.stdout.hasPrefix("Nothing") {
        toolEntries += 1
      }
    }
    let lines = shell.readRemainingLines()
    shell.wait()
    let shellErrors = shell.standardError()

    #expect(lines.count == commands.count + 1)  // one per command, and the closing line
    #expect(!lines.contains { $0.hasPrefix("error:") }, "\(lines.filter { $0.hasPrefix("error:") })")
    // The tool wrote while the app was running; the app applied its entries before each write
    // instead of overwriting them or refusing (verified below: the log replays to the tables).
    for text in [toolOutput, shellErrors, lines.joined(separator: "\n")] {
      #expect(!text.localizedCaseInsensitiveContains("locked") && !text.localizedCaseInsensitiveContains("busy"))
    }
    // Nothing lost or doubled: the initial entry, the seed, every app action once, every tool write.
    let acks = lines.dropLast().compactMap(Self.ack)
    #expect(acks.count == commands.count)
    let log = try DatabaseQueue(path: path).read { db in
      Dictionary(
        // Repairs the app logged after following the tool's writes are not commands of either.
        uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT seq, action FROM action_log WHERE kind <> 'repair'").map
        {
          ($0["seq"] as Int64, $0["action"] as String)
        })
    }
    #expect(log.count == 2 + commands.count + toolEntries)
    for ack in acks { #expect(log[ack.seq] == ack.action) }
    let verify = try runner.run("rewind", ["verify", path])
    #expect(verify.status == 0, "\(verify.stdout)")
  }
}
