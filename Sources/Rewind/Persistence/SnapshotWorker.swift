import Dispatch
import Foundation
import GRDB

/// Takes a store's automatic snapshots off the caller's thread, on a connection of its own.
///
/// A snapshot copies the whole state, so taking it inside `send` would stall the main actor
/// for as long as the state is large (seconds at a million rows). The worker reads the tables
/// in one read transaction, which in WAL mode sees one committed state while the store goes on
/// writing, encodes them there, and only then takes the write lock, for the one insert. At
/// most one snapshot is under way per store; a failed one is dropped (a snapshot only speeds
/// up later jumps), and the next one is due soon.
final class SnapshotWorker: @unchecked Sendable {
  private let path: String
  private let configuration: Configuration
  private let lock = NSLock()
  private let group = DispatchGroup()
  private var running = false
  /// The seq of the last snapshot this worker stored: the store's own position learns it only
  /// when it next reads the file.
  private var lastTakenSeq: Int64 = 0

  init(path: String, configuration: Configuration) {
    self.path = path
    self.configuration = configuration
  }

  /// The seq of the latest snapshot the worker stored, or 0.
  var latestSeq: Int64 { lock.withLock { lastTakenSeq } }

  /// Starts a snapshot of the file's current state unless one is under way.
  func start() {
    let claimed = lock.withLock {
      if running { return false }
      running = true
      return true
    }
    guard claimed else { return }
    group.enter()
    DispatchQueue.global(qos: .utility).async { [self] in
      let seq = try? takeSnapshot()
      lock.withLock {
        if let seq { lastTakenSeq = max(lastTakenSeq, seq) }
        running = false
      }
      group.leave()
    }
  }

  /// Blocks until no snapshot is under way.
  func wait() { group.wait() }

  /// Reads and encodes the state in a read transaction, then stores it in a short write
  /// transaction. Returns the seq it holds, or `nil` when there was nothing to take.
  private func takeSnapshot() throws -> Int64? {
    let queue = try DatabaseQueue(path: path, configuration: configuration)
    let snapshot = try queue.read { db -> HistoryLog.EncodedSnapshot? in
      let history = try HistoryLog(db)
      let seq = try history.fileLastSeq(db)
      guard seq > history.lastSnapshotSeq else { return nil }
      return HistoryLog.EncodedSnapshot(try StateRows(db, catalog: history.tables), seq: seq)
    }
    guard let snapshot else { return nil }
    return try queue.writeWithoutTransaction { db in
      try db.inImmediateTransaction {
        var history = try HistoryLog(db)
        // Compaction or another snapshot may have come in between: then this one is not needed.
        guard snapshot.seq > history.lastSnapshotSeq else { return nil }
        try history.insertSnapshot(snapshot, kind: "automatic", label: nil, db)
        return snapshot.seq
      }
    }
  }
}
