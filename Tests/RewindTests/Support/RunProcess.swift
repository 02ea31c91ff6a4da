import Foundation

/// Runs `executable` with `arguments` as a process of its own, for tests of what a user's
/// shell sees: its exit status and what it wrote on stdout and stderr.
func runProcess(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  try process.run()
  // Both read to their end before waiting: a full pipe would block the process.
  let outData = out.fileHandleForReading.readToEndRetryingInterrupts()
  let errData = err.fileHandleForReading.readToEndRetryingInterrupts()
  return (
    process.waitForExit().status, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self)
  )
}

/// Runs the `sqlite3` shell on `path` with `sql`, waiting up to 5 s for a lock, as someone
/// inspecting or editing the file by hand would.
@discardableResult
func sqlite3Shell(_ path: String, _ sql: String) throws -> (status: Int32, out: String, err: String) {
  try runProcess(URL(fileURLWithPath: "/usr/bin/sqlite3"), ["-cmd", ".timeout 5000", path, sql])
}
