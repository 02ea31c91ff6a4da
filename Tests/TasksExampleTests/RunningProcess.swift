import Foundation

/// A process of the package's that keeps running while the test talks to it: lines in on
/// stdin, lines out on stdout, and SIGKILL at any moment.
///
/// `@unchecked Sendable`: one thread may write stdin while another reads stdout; they touch
/// different pipes, and only the reader touches the line buffer.
final class RunningProcess: @unchecked Sendable {
  let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  private let errors = Pipe()
  private var buffer = Data()

  init(_ executable: String, _ arguments: [String], directory: URL, launcher: [String] = []) throws {
    // A write to a killed child must fail, not kill the test with SIGPIPE.
    signal(SIGPIPE, SIG_IGN)
    let binary = ProcessRunner.binaries.appendingPathComponent(executable).path
    if launcher.isEmpty {
      process.executableURL = URL(fileURLWithPath: binary)
      process.arguments = arguments
    } else {
      process.executableURL = URL(fileURLWithPath: launcher[0])
      process.arguments = Array(launcher.dropFirst()) + [binary] + arguments
    }
    process.currentDirectoryURL = directory
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    try process.run()
  }

  /// Writes `text` to the process's stdin; false once the process is gone.
  @discardableResult
  func write(_ text: String) -> Bool {
    (try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))) != nil
  }

  func closeInput() { try? input.fileHandleForWriting.close() }

  /// The next `count` lines of stdout, fewer if it closes first.
  func readLines(_ count: Int) -> [String] {
    var lines: [String] = []
    while lines.count < count {
      if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
        buffer.removeSubrange(buffer.startIndex...newline)
        continue
      }
      guard let data = output.fileHandleForReading.readSomeRetryingInterrupts() else { break }
      buffer.append(data)
    }
    return lines
  }

  /// Every remaining line of stdout, up to its end.
  func readRemainingLines() -> [String] { readLines(.max) }

  /// Everything the process wrote to stderr (after it ended).
  func standardError() -> String {
    String(decoding: errors.fileHandleForReading.readToEndRetryingInterrupts(), as: UTF8.self)
  }

  func kill() {
    Foundation.kill(process.processIdentifier, SIGKILL)
  }

  /// Waits for the process to end (see ``Foundation/Process/waitForExit()``): its exit
  /// status, or the signal that ended it and `crashed`.
  @discardableResult
  func wait() -> (status: Int32, crashed: Bool) { process.waitForExit() }
}
