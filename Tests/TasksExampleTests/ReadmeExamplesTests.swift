import Foundation
import Testing

/// The README's shell examples, run in order as a new user would run them, each compared with
/// the output the README shows.
///
/// Every ```console block is read top to bottom: a line starting with `$ ` is a command, the
/// lines after it (up to the next command) its expected output, standard output first, then
/// standard error. All commands run in one fresh folder with the built `tasks` and `rewind` on
/// the PATH, as the README's set-up puts them. Timestamps are masked, and a line `...` stands
/// for any number of lines.
struct ReadmeExamplesTests {
  static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("README.md")

  struct Example {
    var command: String
    var expected: [String]
  }

  static func examples(in markdown: String) -> [Example] {
    var examples: [Example] = []
    // The indentation of the open console block's fence (a block in a list item is indented),
    // or nil outside one.
    var indentation: Int?
    for rawLine in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      guard let indent = indentation else {
        if rawLine.trimmingCharacters(in: .whitespaces) == "```console" {
          indentation = rawLine.prefix { $0 == " " }.count
        }
        continue
      }
      let line = String(rawLine.dropFirst(min(indent, rawLine.prefix { $0 == " " }.count)))
      if line == "```" {
        indentation = nil
      } else if line.hasPrefix("$ ") {
        examples.append(Example(command: String(line.dropFirst(2)), expected: []))
      } else {
        examples[examples.count - 1].expected.append(line)
      }
    }
    return examples
  }

  static func masked(_ line: String) -> String {
    line.replacingOccurrences(
      of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"#, with: "<time>", options: .regularExpression)
  }

  /// Whether `actual` matches `expected`, where a `...` line matches any number of lines.
  static func matches(_ actual: ArraySlice<String>, _ expected: ArraySlice<String>) -> Bool {
    guard let first = expected.first else { return actual.isEmpty }
    if first == "..." {
      return actual.indices.contains { matches(actual[$0...], expected.dropFirst()) }
        || matches([], expected.dropFirst())
    }
    guard let line = actual.first, masked(line) == masked(first) else { return false }
    return matches(actual.dropFirst(), expected.dropFirst())
  }

  @Test func theReadmesExamplesRunInOrderAndPrintWhatItShows() throws {
    let examples = Self.examples(in: try String(contentsOf: Self.readme, encoding: .utf8))
    #expect(examples.count >= 30)
    let directory = try TemporaryDirectory()
    // The README runs from the repository's root, where the release fixture it upgrades is.
    let fixtures = directory.url.appendingPathComponent("Tests/RewindTests/Fixtures")
    try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: Self.readme.deletingLastPathComponent().appendingPathComponent(
        "Tests/RewindTests/Fixtures/release-0.1.sqlite"),
      to: fixtures.appendingPathComponent("release-0.1.sqlite"))
    let path = ProcessRunner.binaries.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    for example in examples {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = ["-c", example.command]
      process.currentDirectoryURL = directory.url
      process.environment = ProcessInfo.processInfo.environment.merging(["PATH": path]) { $1 }
      let stdout = Pipe()
      let stderr = Pipe()
      process.standardOutput = stdout
      process.standardError = stderr
      process.standardInput = FileHandle.nullDevice
      try process.run()
      let out = stdout.fileHandleForReading.readToEndRetryingInterrupts()
      let err = stderr.fileHandleForReading.readToEndRetryingInterrupts()
      process.waitForExit()
      let lines = (String(decoding: out, as: UTF8.self) + String(decoding: err, as: UTF8.self))
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      let actual = lines.last == "" ? Array(lines.dropLast()) : lines
      #expect(
        Self.matches(actual[...], example.expected[...]),
        "$ \(example.command)\n--- the README shows:\n\(example.expected.joined(separator: "\n"))\n--- it printed:\n\(actual.joined(separator: "\n"))"
      )
    }
  }
}
