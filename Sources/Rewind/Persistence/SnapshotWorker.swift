import Dispatch
import Foundation
import GRDB

/// Takes a store's automatic snapshots off the caller's thread, on a connection of its own.
///
/// A snapshot copies the whole state, so taking it inside `send` would stall the main actor
/// for as long as the state is large (seconds at a million rows). The worker reads the tables
/// in steps of short read transactions, joined into one state with the log entries committed
/// meanwhile (see ``SteppedSnapshotRead``), and only then writes the text, in parts of 64 KiB,
/// each in a short write transaction of its own, in a pause between the store's sends (see
/// ``store(_:label:in:partBytes:beforeEachWrite:stopping:)``). At most one snapshot is under
/// way at a time; a failed one is dropped (a snapshot only speeds up later jumps), and the
/// next one is due soon. A released store stops it (``stop()``).
///
/// When the steps cannot be joined (a migration meanwhile, a row inserted or deleted past the
/// log, a table whose key is not its primary key), it reads the tables in one read transaction
/// instead. While it is in a read transaction the WAL cannot start over, so a checkpoint would
/// copy and sync the file in vain: the worker tells the store's ``WALCheckpointer``
/// (``WALCheckpointer/snapshotIsReading``), whose commits wait meanwhile.
final class SnapshotWorker: @unchecked Sendable {
  private let path: String
  private let configuration: Configuration
  /// The store's checkpointer, which each step of a snapshot's read waits for (see
  /// ``WALCheckpointer/waitForWALToStartOver(atMost:)``).
  private let checkpointer: WALCheckpointer?
  private let lock = NSLock()
  private let group = DispatchGroup()
  private var snapshotRunning = false
  /// Set once the store is released: the snapshot under way stops at its next step.
  private var stopped = false
  /// The seq of the last snapshot this worker stored: the store's own position learns it only
  /// when it next reads the file.
  private var lastTakenSeq: Int64 = 0

  private var partBytesValue = defaultPartBytes
  private var rowsPerStepValue = SteppedSnapshotRead.defaultRowsPerStep
  private var readCounts = ReadCounts()

  /// How the snapshots read so far were read: for tests.
  struct ReadCounts: Equatable {
    /// In steps (see ``SteppedSnapshotRead``).
    var stepped = 0
    /// In one read transaction, the steps not joining into one state.
    var inOneRead = 0
  }

  /// How the snapshots read so far were read.
  var reads: ReadCounts { lock.withLock { readCounts } }

  /// 64 KiB: a fifth of a millisecond of the write lock or so, at most a few on a loaded
  /// machine (256 KiB, until this release, held it 0.4 to 0.8 ms).
  static let defaultPartBytes = 64 * 1024

  /// The least pause between two of a snapshot's write transactions, in microseconds: longer
  /// than a connection waiting for the lock sleeps between its tries (``LockWait``), so that
  /// a send that found a part being written takes the lock after it. With none, the next part
  /// took the lock again at once, and a waiting send lost it to part after part (up to 4 ms).
  static let pauseBetweenWritesMicroseconds: UInt32 = 300

  /// The longest a part waits for a pause between the store's sends (see
  /// ``WALCheckpointer/waitForPauseBetweenCommits(after:atMost:)``): sends that never pause
  /// leave it to be written between two of them.
  static let longestWaitForPause: Duration = .milliseconds(50)

  init(path: String, configuration: Configuration, checkpointer: WALCheckpointer?) {
    self.path = path
    self.configuration = configuration
    self.checkpointer = checkpointer
  }

  /// The most bytes of a snapshot's text written in one transaction (see
  /// `0008_snapshot_parts.sql`).
  var partBytes: Int {
    get { lock.withLock { partBytesValue } }
    set { lock.withLock { partBytesValue = newValue } }
  }

  /// The rows each step of a snapshot's read reads (see ``SteppedSnapshotRead``); tests lower it.
  var rowsPerStep: Int {
    get { lock.withLock { rowsPerStepValue } }
    set { lock.withLock { rowsPerStepValue = newValue } }
  }

  /// Whether a snapshot is under way.
  var isRunning: Bool { lock.withLock { snapshotRunning } }

  /// The seq of the latest snapshot the worker stored, or 0.
  var latestSnapshotSeq: Int64 { lock.withLock { lastTakenSeq } }

  /// Starts a snapshot of the file's current state unless one is under way.
  func startSnapshot() {
    let claimed = lock.withLock {
      if snapshotRunning || stopped { return false }
      snapshotRunning = true
      return true
    }
    guard claimed else { return }
    let partBytes = partBytes
    group.enter()
    // Read and encoded below the app's priority; stored at its priority, since storing holds
    // the write lock the app's sends wait for.
    BackgroundThread.run(named: "rewind.snapshot") { [self] in
      let handoff = Handoff(try? readSnapshot { [self] in lock.withLock { stopped } })
      DispatchQueue.global(qos: .utility).async { [self] in
        // The worker's connection is closed before `wait()` and `stop()` return: a released
        // store's own connection must be the last, to move the WAL into the file.
        let seq = handoff.take().flatMap { read in
          try? storeInPauses(read.snapshot, in: read.queue, partBytes: partBytes)
        }
        lock.withLock {
          if let seq { lastTakenSeq = max(lastTakenSeq, seq) }
          snapshotRunning = false
        }
        group.leave()
      }
    }
  }

