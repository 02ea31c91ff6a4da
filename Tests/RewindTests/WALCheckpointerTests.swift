import Foundation
import GRDB
import Testing

@testable import Rewind

/// WAL checkpoints run on the checkpointer's connection, not in the commit that sends: see
/// `WALCheckpointer`. Marks are lowered so that a few dozen sends cross them.
@MainActor
@Suite struct WALCheckpointerTests {
  let directory: TemporaryDirectory
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("journal.sqlite")
  }

  func store(marks: WALCheckpointer.Marks) throws -> JournalStore {
    let store = try JournalStore.journal(path: path)
    store.repository.checkpointer!.marks = marks
    return store
  }

  /// Sends an add titled `title` and the index for each of `indices`, each followed by the
  /// checkpointer's pass it asked for.
  func sendAdds(_ title: String, _ indices: Range<Int>, to store: JournalStore) throws {
    for index in indices {
      try store.send(.add(title: "\(title) \(index)"))
      store.repository.checkpointer!.wait()
    }
  }

  /// Expects the WAL, once a reader that pinned it is gone, to start over after `settling`
  /// commits and grow no more, and nothing to be lost.
  func expectTheWALStartsOverOnceTheReaderIsGone(
    _ store: JournalStore, settling: Int, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    try sendAdds("After", 0..<settling, to: store)
    let pinned = walPages()
    try sendAdds("Later", 0..<60, to: store)
    #expect(walPages() <= pinned, "the WAL grew from \(pinned) to \(walPages()) pages", sourceLocation: sourceLocation)
    #expect(try fileState(path) == store.state, sourceLocation: sourceLocation)
  }

  /// Sends commits past the inline mark while the pass the first asks for is held back, and
  /// expects none of them to checkpoint itself; then lets the pass go on, and waits for the
  /// passes to end.
  func expectNoCommitCheckpointsWhileAPassIsHeld(
    _ store: JournalStore, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let checkpointer = store.repository.checkpointer!
    let early = checkpointer.checkpoints.inline
    let release = DispatchSemaphore(value: 0)
    checkpointer.injectedPassDelay = { release.wait() }
    defer {
      // Cleared before the held pass goes on: the passes it runs after it must not wait.
      checkpointer.injectedPassDelay = nil
      release.signal()
      checkpointer.wait()
    }
    for index in 0..<10 { try store.send(.add(title: "While the pass waits \(index)")) }
    #expect(checkpointer.checkpoints.inline == early, "\(checkpointer.checkpoints)", sourceLocation: sourceLocation)
  }

  /// Sends 40 bursts of 25 adds, each followed by a pause (the worker's passes end), as an
  /// app's sends come; returns the most pages the WAL held after a burst.
  func sendBurstsWithPauses(to store: JournalStore) throws -> Int {
    var largest = 0
    for burst in 0..<40 {
      for index in 0..<25 { try store.send(.add(title: "Entry \(burst).\(index)")) }
      largest = max(largest, walPages())
      store.repository.checkpointer!.wait()
    }
    return largest
  }

  /// Expects of a run of ``sendBurstsWithPauses(to:)``, which committed some 2,000 pages, about
  /// 50 a burst, that passes in the pauses kept the WAL short (`largest` pages at most, after a
  /// burst) and no commit checkpointed, and that the file holds the store's state.
  func expectPassesInThePausesKeptTheWALShort(
    _ store: JournalStore, largest: Int, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let checkpoints = store.repository.checkpointer!.checkpoints
    #expect(checkpoints.inline == 0, "\(checkpoints)", sourceLocation: sourceLocation)
    #expect(largest < 400, "the WAL grew to \(largest) pages (\(checkpoints))", sourceLocation: sourceLocation)
    #expect(try fileState(path) == store.state, sourceLocation: sourceLocation)
  }

  /// Runs `body` while another thread waits for the WAL to start over, again each time it goes
  /// on (as soon as it sees no commit for a moment, which a loaded machine's slow sends leave),
  /// as a snapshot's steps do.
  func whileAReaderWaitsForTheWALToStartOver<T>(_ checkpointer: WALCheckpointer, _ body: () throws -> T) rethrows -> T {
    let readerWaits = ReadingFlag()
    let readerDone = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      while readerWaits.value {
        checkpointer.waitForWALToStartOver(atMost: .seconds(1))
        Thread.sleep(forTimeInterval: 0.000_1)
      }
      readerDone.signal()
    }
    defer {
      readerWaits.value = false
      readerDone.wait()
    }
    return try body()
  }

  /// The WAL file's size in bytes.
  func walBytes() -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber)?.int64Value ?? 0
  }

  /// The pages the WAL file holds: its header and frames of 4 KiB pages.
  func walPages() -> Int {
    let size = ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber)?.intValue ?? 0
    return max(0, (size - 32) / (4_096 + 24))
  }

  @Test func commitsPastTheMarkWakeTheWorkerAndNeverCheckpointThemselves() throws {
    let store = try store(marks: .init(backgroundPages: 10, restartPages: 1_000_000, inlinePages: 1_000_000))
    let checkpointer = store.repository.checkpointer!
    try sendAdds("Entry", 0..<150, to: store)
    #expect(checkpointer.checkpoints.background > 0)
    #expect(checkpointer.checkpoints.inline == 0)
    // Each pass copied the whole WAL while no commit ran, so the next commit started it over:
    // it never grew far past the mark, as it would with no checkpoint at all (some 450 pages).
    #expect(walPages() < 60, "the WAL grew to \(walPages()) pages")
    let state = store.state
    // Nothing was lost in the file the checkpoints wrote.
    #expect(try fileState(path) == state)
  }

  /// Sends with no pause between: passes copy the WAL while commits go on adding to it, so no
  /// commit finds it wholly copied, and it never starts over by itself. The store's commits
  /// finish passes, and past the inline mark a commit checkpoints itself, waiting for a pass
  /// under way: however slowly passes run (on a loaded machine, commits landed during each
  /// one, and the WAL grew to 7,530 pages past an inline mark of 3,000 in CI), the WAL never
  /// passes the inline mark by more than two commits' pages.
  @Test func aSteadyStreamOfSendsKeepsTheWALBounded() throws {
    // Sends never pause for 10 s, so finishing passes never run.
    let store = try store(
      marks: .init(
        backgroundPages: 10, restartPages: 40, commitFinishPages: 80, pause: .seconds(10), inlinePages: 300))
    // No automatic snapshot falls due: its read pauses checkpoints while the WAL grows.
    store.repository.snapshotSpacing = .max
    var largest = 0
    for index in 0..<3_000 {
      try store.send(index % 3 == 0 ? .add(title: "Entry \(index)") : .type(id: Int64(index % 50 + 1), text: "x"))
      largest = max(largest, walPages())
    }
    // Some 8,800 pages were committed: a WAL that never started over would hold them all. The
    // file keeps its largest size; a commit here writes a few pages.
    store.repository.checkpointer!.isPaused = true  // ends a finishing pass's wait for a pause
    store.repository.checkpointer!.wait()
    let checkpoints = store.repository.checkpointer!.checkpoints
    #expect(largest < 300 + 40, "the WAL grew to \(largest) pages past an inline mark of 300 (\(checkpoints))")
    #expect(checkpoints.background > 0)
    #expect(checkpoints.inline > 0, "no commit finished a pass")
    #expect(try fileState(path) == store.state)
  }

  /// Sends come in bursts with pauses between, as an app's do: the pass that a burst leaves
  /// past the restart mark is followed by a finishing pass, which copies the whole WAL in the
  /// pause, so the WAL starts over and no commit checkpoints (each such commit copied
  /// and synced on the sending thread, 2.5 to 4.5 ms at 100,000 tasks in the benchmark).
  @Test func finishingPassesLetTheWALStartOverInThePausesBetweenSends() throws {
    let store = try store(
      marks: .init(backgroundPages: 10, restartPages: 40, commitFinishPages: 1_000_000, inlinePages: 1_000_000))
    // No automatic snapshot falls due: its steps wait for the WAL to start over, which has the
    // store's commits finish passes.
    store.repository.snapshotSpacing = .max
    try expectPassesInThePausesKeptTheWALShort(store, largest: try sendBurstsWithPauses(to: store))
  }

  /// A snapshot's step waits for a long WAL to start over before it reads: while it waits, a
  /// finishing pass waits for a pause no longer than `marks.readerPatience` (20 ms), then the
  /// store's next commit finishes it, and the WAL starts over (found in review: with sends
  /// that never paused, each step waited its full 100 ms).
  @Test func aReaderWaitingForTheWALToStartOverHasTheNextCommitFinishThePass() throws {
    // Sends never pause for 10 s, and commits would finish nothing on their own.
    let store = try store(
      marks: .init(
        backgroundPages: 10, restartPages: 40, commitFinishPages: 1_000_000, pause: .seconds(10),
        inlinePages: 1_000_000))
    let checkpointer = store.repository.checkpointer!
    store.repository.snapshotSpacing = .max  // a snapshot due would pause checkpoints
    for index in 0..<60 { try store.send(.add(title: "Entry \(index)")) }
    #expect(checkpointer.checkpoints.inline == 0)
    // Sends until a commit finished a pass and the WAL then started over, or 3,000 of them.
    var (sent, smallest) = (0, Int32.max)
    try whileAReaderWaitsForTheWALToStartOver(checkpointer) {
      while sent < 3_000, checkpointer.checkpoints.inline == 0 || smallest >= 40 {
        try store.send(.add(title: "While waiting \(sent)"))
        sent += 1
        if checkpointer.checkpoints.inline > 0 { smallest = min(smallest, checkpointer.walPagesAfterLastCommit) }
      }
    }
    #expect(checkpointer.checkpoints.inline > 0, "no commit finished a pass for the waiting reader")
    #expect(smallest < 40, "the WAL never started over in \(sent) sends")
    #expect(try fileState(path) == store.state)
  }

  /// A reader waits for the WAL to start over (a snapshot's step) while sends come in bursts
  /// with pauses between, as an app's do: the finishing pass runs in a pause, as with no
  /// reader, and no commit finishes it (until this release one did, copying and syncing on
  /// the sending thread: 2.5 to 9 ms at 100,000 tasks in the benchmark, several times a
  /// snapshot).
  @Test func aReaderWaitingForTheWALToStartOverHasTheFinishingPassRunInAPause() throws {
    // The reader would wait for a minute before a commit is asked to finish.
    let store = try store(
      marks: .init(
        backgroundPages: 10, restartPages: 40, commitFinishPages: 1_000_000, readerPatience: .seconds(60),
        inlinePages: 1_000_000))
    store.repository.snapshotSpacing = .max
    let largest = try whileAReaderWaitsForTheWALToStartOver(store.repository.checkpointer!) {
      try sendBurstsWithPauses(to: store)
    }
    try expectPassesInThePausesKeptTheWALShort(store, largest: largest)
  }

  /// A snapshot writes each of its parts in a pause between the store's sends: the wait
  /// returns the store's commits it counted, and a pause it found lasts until the next one.
  @Test func aPauseBetweenCommitsLastsUntilTheNextCommit() throws {
    let store = try store(
      marks: .init(
        backgroundPages: 1_000_000, restartPages: 1_000_000, pause: .milliseconds(1), inlinePages: 1_000_000))
    let checkpointer = store.repository.checkpointer!
    store.repository.snapshotSpacing = .max
    try store.send(.add(title: "First"))
    let first = checkpointer.waitForPauseBetweenCommits(after: nil, atMost: .seconds(60))
    #expect(checkpointer.waitForPauseBetweenCommits(after: first, atMost: .seconds(60)) == first)
    try store.send(.add(title: "Second"))
    #expect(checkpointer.waitForPauseBetweenCommits(after: first, atMost: .seconds(60)) == first + 1)
  }

  @Test func aCommitFinishesACheckpointThatCouldNotStartTheWALOver() throws {
    let store = try store(marks: .init(backgroundPages: 10, restartPages: 40, inlinePages: 1_000_000))
    let checkpointer = store.repository.checkpointer!
    // A reader of another connection keeps the WAL from starting over: passes leave it past
    // the restart mark, finishing passes gain nothing, and the store's commits finish them.
    let reader = try DatabaseQueue(path: path)
    try reader.read { db in
      _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM action_log")
      try sendAdds("Entry", 0..<60, to: store)
    }
    #expect(checkpointer.checkpoints.inline > 0)
    // The reader gone, the next checkpoint lets the WAL start over: it grows no more.
    try expectTheWALStartsOverOnceTheReaderIsGone(store, settling: 2)
  }

  /// A pass held back by a reader leaves more than a commit should copy: the commits do not
  /// finish it (at a million tasks one copied 1.7 million pages, 1.5 s, in a send, after
  /// `rewind verify` had read for a minute); passes copy it once the reader is gone, and the
  /// WAL starts over.
  @Test func aBacklogPastTheFinishMarkIsLeftToPasses() throws {
    let store = try store(
      marks: .init(backgroundPages: 10, restartPages: 40, finishPages: 20, inlinePages: 1_000_000))
    let checkpointer = store.repository.checkpointer!
    let reader = try DatabaseQueue(path: path)
    try reader.read { db in
      _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM action_log")
      // Until the backlog passes the mark (the WAL may hold copied pages from before the
      // reader), a commit may still finish a pass, copying nothing.
      try sendAdds("Entry", 0..<20, to: store)
      let early = checkpointer.checkpoints.inline
      try sendAdds("Entry", 20..<80, to: store)
      #expect(checkpointer.checkpoints.inline == early, "\(checkpointer.checkpoints)")
      #expect(checkpointer.checkpoints.background > 0)
    }
    try expectTheWALStartsOverOnceTheReaderIsGone(store, settling: 4)
  }

  /// Past the inline mark, commits made while a pass runs checkpoint themselves, but not to
  /// copy what a reader of another connection holds back: passes copy that once it is gone
  /// (a commit would copy it all on the sending thread).
  @Test func aReadersBacklogPastTheInlineMarkIsLeftToPasses() throws {
    let store = try store(
      marks: .init(backgroundPages: 10, restartPages: 40, finishPages: 20, inlinePages: 60))
    let reader = try DatabaseQueue(path: path)
    try reader.read { db in
      _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM action_log")
      // Passes the reader holds back, one after each commit, until the WAL is past the mark.
      try sendAdds("Entry", 0..<60, to: store)
      #expect(walPages() > 120, "the WAL holds \(walPages()) pages")
      try expectNoCommitCheckpointsWhileAPassIsHeld(store)
    }
    try expectTheWALStartsOverOnceTheReaderIsGone(store, settling: 4)
  }

  /// A WAL a reader let grow past the size limit is cut back by one step each time it starts
  /// over, not at once (a 1.4 GB WAL took 0.3 to 0.9 s of a commit to cut back).
  @Test func aWALGrownPastItsSizeLimitIsCutBackInSteps() throws {
    let step: Int64 = 64 * (4_096 + 24)
    let store = try store(
      marks: .init(backgroundPages: 10, restartPages: 40, inlinePages: 60, walSizeLimit: step, walShrinkStep: step))
    let reader = try DatabaseQueue(path: path)
    try reader.read { db in
      _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM action_log")
      try sendAdds("Entry", 0..<80, to: store)
    }
    var sizes = [walBytes()]
    #expect(sizes[0] > 6 * step, "the WAL file holds \(sizes[0]) bytes")
    for index in 0..<400 where sizes.last! > 2 * step {
      try sendAdds("After", index..<index + 1, to: store)
      if walBytes() != sizes.last! { sizes.append(walBytes()) }
    }
    let cuts = zip(sizes, sizes.dropFirst()).map { $0 - $1 }
    #expect(cuts.filter { $0 > 0 }.count >= 3, "the WAL file's sizes: \(sizes)")
    #expect(cuts.allSatisfy { $0 < 2 * step }, "the WAL file's sizes: \(sizes)")
    #expect(sizes.last! <= 2 * step, "the WAL file's sizes: \(sizes)")
    #expect(try fileState(path) == store.state)
  }

  /// While a snapshot reads, checkpoints wait and the WAL grows: past the inline mark, the
  /// commits after do not copy what it held (the second would wait for the first's whole
  /// pass), passes do.
  @Test func whatASnapshotsReadHeldIsLeftToPasses() throws {
    let store = try store(marks: .init(backgroundPages: 10, restartPages: 40, inlinePages: 60))
    let checkpointer = store.repository.checkpointer!
    store.repository.snapshotSpacing = .max
    checkpointer.isPaused = true  // a snapshot reads
    try sendAdds("Entry", 0..<60, to: store)
    #expect(walPages() > 120, "the WAL holds \(walPages()) pages")
    checkpointer.isPaused = false
    try expectNoCommitCheckpointsWhileAPassIsHeld(store)
    try expectTheWALStartsOverOnceTheReaderIsGone(store, settling: 4)
  }

  @Test func commitsCheckpointThemselvesWhenTheWorkerCannotOpenTheFile() throws {
    let store = try store(marks: .init(backgroundPages: 10, restartPages: 1_000_000, inlinePages: 30))
    let checkpointer = store.repository.checkpointer!
    checkpointer.injectedPassFailure = true
    try sendAdds("Entry", 0..<200, to: store)
    #expect(checkpointer.checkpoints.background == 0)
    #expect(checkpointer.checkpoints.inline > 0)
    #expect(walPages() < 60, "the WAL grew to \(walPages()) pages")
    #expect(try fileState(path) == store.state)
  }

  /// The workers' connections do not try to checkpoint as they close: that attempt locks the
  /// file for a moment, and a connection opening meanwhile with no busy timeout (the `sqlite3`
  /// shell's default) would get "database is locked". Closing last, one leaves its WAL behind
  /// (for the next connection to use), where a plain connection moves it into the file.
  @Test func aWorkersConnectionDoesNotCheckpointAsItCloses() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("plain.sqlite")
    try DatabaseQueue(path: path).writeWithoutTransaction { db in
      _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
      try db.execute(sql: "CREATE TABLE t (x)")
    }
    #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "a plain connection closing last")
    do {
      let worker = try DatabaseFile.reopen(path: path, configuration: Configuration())
      #expect(try worker.read { DatabaseFile.skipsCheckpointOnClose($0) })
      try worker.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
    }
    #expect(FileManager.default.fileExists(atPath: path + "-wal"), "a worker's connection closing last")
    #expect(try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 1)
    // The store's own connection still does: it is the one meant to close last.
    let store = try JournalStore.journal(path: directory.path("journal.sqlite"))
    #expect(try store.repository.database.read { !DatabaseFile.skipsCheckpointOnClose($0) })
  }

  @Test func aSnapshotInAReadTransactionPausesCheckpoints() throws {
    let store = try store(marks: .init(backgroundPages: 10, restartPages: 1_000_000, inlinePages: 1_000_000))
    let checkpointer = store.repository.checkpointer!
    // The store's snapshot worker reads nothing now.
    #expect(!checkpointer.snapshotIsReading)
    try store.send(.add(title: "First"))
    checkpointer.wait()
    let before = checkpointer.checkpoints
    let connection = store.repository.database.writeWithoutTransaction { $0.sqliteConnection! }
    checkpointer.snapshotIsReading = true
    checkpointer.committed(on: connection, pages: 500)
    checkpointer.wait()
    #expect(checkpointer.checkpoints == before)
    // Read at each commit: once the snapshot's step has left its transaction, checkpoints
    // resume at the next commit.
    checkpointer.snapshotIsReading = false
    checkpointer.committed(on: connection, pages: 500)
    checkpointer.wait()
    #expect(checkpointer.checkpoints == .init(background: before.background + 1, inline: before.inline))
  }

  /// The store's snapshot worker tells the checkpointer as each of its read transactions
  /// begins and ends: an automatic snapshot's read is seen, and over once it is stored.
  @Test func theSnapshotWorkerTellsTheCheckpointerWhileItReads() throws {
    let store = try store(marks: .init(backgroundPages: 10, restartPages: 1_000_000, inlinePages: 1_000_000))
    let checkpointer = store.repository.checkpointer!
    try sendAdds("Entry", 0..<3, to: store)
    #expect(checkpointer.snapshotReadsSeen == 0)
    store.repository.worker!.startSnapshot()
    store.waitForSnapshots()
    #expect(checkpointer.snapshotReadsSeen >= 1)
    #expect(!checkpointer.snapshotIsReading)
    #expect(try store.repository.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM snapshots") } == 1)
  }

  /// A pass that copied a WAL past the restart mark while nothing was committed leaves a WAL
  /// that starts over by itself at the next commit: no commit may then still "finish" it (a
  /// stale request, found in review, made a commit a thousand pages later checkpoint them all).
  @Test func aPassThatCopiedTheWholeWALLeavesNoCheckpointForALaterCommit() throws {
    let store = try store(marks: .init(backgroundPages: 10, restartPages: 40, inlinePages: 1_000_000))
    let checkpointer = store.repository.checkpointer!
    // One commit of some 150 pages: past both marks at once.
    try store.send(.add(title: String(repeating: "x", count: 200_000)))
    checkpointer.wait()
    #expect(checkpointer.checkpoints.inline == 0)
    try sendAdds("Entry", 0..<100, to: store)
    #expect(checkpointer.checkpoints.inline == 0, "a commit checkpointed the whole WAL on the sending thread")
    #expect(try fileState(path) == store.state)
  }

  /// A request to finish a pass does not survive a snapshot's read: the WAL grows meanwhile,
  /// and a pass copies what it gained, not the first commit after (found in review).
  @Test func aCommitAfterAPauseLeavesTheGrownWALToAPass() throws {
    let store = try store(marks: .init(backgroundPages: 10, restartPages: 40, inlinePages: 1_000_000))
    let checkpointer = store.repository.checkpointer!
    try store.send(.add(title: "First"))
    let reader = try DatabaseQueue(path: path)
    try reader.read { db in
      _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM action_log")
      try store.send(.add(title: String(repeating: "x", count: 200_000)))
      checkpointer.wait()
    }
    #expect(checkpointer.checkpoints.inline == 0)
    let connection = store.repository.database.writeWithoutTransaction { $0.sqliteConnection! }
    checkpointer.isPaused = true  // a snapshot is read
    checkpointer.committed(on: connection, pages: 5_000)
    checkpointer.isPaused = false  // it is done
    checkpointer.committed(on: connection, pages: 5_000)
    checkpointer.wait()
    #expect(checkpointer.checkpoints.inline == 0, "5,000 pages checkpointed in a commit")
  }

  /// A pass that does not start (the global queues busy with an app's own work, or a sync
  /// that takes seconds) must not let the WAL grow without bound (found in review): past the
  /// inline mark, commits checkpoint themselves.
  @Test func aPassHeldBackLetsCommitsBoundTheWAL() throws {
    let store = try store(marks: .init(backgroundPages: 10, restartPages: 1_000_000, inlinePages: 60))
    let checkpointer = store.repository.checkpointer!
    try store.send(.add(title: "First"))
    checkpointer.wait()
    let release = DispatchSemaphore(value: 0)
    checkpointer.injectedPassDelay = { release.wait() }
    var largest = 0
    for index in 0..<400 {
      try store.send(.add(title: "Entry \(index) " + String(repeating: "w", count: 500)))
      largest = max(largest, walPages())
    }
    // Cleared before the held pass goes on: the passes it runs after it must not wait.
    checkpointer.injectedPassDelay = nil
    release.signal()
    checkpointer.wait()
    // Some 500 pages were committed while the pass waited.
    #expect(largest < 200, "the WAL grew to \(largest) pages past an inline mark of 60")
    #expect(checkpointer.checkpoints.inline > 0)
    #expect(try fileState(path) == store.state)
  }

  @Test func aReleasedStoreLeavesTheFileWholeWithNoWAL() throws {
    var store: JournalStore? = try store(
      marks: .init(backgroundPages: 10, restartPages: 40, inlinePages: 1_000_000))
    for index in 0..<300 { try store!.send(.add(title: "Entry \(index)")) }
    let state = store!.state
    store = nil
    // The checkpointer's connection is closed with its store: the store's, the last, moved the
    // WAL into the file and removed it.
    #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    #expect(try fileState(path) == state)
  }
}

/// A flag a test sets on one thread while another reads it (the checkpointer, from its
/// commits, or a reader waiting for the WAL to start over).
private final class ReadingFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var reading = true
  var value: Bool {
    get { lock.withLock { reading } }
    set { lock.withLock { reading = newValue } }
  }
}
