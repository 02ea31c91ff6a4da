import Foundation
import GRDB

/// A writer with SQLite's automatic checkpoint on, committing a row about every millisecond
/// (into the file's `filler` table, which the test makes) on a thread of its own until stopped,
/// as an app writing to the file would.
final class PacedWriter: @unchecked Sendable {
  private let lock = NSLock()
  private var stopping = false
  private var error: (any Error)?
  private let done = DispatchSemaphore(value: 0)

  init(path: String) {
    Thread { [self] in
      do {
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        while !lock.withLock({ stopping }) {
          try queue.write { db in try db.execute(sql: "INSERT INTO filler VALUES (zeroblob(100))") }
          Thread.sleep(forTimeInterval: 0.001)
        }
        try queue.close()
      } catch {
        lock.withLock { self.error = error }
      }
      done.signal()
    }.start()
  }

  /// What stopped the writer early, if anything did.
  var failure: (any Error)? { lock.withLock { error } }

  /// Stops the writer and waits for it to close its connection.
  func stop() {
    lock.withLock { stopping = true }
    done.wait()
  }
}