  /// Blocks until no snapshot is under way.
  func wait() { group.wait() }

  /// Stops the snapshot under way at its next step (a part written, or a few thousand rows
  /// read, sorted or encoded), drops it, and waits for that: once its store is released,
  /// nothing writes the file, which its owner may then copy, move or delete. Parts already
  /// written are removed by a later snapshot.
  func stop() {
    lock.withLock { stopped = true }
    group.wait()
  }

  /// A snapshot read on one thread, handed to the one that stores it, which takes it (and
  /// with it the worker's connection) out, so that it ends before the worker's work does.
  private final class Handoff: @unchecked Sendable {
    private var read: (queue: DatabaseQueue, snapshot: HistoryLog.EncodedSnapshot)?
    init(_ read: (queue: DatabaseQueue, snapshot: HistoryLog.EncodedSnapshot)?) { self.read = read }
    func take() -> (queue: DatabaseQueue, snapshot: HistoryLog.EncodedSnapshot)? {
      defer { read = nil }
      return read
    }
  }

  /// Reads and encodes the state on a connection of the worker's own, which
  /// ``store(_:label:in:partBytes:beforeEachWrite:stopping:)`` then stores it with: in steps
  /// of short read transactions (see ``SteppedSnapshotRead``), or, when those cannot be joined
  /// into one state, in one read transaction; checkpoints wait while it is in a transaction.
  /// `nil` when there is nothing to take.
  private func readSnapshot(
    stopping: () -> Bool
  ) throws -> (queue: DatabaseQueue, snapshot: HistoryLog.EncodedSnapshot)? {
    let queue = try DatabaseFile.reopen(path: path, configuration: configuration)
    guard
      let read = try SteppedSnapshotRead.snapshot(
        from: queue, rowsPerStep: rowsPerStep, stopping: stopping,
        beforeStep: { [checkpointer] in checkpointer?.waitForWALToStartOver() },
        reading: { [checkpointer] reading in checkpointer?.snapshotIsReading = reading })
    else { return nil }
    lock.withLock {
      if read.stepped { readCounts.stepped += 1 } else { readCounts.inOneRead += 1 }
    }
    return (queue, read.snapshot)
  }

  /// Stores a snapshot the worker read (see
  /// ``store(_:label:in:partBytes:beforeEachWrite:stopping:)``), each write waiting for a
  /// pause between the store's sends, as its checkpointer sees them, so that a send seldom
  /// finds the write lock held, and then at most for one part's write; a pause found lasts
  /// for the next write too, as long as no commit ends it. The
  /// checkpointer watches the writes' commits, which add to the WAL it keeps short. With no
  /// checkpointer, the writes are only spaced (see ``spacedWrites()``).
  private func storeInPauses(
    _ snapshot: HistoryLog.EncodedSnapshot, in queue: DatabaseQueue, partBytes: Int
  ) throws -> Int64? {
    let stopping = { [self] in lock.withLock { stopped } }
    guard let checkpointer else {
      return try Self.store(snapshot, in: queue, partBytes: partBytes, stopping: stopping)
    }
    queue.writeWithoutTransaction { checkpointer.watchCommits(of: $0) }
    defer { queue.writeWithoutTransaction { checkpointer.uninstall(from: $0) } }
    var pause: Int?
    return try Self.store(
      snapshot, in: queue, partBytes: partBytes,
      beforeEachWrite: {
        pause = checkpointer.waitForPauseBetweenCommits(after: pause, atMost: Self.longestWaitForPause)
      },
      stopping: stopping)
  }

  /// Spaces a snapshot's writes by ``pauseBetweenWritesMicroseconds``, so that a connection
  /// waiting for the lock takes it between two of them.
  static func spacedWrites() -> () -> Void {
    var first = true
    return {
      if !first { usleep(pauseBetweenWritesMicroseconds) }
      first = false
    }
  }

