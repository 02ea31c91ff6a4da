import Foundation

/// Runs the package's executables as real processes.
struct ProcessRunner {
  struct Result {
    /// Whether a signal ended the process (a crash, or a kill).
    var crashed: Bool
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// The folder holding the built executables: the test bundle's own build folder.
  static let binaries: URL = {
    var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    // From `.../debug/RewindPackageTests.xctest` (or a file inside it) up to `.../debug`.
    while url.path != "/" {
      url.deleteLastPathComponent()
      if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("tasks").path) {
        return url
      }
    }
    fatalError("The tasks executable was not found next to \(CommandLine.arguments[0])")
  }()

  var directory: URL

  /// A launcher that runs as the unprivileged user `nobody` when the tests run as root (file
  /// modes do not stop root); as anyone else, none is needed.
  static var unprivileged: [String] {
    getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
  }

  /// Runs `executable` with `arguments` in `directory`, feeding it `input` on stdin. With a
  /// `launcher` (such as `setpriv ...`), runs the launcher with the executable's path and the
  /// arguments after its own.
  @discardableResult
  func run(_ executable: String, _ arguments: [String], input: String? = nil, launcher: [String] = []) throws -> Result
  {
    let process = Process()
    let binary = Self.binaries.appendingPathComponent(executable)
    if launcher.isEmpty {
      process.executableURL = binary
      process.arguments = arguments
    } else {
      process.executableURL = URL(fileURLWithPath: launcher[0])
      process.arguments = Array(launcher.dropFirst()) + [binary.path] + arguments
    }
    process.currentDirectoryURL = directory
    let stdout = Pipe()
    let stderr = Pipe()
    let stdin = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = stdin
    try process.run()
    if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
    try stdin.fileHandleForWriting.close()
    // Read both pipes before waiting, so a full pipe cannot block the child.
    let out = stdout.fileHandleForReading.readToEndRetryingInterrupts()
    let err = stderr.fileHandleForReading.readToEndRetryingInterrupts()
    let exit = process.waitForExit()
    return Result(
      crashed: exit.crashed,
      status: exit.status,
      stdout: String(decoding: out, as: UTF8.self),
      stderr: String(decoding: err, as: UTF8.self))
  }

  @discardableResult
  func tasks(_ arguments: String..., input: String? = nil) throws -> Result {
    try run("tasks", arguments, input: input)
  }
}

/// A fresh directory under the system's temporary folder, removed when released.
final class TemporaryDirectory {
  let url: URL
  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }
  func path(_ name: String) -> String { url.appendingPathComponent(name).path }
  deinit { try? FileManager.default.removeItem(at: url) }
}
