import Dispatch
import Foundation
import GRDB

/// Does a store's O(state) and I/O-bound upkeep off the caller's thread, on connections of its
/// own: automatic snapshots and WAL checkpoints.
///
/// - **Snapshots.** A snapshot copies the whole state, so taking it inside `send` would stall
///   the main actor for as long as the state is large (seconds at a million rows). The worker
///   reads the tables in one read transaction, which in WAL mode sees one committed state while
///   the store goes on writing, encodes them there, and only then takes the write lock, for the
///   one insert.
/// - **Checkpoints.** SQLite copies the WAL back into the database file once it holds 1,000
///   pages, inside whichever commit crosses that mark, and syncs the file: a stall of several
///   milliseconds in one `send` out of a few hundred. The store's connection turns that off
///   (`wal_autocheckpoint = 0`) and the worker runs a passive checkpoint every
///   ``checkpointInterval`` commits instead, which never blocks the store's writes.
///
/// At most one of each is under way at a time. A failed one is dropped: a snapshot only speeds
/// up later jumps, and the next checkpoint copies what this one did not.
final class BackgroundWorker: @unchecked Sendable {
  /// Commits between checkpoints: about as many WAL pages as SQLite's own default of 1,000.
  static let checkpointInterval = 256

  private let path: String
  private let configuration: Configuration
  private let lock = NSLock()
  private let group = DispatchGroup()
  private var snapshotRunning = false
  private var checkpointRunning = false
  private var commitsSinceCheckpoint = 0
  /// The seq of the last snapshot this worker stored: the store's own position learns it only
  /// when it next reads the file.
  private var lastTakenSeq: Int64 = 0

  init(path: String, configuration: Configuration) {
    self.path = path
    self.configuration = configuration
  }

  /// The seq of the latest snapshot the worker stored, or 0.
  var latestSnapshotSeq: Int64 { lock.withLock { lastTakenSeq } }

  /// Starts a snapshot of the file's current state unless one is under way.
  func startSnapshot() {
    guard claim(\.snapshotRunning) else { return }
    run {
      let seq = try? self.takeSnapshot()
      self.lock.withLock {
        if let seq { self.lastTakenSeq = max(self.lastTakenSeq, seq) }
        self.snapshotRunning = false
      }
    }
  }

  /// Counts a commit of the store's; every ``checkpointInterval`` of them, starts a checkpoint
  /// unless one is under way.
  func didCommit() {
    let due = lock.withLock {
      commitsSinceCheckpoint += 1
      guard commitsSinceCheckpoint >= Self.checkpointInterval, !checkpointRunning else { return false }
      commitsSinceCheckpoint = 0
      checkpointRunning = true
      return true
    }
    guard due else { return }
    run {
      _ = try? DatabaseQueue(path: self.path, configuration: self.configuration).writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)")
      }
      self.lock.withLock { self.checkpointRunning = false }
    }
  }

  /// Blocks until no snapshot or checkpoint is under way.
  func wait() { group.wait() }

  private func claim(_ flag: ReferenceWritableKeyPath<BackgroundWorker, Bool>) -> Bool {
    lock.withLock {
      if self[keyPath: flag] { return false }
      self[keyPath: flag] = true
      return true
    }
  }

  private func run(_ work: @escaping @Sendable () -> Void) {
    group.enter()
    DispatchQueue.global(qos: .utility).async { [group] in
      work()
      group.leave()
    }
  }

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