  /// Stores a snapshot read in an earlier transaction: its text's parts, each in a write
  /// transaction of its own, then its row, which makes it visible. A store's send waits for
  /// the write lock at most as long as one part takes to write.
  ///
  /// - Parameters:
  ///   - label: a manual snapshot's label; `nil` for an automatic snapshot.
  ///   - beforeEachWrite: run before each write transaction: by default, it spaces them (see
  ///     ``spacedWrites()``).
  ///   - stopping: checked before each transaction; `true` drops the snapshot (see ``stop()``).
  /// - Returns: its seq, or `nil` when it was dropped: the file's app schema changed since it
  ///   was read (another process migrated it), or, for an automatic one, a snapshot as recent
  ///   came in between (compaction, another process).
  /// - Throws: ``RewindError/Code/snapshotLabel`` if another snapshot took `label` meanwhile.
  static func store(
    _ snapshot: HistoryLog.EncodedSnapshot, label: String? = nil, in queue: DatabaseQueue,
    partBytes: Int = defaultPartBytes, beforeEachWrite: () -> Void = spacedWrites(),
    stopping: () -> Bool = { false }
  ) throws -> Int64? {
    let parts = try writeParts(
      of: snapshot, in: queue, partBytes: partBytes, beforeEachWrite: beforeEachWrite, stopping: stopping)
    if stopping() { throw CancellationError() }
    beforeEachWrite()
    enum Outcome { case stored, dropped, labelTaken }
    let outcome = try queue.writeWithoutTransaction { db in
      try db.inImmediateTransaction { () -> Outcome in
        var history = try HistoryLog(db)
        // Parts no snapshot names, left by a worker that stopped an hour ago or more.
        try db.execute(
          sql: """
            DELETE FROM snapshot_parts WHERE part_set < ? AND part_set <> ? \
            AND part_set NOT IN (SELECT part_set FROM snapshots WHERE part_set IS NOT NULL)
            """,
          arguments: [Self.partSet(writtenAt: Date(timeIntervalSinceNow: -3600)), parts.partSet ?? -1])
        let labelTaken = try label.map {
          try Bool.fetchOne(db, sql: "SELECT 1 FROM snapshots WHERE label = ?", arguments: [$0]) == true
        }
        // An automatic snapshot is not needed once compaction or another snapshot came in
        // between. An app migration by another process since it was read would label rows of
        // the old shape with the new one, and tables rebuilt from the log since, rows edited by
        // hand. Parts removed meanwhile (by hand) would make a snapshot its checksum refuses.
        guard labelTaken != true, label != nil || snapshot.seq > history.lastSnapshotSeq,
          try parts.areWhole(db), snapshot.appSchemaVersion == history.tables.appSchema.version,
          snapshot.tablesRebuilt.map({ $0 == history.position.tablesRebuilt }) ?? true
        else {
          try parts.remove(db)
          return labelTaken == true ? .labelTaken : .dropped
        }
        try history.insertSnapshot(
          snapshot, kind: label == nil ? "automatic" : "manual", label: label, parts: parts, db)
        return .stored
      }
    }
    switch outcome {
    case .stored: return snapshot.seq
    case .dropped: return nil
    case .labelTaken: throw RewindError(.snapshotLabel, "a snapshot labelled \(label ?? "") already exists")
    }
  }

  /// The parts of a snapshot's text written ahead of its row (see ``writeParts(of:in:partBytes:stopping:)``).
  struct WrittenParts {
    /// The name the parts share in `snapshot_parts`, or `nil` when the text is one part.
    let partSet: Int64?
    /// How many rows of `snapshot_parts` there are.
    let count: Int
    /// The end of the text, which the snapshot's own row holds.
    let lastPart: String

    /// Whether all the parts are there (none was removed by hand meanwhile): a snapshot
    /// missing one would be refused by its checksum.
    func areWhole(_ db: Database) throws -> Bool {
      guard let partSet else { return true }
      return try Int.fetchOne(db, sql: "SELECT count(*) FROM snapshot_parts WHERE part_set = ?", arguments: [partSet])
        == count
    }

    /// Removes the parts, for a snapshot that will not be stored.
    func remove(_ db: Database) throws {
      guard let partSet else { return }
      try db.execute(sql: "DELETE FROM snapshot_parts WHERE part_set = ?", arguments: [partSet])
    }
  }

  /// Writes all of the text of `snapshot` but its last part into `snapshot_parts`, each part
  /// in a write transaction of its own after `beforeEachWrite` (by default, spaced: see
  /// ``spacedWrites()``), so that a writer on the file waits at most one part's insert for the
  /// write lock; the snapshot's row, written later, holds the last part.
  static func writeParts(
    of snapshot: HistoryLog.EncodedSnapshot, in queue: DatabaseQueue, partBytes: Int = defaultPartBytes,
    beforeEachWrite: () -> Void = spacedWrites(), stopping: () -> Bool = { false }
  ) throws -> WrittenParts {
    let ranges = snapshot.partRanges(maximumBytes: partBytes)
    let partSet = Self.partSet(writtenAt: Date())
    for (index, range) in ranges.dropLast().enumerated() {
      if stopping() { throw CancellationError() }
      beforeEachWrite()
      try queue.write { db in
        try db.execute(
          sql: "INSERT INTO snapshot_parts (part_set, part, rows) VALUES (?, ?, ?)",
          arguments: [partSet, index, snapshot.part(range)])
      }
    }
    return WrittenParts(
      partSet: ranges.count > 1 ? partSet : nil, count: ranges.count - 1, lastPart: snapshot.part(ranges.last!))
  }

  /// A name for a snapshot's parts that begins with the time they were written (milliseconds
  /// since 1970, times 1,024, plus a random number below 1,024 that sets apart two workers of
  /// the same millisecond), so that parts left behind can be told by their age.
  static func partSet(writtenAt date: Date) -> Int64 {
    Int64(date.timeIntervalSince1970 * 1_000) << 10 | Int64.random(in: 0..<1_024)
  }
}
