import ArgumentParser
import Foundation

extension ParsableCommand {
  /// Parses `arguments` as ``parseAsRoot(_:)`` does, except that a negative number where a
  /// value is expected (`move 2 -1`) reaches the command's validation, which names the valid
  /// range, instead of being taken for an unknown option ("Missing expected argument").
  ///
  /// When the plain parse fails, the arguments are parsed again with `--` before the first
  /// negative number that is no option's value, so it and what follows are values; that
  /// parse's result or error (the command's own range check) is the answer. Options that take
  /// numbers read negative ones themselves (`@Option(parsing: .unconditional)`).
  public static func parseAsRootAllowingNegativeNumbers(_ arguments: [String]) throws -> any ParsableCommand {
    do {
      return try parseAsRoot(arguments)
    } catch {
      let positional = arguments.indices.first { index in
        isNegativeNumber(arguments[index])
          && (index == 0 || !arguments[index - 1].hasPrefix("-") || arguments[index - 1].contains("="))
      }
      guard let index = positional, !arguments[..<index].contains("--") else { throw error }
      return try parseAsRoot(Array(arguments[..<index]) + ["--"] + arguments[index...])
    }
  }

  /// A message for a first word that is no subcommand, naming the nearest one when it is a
  /// near miss (`ad` for `add`, `histroy` for `history`), or `nil` when the first word is a
  /// subcommand (or there is none).
  ///
  /// - Parameter optionsTakingValues: the root command's options that take a value (`--db`),
  ///   so that their values are not taken for the subcommand.
  /// - Parameter hint: where to look for the commands.
  public static func unknownSubcommandMessage(
    in arguments: [String], optionsTakingValues: Set<String> = [], hint: String? = nil
  ) -> String? {
    var remaining = arguments[...]
    while let first = remaining.first, first.hasPrefix("-") {
      remaining = remaining.dropFirst(optionsTakingValues.contains(first) ? 2 : 1)
    }
    guard let word = remaining.first else { return nil }
    let names = configuration.subcommands.map { $0._commandName }
    // `help` is ArgumentParser's own: `tasks help add`.
    guard !names.contains(word), word != "help" else { return nil }
    let nearest =
      names
      .map { (name: $0, distance: editDistance(word, $0)) }
      .filter { $0.distance <= max(1, $0.name.count / 3) || ($0.name.hasPrefix(word) && word.count >= 2) }
      .min { $0.distance < $1.distance }
    let suggestion = nearest.map { " Did you mean '\($0.name)'?" } ?? ""
    return "Unknown command '\(word)'.\(suggestion) \(hint ?? "See '\(_commandName) --help' for the commands.")"
  }

  /// Runs the command line: parses it (negative numbers included), runs the command, and exits
  /// with ArgumentParser's conventions, suggesting the nearest command for a misspelt one.
  public static func runCommandLine(optionsTakingValues: Set<String> = []) async -> Never {
    let arguments = Array(CommandLine.arguments.dropFirst())
    do {
      var command = try parseAsRootAllowingNegativeNumbers(arguments)
      if var command = command as? any AsyncParsableCommand {
        try await command.run()
      } else {
        try command.run()
      }
      exit(withError: nil)
    } catch {
      if let message = unknownSubcommandMessage(in: arguments, optionsTakingValues: optionsTakingValues) {
        FileHandle.standardError.write(Data("Error: \(escapingControlCharacters(message))\n".utf8))
        exit(withError: ExitCode.validationFailure)
      }
      // A message echoes values given to it (a label, a key, a path): control characters in
      // them are shown escaped, so that they neither hide text nor drive the terminal.
      let message = fullMessage(for: error)
      let code = exitCode(for: error)
      if code != .success, message.unicodeScalars.contains(where: isHiddenControl) {
        FileHandle.standardError.write(Data((escapingControlCharacters(message) + "\n").utf8))
        Foundation.exit(code.rawValue)
      }
      exit(withError: error)
    }
  }
}

/// Whether `scalar` is a control character other than a newline: the C0 and C1 controls and
/// DEL, which a terminal shows as nothing, as blank space, or obeys.
func isHiddenControl(_ scalar: Unicode.Scalar) -> Bool {
  scalar != "\n" && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
}

/// `text` with each hidden control character (see ``isHiddenControl(_:)``) written as `\u{…}`,
/// as Swift spells it.
func escapingControlCharacters(_ text: String) -> String {
  var escaped = String.UnicodeScalarView()
  for scalar in text.unicodeScalars {
    if isHiddenControl(scalar) {
      escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
    } else {
      escaped.append(scalar)
    }
  }
  return String(escaped)
}

/// Whether `word` is a negative number: `-1`, `-0.5`, `-.5`, `-1e3`.
func isNegativeNumber(_ word: String) -> Bool {
  word.count > 1 && word.hasPrefix("-") && Double(word) != nil
}

/// The edit distance between two words: the fewest insertions, deletions, substitutions and
/// swaps of neighbours (`lgo` for `log`) that turn one into the other.
func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a)
  let b = Array(b)
  guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
  var d = (0...a.count).map { i in (0...b.count).map { j in i == 0 ? j : j == 0 ? i : 0 } }
  for i in 1...a.count {
    for j in 1...b.count {
      d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
      if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
    }
  }
  return d[a.count][b.count]
}
