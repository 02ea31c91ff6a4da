import ArgumentParser
import CommandLineSupport
import Foundation
import Rewind
import TasksExample

struct Shell: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run commands one per line on one open store: typed at a prompt, or piped in.",
    discussion: """
      Every tasks command works, without the `tasks` and the --db option: `add Buy milk`, \
      `move 2 0`, `undo`, `show`, `history`. The rest of the line is the title for add, rename, \
      append, draft and search, as typed (`add -1 degree` too); quote it to trim or join words. \
      `--project <id>` at the end of an add line picks the task's project. \
      `help` lists the commands, `help <command>` explains one, `exit` (or end of input) leaves.

      Piped input gets one output line per command: the committed seq and the action's name once \
      the action is durable, `- ...` when nothing changed, or `error: ...`; `show` and `history` \
      print their lines joined by ' | '. Empty lines and lines starting with # are skipped. At a \
      terminal the shell prints a banner and a prompt, and `show` and `history` print their \
      lines as they are.
      """)
  @ParentCommand var root: TasksCommand

  func run() async throws {
    let path = root.databasePath
    try await Task { @MainActor in
      let store = try root.openStore()
      defer { store.waitForSnapshots() }
      let interactive = isatty(STDIN_FILENO) == 1
      var failed = false
      if interactive {
        print("Rewind tasks shell on \(path), at seq \(store.lastSeq). Type help for the commands, exit to leave.")
      }
      while true {
        if interactive {
          print("tasks> ", terminator: "")
          fflush(nil)
        }
        guard let line = readLine() else { break }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
        if trimmed == "exit" || trimmed == "quit" { break }
        let output = await Self.execute(trimmed, on: store)
        if output.hasPrefix("error: ") { failed = true }
        print(
          interactive
            ? output : output.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " | "))
        fflush(nil)  // every stream: the next line must not wait in a buffer
      }
      print("\(store.lastSeq) end")
      // A script learns from the status that some command failed (their lines say which).
      if failed { throw ExitCode.failure }
    }.value
  }

  /// Commands whose last argument is free text, with how many arguments come before it.
  static let freeTextCommands = ["add": 0, "rename": 1, "append": 1, "note": 1, "draft": 0, "search": 0]

  /// Runs one command line and returns what to print (lines joined by newlines). Effects it
  /// starts (an import) finish before it returns.
  @MainActor static func execute(_ line: String, on store: TasksStore) async -> String {
    do {
      let words = try arguments(of: line)
      if words.first == "help" {
        guard words.count > 1 else { return help }
        guard let command = subcommand(named: words[1]) else { throw ValidationError("No command named \(words[1]).") }
        return TasksCommand.helpMessage(for: command)
      }
      if words.contains("--help") || words.contains("-h"), let command = subcommand(named: words[0]) {
        return TasksCommand.helpMessage(for: command)
      }
      let command = try TasksCommand.parseAsRootAllowingNegativeNumbers(words)
      switch command {
      case let command as Import:
        return try await command.run(on: store)
      case is Show:
        // Another process may have written since.
        try store.reload()
        return "\(store.lastSeq) show\n\(store.state.render())"
      case let command as any StoreCommand:
        // A write applies what other processes wrote first, then does its own.
        return try command.run(on: store)
      default:
        return "error: \(words.first ?? "") is not available in the shell (help lists what is)"
      }
    } catch {
      // `add --help`: the command's whole help.
      if TasksCommand.exitCode(for: error) == .success { return TasksCommand.fullMessage(for: error) }
      let words = (try? ShellWords.split(line)) ?? []
      if let message = TasksCommand.unknownSubcommandMessage(in: words, hint: "Type help for the commands.") {
        return "error: \(message)"
      }
      let message =
        TasksCommand.message(for: error)
        .split(separator: "\n").first.map(String.init) ?? "\(error)"
      return "error: \(message)"
    }
  }

  /// The arguments of a shell line. For a free-text command, the rest of the line after its
  /// other arguments is one title, after `--` so that it may start with `-`: as typed when the
  /// line has no quotes (`add Buy  milk`), its words joined by spaces otherwise.
  static func arguments(of line: String) throws -> [String] {
    let words = try ShellWords.split(line)
    // `add TITLE --project ID`: the option ends the line and is not part of the title.
    if words.first == "add", words.count >= 4, words[words.count - 2] == "--project", !words.contains("--"),
      let option = line.range(of: "--project", options: .backwards)
    {
      let title = try arguments(of: String(line[..<option.lowerBound]))
      return [title[0]] + words.suffix(2) + title.dropFirst()
    }
    guard let command = words.first, let before = freeTextCommands[command] else { return words }
    let textStart = 1 + before
    let text = words.dropFirst(textStart)
    guard !text.isEmpty, text.first != "--", !(text.count == 1 && ["--help", "-h"].contains(text.first)) else {
      return words
    }
    let typed = ShellWords.rest(of: line, afterWords: textStart)
    return Array(words.prefix(textStart)) + ["--", typed ?? text.joined(separator: " ")]
  }

  static func subcommand(named name: String) -> (any ParsableCommand.Type)? {
    TasksCommand.configuration.subcommands.first { $0._commandName == name }
  }

  /// The commands, one line each.
  static var help: String {
    let commands = TasksCommand.configuration.subcommands
      .filter { !["shell", "demo"].contains($0._commandName) }
      .map { "  \($0._commandName.padding(toLength: 15, withPad: " ", startingAt: 0))\($0.configuration.abstract)" }
    return
      (["Commands (`help <command>` for one command's arguments):"] + commands
      + ["  exit           Leave the shell."]).joined(separator: "\n")
  }
}

/// Splits a command line into words, honouring single and double quotes and backslashes.
enum ShellWords {
  struct UnterminatedQuote: Error, CustomStringConvertible {
    var description: String { "Unterminated quote in the command line." }
  }

  /// The line after its first `count` words, as typed (trailing spaces trimmed), or `nil` when
  /// the line has quotes or backslashes, whose words are not the typed text.
  static func rest(of line: String, afterWords count: Int) -> String? {
    guard !line.contains(where: { $0 == "\"" || $0 == "'" || $0 == "\\" }) else { return nil }
    var rest = line[...].drop(while: \.isWhitespace)
    for _ in 0..<count {
      rest = rest.drop(while: { !$0.isWhitespace }).drop(while: \.isWhitespace)
    }
    return String(rest.reversed().drop(while: \.isWhitespace).reversed())
  }

  static func split(_ line: String) throws -> [String] {
    var words: [String] = []
    var word = ""
    var inWord = false
    var quote: Character?
    var escaped = false
    for character in line {
      if escaped {
        word.append(character)
        escaped = false
      } else if character == "\\" && quote != "'" {
        escaped = true
        inWord = true
      } else if let open = quote {
        if character == open { quote = nil } else { word.append(character) }
      } else if character == "\"" || character == "'" {
        quote = character
        inWord = true
      } else if character.isWhitespace {
        if inWord { words.append(word) }
        word = ""
        inWord = false
      } else {
        word.append(character)
        inWord = true
      }
    }
    if quote != nil || escaped { throw UnterminatedQuote() }
    if inWord { words.append(word) }
    return words
  }
}
