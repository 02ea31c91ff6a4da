import Foundation
import GRDB
import Testing

@testable import Rewind

/// The WAL index's head as read from the `-shm` file agrees with what SQLite itself says of
/// the WAL, and the wait between two of `verify`'s reads ends for the reason it says: the WAL
/// started over (or is copied), no writer is there, or patience ran out.
struct WALIndexHeaderTests {
  /// A file in WAL mode with a table to fill, opened on a connection that never checkpoints
  /// by itself (SQLite's automatic checkpoint off) and waits for the write lock.
  private func walFile(_ directory: TemporaryDirectory) throws -> (path: String, queue: DatabaseQueue) {
    let path = directory.path("wal.sqlite")
    let queue = try DatabaseQueue(path: path, configuration: Self.waitingConfiguration)
    try queue.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA journal_mode = WAL")
      try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
      try db.execute(sql: "CREATE TABLE filler (bytes BLOB)")
    }
    return (path, queue)
  }

  private static var waitingConfiguration: Configuration {
    var configuration = Configuration()
    configuration.busyMode = .timeout(30)
    return configuration
  }

  /// Adds `pages` WAL frames or more, uncopied, in one commit.
  private func grow(_ queue: DatabaseQueue, pages: Int) throws {
    try queue.write { db in try db.execute(sql: "INSERT INTO filler VALUES (zeroblob(?))", arguments: [pages * 4_096]) }
  }

  private func header(_ path: String) throws -> WALIndexHeader {
    let handle = try #require(FileHandle(forReadingAtPath: path + "-shm"))
    defer { try? handle.close() }
    return try #require(WALIndexHeader.read(from: handle))
  }

  /// The wait, with no idle WAL known.
  private func wait(_ path: String, _ patience: WALIndexHeader.Patience) -> WALIndexHeader.WaitOutcome {
    var idle: WALIndexHeader?
    return WALIndexHeader.waitForTheWALToStartOver(ofDatabaseAt: path, patience: patience, idle: &idle)
  }

  /// Patience that never runs out in a test, however loaded the machine: the outcome says why
  /// the wait ended.
  private let unhurried = WALIndexHeader.Patience(most: .seconds(60), idle: .seconds(60))

  @Test func theHeaderSaysWhatSQLiteSaysOfTheWAL() throws {
    let directory = try TemporaryDirectory()
    let (path, queue) = try walFile(directory)
    let before = try header(path)
    for _ in 0..<10 { try grow(queue, pages: 3) }
    let grown = try header(path)
    #expect(grown.commits &- before.commits >= 10, "\(before) then \(grown)")
    #expect(grown.frames >= before.frames + 30)
    #expect(grown.copied == 0)
    // (busy, frames in the WAL, frames copied), as SQLite counts them.
    let checkpoint = try #require(
      try queue.writeWithoutTransaction { db in try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)") })
    let copied = try header(path)
    #expect(Int(grown.frames) == checkpoint[1] as Int)
    #expect(Int(copied.frames) == checkpoint[1] as Int)
    #expect(Int(copied.copied) == checkpoint[2] as Int)
    #expect(copied.copied == copied.frames)
    // Wholly copied, the next commit starts the WAL over.
    try grow(queue, pages: 1)
    let startedOver = try header(path)
    #expect(startedOver.frames < 10, "\(startedOver)")
    #expect(startedOver.copied == 0)
    try queue.close()
  }

  @Test func aShortWALOrNoIndexIsNoReasonToWait() throws {
    let directory = try TemporaryDirectory()
    let (path, queue) = try walFile(directory)
    try grow(queue, pages: 10)
    #expect(wait(path, unhurried) == .short)
    // A file in rollback-journal mode has no WAL index.
    let journal = directory.path("journal.sqlite")
    let other = try DatabaseQueue(path: journal)
    try other.write { db in try db.execute(sql: "CREATE TABLE t (x)") }
    #expect(wait(journal, unhurried) == .noIndex)
    try queue.close()
    try other.close()
  }

  @Test func aLongWALWhollyCopiedIsNoReasonToWait() throws {
    let directory = try TemporaryDirectory()
    let (path, queue) = try walFile(directory)
    try grow(queue, pages: 1_200)
    try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
    #expect(try header(path).frames >= WALIndexHeader.longWAL)
    #expect(wait(path, unhurried) == .copied)
    try queue.close()
  }

  /// A long WAL no one writes to or copies: waiting would gain nothing.
  @Test func aLongWALWithNoWriterEndsTheWaitOnceIdle() throws {
    let directory = try TemporaryDirectory()
    let (path, queue) = try walFile(directory)
    try grow(queue, pages: 1_200)
    let patience = WALIndexHeader.Patience(most: .seconds(60), idle: .milliseconds(30))
    var idle: WALIndexHeader?
    #expect(WALIndexHeader.waitForTheWALToStartOver(ofDatabaseAt: path, patience: patience, idle: &idle) == .idle)
    #expect(idle == (try header(path)))
    // Known idle and unchanged, the next wait ends at once: with no patience at all, it would
    // otherwise end for that.
    let none = WALIndexHeader.Patience(most: .zero, idle: .seconds(60))
    #expect(WALIndexHeader.waitForTheWALToStartOver(ofDatabaseAt: path, patience: none, idle: &idle) == .idle)
    // A commit since: the wait looks again (and, nothing moving while it does, finds the new
    // WAL idle).
    let known = idle
    try grow(queue, pages: 1)
    #expect(WALIndexHeader.waitForTheWALToStartOver(ofDatabaseAt: path, patience: none, idle: &idle) == .idle)
    #expect(idle != known)
    #expect(idle == (try header(path)))
    try queue.close()
  }

  /// A WAL left long and uncopied by connections that closed without copying it is recovered
  /// by the next to open it: its index then says a checkpoint copies (`copying` past
  /// `copied`), and nothing changes. No writer is there: the wait finds it idle.
  @Test func aRecoveredWALIsIdle() throws {
    let directory = try TemporaryDirectory()
    let (path, queue) = try walFile(directory)
    try queue.close()
    let writer = try DatabaseFile.reopen(path: path, configuration: Self.waitingConfiguration)
    try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
    try grow(writer, pages: 1_200)
    try writer.close()
    let reader = try DatabaseQueue(path: path)
    _ = try reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM filler") }
    let recovered = try header(path)
    #expect(recovered.frames >= WALIndexHeader.longWAL)
    #expect(recovered.copying > recovered.copied, "\(recovered)")
    let patience = WALIndexHeader.Patience(most: .milliseconds(100), idle: .seconds(60))
    #expect(wait(path, patience) == .idle)
    try reader.close()
  }

  /// A writer with SQLite's own automatic checkpoint copies a long WAL at its next commit and
  /// starts it over at the one after: the wait ends then, however long that takes here.
  @Test func aWriterStartingTheWALOverEndsTheWait() throws {
    let directory = try TemporaryDirectory()
    let (path, queue) = try walFile(directory)
    try grow(queue, pages: 1_200)
    let writer = PacedWriter(path: path)
    defer { writer.stop() }
    let outcome = wait(path, unhurried)
    #expect(outcome == .short || outcome == .copied, "\(outcome)")
    let after = try header(path)
    #expect(after.frames < WALIndexHeader.longWAL || after.copied >= after.frames, "\(after)")
    #expect(writer.failure == nil)
    try queue.close()
  }

  /// A reader of another connection holds the WAL: the writer's checkpoints cannot copy what
  /// it commits after the read began, and the wait ends when patience runs out.
  @Test func aWALHeldByAReaderEndsTheWaitWhenPatienceRunsOut() throws {
    let directory = try TemporaryDirectory()
    let (path, queue) = try walFile(directory)
    try grow(queue, pages: 10)
    let reader = try DatabaseQueue(path: path)
    let (outcome, before, after) = try reader.read { db in
      _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM filler")
      try grow(queue, pages: 1_200)
      let writer = PacedWriter(path: path)
      defer { writer.stop() }
      let before = try header(path)
      let patience = WALIndexHeader.Patience(most: .milliseconds(300), idle: .seconds(60))
      let outcome = wait(path, patience)
      #expect(writer.failure == nil)
      return (outcome, before, try header(path))
    }
    // (Had the writer stopped, nothing would have changed: the wait would find the WAL idle.)
    #expect(after.commits != before.commits)
    #expect(outcome == .patienceRanOut)
    try reader.close()
    try queue.close()
  }
}
