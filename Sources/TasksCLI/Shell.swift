import ArgumentParser
import Foundation
import Rewind
import TasksExample

struct Shell: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Read one command per line from standard input, on one open store.",
    discussion: """
      For each line, prints one line: the committed seq and the action's name once the action \
      is durable, or `error: ...`. `show` prints the screen on one line, parts separated by ' | '. \
      Empty lines and lines starting with # are skipped.
      """)
  @ParentCommand var root: TasksCommand

  func run() async throws {
    try await Task { @MainActor in
      let store = try root.openStore()
      while let line = readLine() {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
        print(await Self.execute(trimmed, on: store))
        fflush(nil)  // every stream: the next line must not wait in a buffer
      }
      print("\(store.lastSeq) end")
    }.value
  }

  /// Runs one command line and returns the line to print. Effects it starts (an import)
  /// finish before the line is printed.
  @MainActor static func execute(_ line: String, on store: TasksStore) async -> String {
    do {
      let words = try ShellWords.split(line)
      let command = try TasksCommand.parseAsRoot(words)
      switch command {
      case let command as Import:
        return try await command.run(on: store)
      case let command as any WritingCommand:
        // Another process may have written since: the store applies its entries first.
        return try command.run(on: store)
      case is Show:
        try store.reload()
        let screen = store.state.render().split(separator: "\n").joined(separator: " | ")
        return "\(store.lastSeq) show | \(screen)"
      default:
        return "error: \(words.first ?? "") is not available in the shell"
      }
    } catch {
      let message = TasksCommand.message(for: error)
        .split(separator: "\n").first.map(String.init) ?? "\(error)"
      return "error: \(message)"
    }
  }
}

/// Splits a command line into words, honouring single and double quotes and backslashes.
enum ShellWords {
  struct UnterminatedQuote: Error, CustomStringConvertible {
    var description: String { "Unterminated quote in the command line." }
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
