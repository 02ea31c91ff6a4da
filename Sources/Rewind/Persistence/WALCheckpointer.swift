import Dispatch
import Foundation
import GRDB
import GRDBSQLite

/// Runs a store's WAL checkpoints on a connection of its own, off the thread that sends.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the WAL past 1,000 pages:
/// that commit copies the WAL into the file and syncs both, 7 to 10 ms here, once every two
/// hundred actions or so, on the main actor. This replaces it (a WAL hook on the store's
/// connection takes the place of `PRAGMA wal_autocheckpoint`):
///
/// - Past `marks.backgroundPages`, the commit only wakes this worker, which runs a passive
///   checkpoint on its own connection: it copies the pages and syncs the file while the store
///   goes on writing.
/// - A passive checkpoint cannot start the WAL over while a writer keeps adding to it: the
///   WAL starts over at a commit that finds it wholly copied, and a pass copies the WAL as it
///   was when it began, not the commits that land while it copies. Once a pass leaves the WAL
///   past `marks.restartPages` with pages uncopied (those commits', or a reader's), a
///   finishing pass waits for a pause between sends (an app's sends leave pauses, as do the
///   benchmark's blocks) and copies the pages written since; the next commit then starts the
///   WAL over, having copied and synced nothing itself. Where no pause comes before the WAL
///   passes `marks.commitFinishPages`, a reader of another connection holds back three passes
///   in a row, each after a commit, or a snapshot's step has waited `marks.readerPatience`
///   for the WAL to start over with no pause, the store's next commit finishes instead: it
///   copies the pages written since the last pass, and syncs, on the sending thread (2.5 to
///   4.5 ms at 100,000 tasks here, once every 1,000 pages when commits always did). A pass
///   that leaves more than `marks.finishPages` uncopied is followed by more passes instead,
///   while they gain. Under a stream of sends,
///   the WAL grows past SQLite's own mark only up to `marks.commitFinishPages`: each frame a
///   commit appends is entered in the WAL's index past every earlier frame of the same page,
///   and the pages every commit writes (the log's last page, the undo stack's) are there
///   once per commit since the WAL started over, so a commit's cost grows with the WAL's
///   length (at 4,000 pages, 1,400 instructions more per send).
/// - If passes fail (the worker cannot open the file, say), or do not keep up (a pass not
///   started: the global queues busy, a slow sync; or commits outrunning passes on a loaded
///   machine), commits past `marks.inlinePages` checkpoint themselves, waiting for a pass
///   under way: the WAL stays bounded, as with SQLite's own. What a reader held back (one of
///   another connection, or the store's snapshot while checkpoints waited) is left to passes
///   until the WAL doubles: a commit would copy it all on the sending thread.
///
/// While the store's snapshot is in a read transaction, the WAL cannot start over, and any
/// checkpoint would copy and sync in vain: the snapshot says so (``snapshotIsReading``), and
/// commits wait meanwhile, not between the snapshot's steps nor while its parts are written.
/// Before each step the snapshot waits for a WAL past `marks.restartPages` to start over
/// (``waitForWALToStartOver(atMost:)``), so that under a steady stream of sends the WAL stays
/// about as short as with no snapshot under way.
final class WALCheckpointer: @unchecked Sendable {
  /// The WAL sizes, in pages, at which checkpoints run.
  struct Marks: Sendable {
    /// A commit past it wakes the worker: SQLite's own automatic checkpoint mark.
    var backgroundPages: Int32 = 1_000
    /// A pass that leaves the WAL past it is followed by a finishing pass in the next pause
    /// between sends: the WAL starts over about as often as with SQLite's own checkpoint.
    var restartPages: Int32 = 1_000
    /// Sends with no pause (see `pause`) until the WAL passes it leave the store's next commit
    /// to finish (never past `inlinePages`): twice SQLite's mark, where a commit costs some
    /// 500 instructions more than at 1,000 pages.
    var commitFinishPages: Int32 = 2_000
    /// No commit for this long is a pause, in which a finishing pass runs.
    var pause: Duration = .microseconds(500)
    /// How long a finishing pass waits for a pause while a reader waits for the WAL to start
    /// over (a snapshot's step, see ``waitForWALToStartOver(atMost:)``) before it leaves the
    /// store's next commit to finish: sends that never pause cannot keep the reader waiting
    /// longer, and sends with pauses between, an app's, never finish a pass themselves.
    var readerPatience: Duration = .milliseconds(20)
    /// The most pages a pass may leave uncopied for a commit to finish: past it (a reader of
    /// another connection held the pass back, and the WAL grew by a million pages while
    /// `rewind verify` read), another pass copies them, off the store's thread; a commit that
    /// finished them took 1.5 s.
    var finishPages: Int32 = 1_000
    /// A commit past it checkpoints itself when passes fail or do not keep up, after the pass
    /// under way: the WAL passes it by two commits' pages at most, but for what a reader
    /// holds (see `readerBacklog`) and while another connection checkpoints.
    var inlinePages: Int32 = 16_000
    /// The size, in bytes, the WAL file is cut back to when it starts over (SQLite's
    /// `journal_size_limit`, which the store's connection opens with).
    var walSizeLimit: Int64 = Durability.walSizeLimit
    /// The most bytes one start-over cuts from a WAL file grown past `walSizeLimit`.
    var walShrinkStep: Int64 = 128 * 1_024 * 1_024
  }

  private let path: String
  private let configuration: Configuration
  private let lock = NSLock()
  private let group = DispatchGroup()
  /// The worker's connection, opened at its first pass; used on the worker's thread only.
  private var connection: DatabaseQueue?
  private var running = false
  /// A commit asked for a pass while one ran: the worker runs another after it.
  private var requestedAgain = false
  /// Finishing passes could not copy the whole WAL (no pause came before
  /// `marks.commitFinishPages`, passes were held back, or a reader waits for the WAL to start
  /// over): the store's next commit finishes it.
  private var restartWanted = false
  /// Readers waiting in ``waitForWALToStartOver(atMost:)``: while there are some, the store's
  /// next commit finishes a pass, rather than a finishing pass waiting for a pause.
  private var readersWaitingForRestart = 0
  /// The WAL's size when the pass that set `restartWanted` ended: a smaller one has started
  /// over since, and there is nothing left to finish.
  private var restartLog: Int32 = 0
  /// The WAL's size when a reader last held checkpoints back (one of another connection, or
  /// the store's snapshot, while checkpoints wait), since the WAL last started over: once the
  /// reader is gone, passes copy what it held, not a commit (a commit that finished a
  /// million pages took 1.5 s), unless the WAL doubles meanwhile.
  private var readerBacklog: Int32 = 0
  /// A commit past `marks.inlinePages` waits for the pass under way: the run ends after it.
  private var commitWaits = false
  /// Held by the worker through each pass: a commit that checkpoints itself past
  /// `marks.inlinePages` waits for the pass under way rather than fail on its lock.
  private let passLock = NSLock()
  /// The last pass failed (the file could not be opened, say): the store's commits
  /// checkpoint themselves past `marks.inlinePages`.
  private var passFailed = false
  private var stopped = false
  private var paused = false
  private var counts = Counts()
  private var marksValue = Marks()
  /// The WAL's pages after the store's last commit.
  private var walPages: Int32 = 0
  /// How many commits the store made.
  private var commits = 0
  /// How many times the WAL started over: seen by a commit's pages being fewer than the last
  /// one's, or a pass's copied pages fewer than the last pass's.
  private var restarts = 0
  /// The pages the last pass copied: one that copies no more gained nothing.
  private var lastCopied: Int32 = -1
  /// Passes in a row, each after a commit of the store, that a reader of another connection
  /// held back.
  private var heldBack = 0
  /// The store's commits when the last pass was judged.
  private var commitsAtLastPass = -1
  /// The `journal_size_limit` of the store's connection, and the bytes of a WAL frame (a
  /// page and its header).
  private var sizeLimit = Durability.walSizeLimit
  private var frameBytes: Int64 = 4_096 + 24
  /// The most bytes the WAL file may hold, as the store's commits saw it grow, less
  /// `marks.walShrinkStep` for each start-over since.
  private var walFileBytes: Int64 = 0

  /// How many checkpoints ran where: for tests and the benchmark.
  struct Counts: Equatable, Sendable {
    /// Passes on the worker's connection.
    var background = 0
    /// Checkpoints run in a store's commit.
    var inline = 0
  }

  init(path: String, configuration: Configuration) {
    self.path = path
    self.configuration = configuration
  }

  /// The WAL sizes at which checkpoints run; tests lower them.
  var marks: Marks {
    get { lock.withLock { marksValue } }
    set { lock.withLock { marksValue = newValue } }
  }

  /// The checkpoints run so far.
  var checkpoints: Counts { lock.withLock { counts } }

  /// The pages the WAL held after the store's last commit: for tests.
  var walPagesAfterLastCommit: Int32 { lock.withLock { walPages } }

  /// Whether checkpoints wait, besides while ``snapshotIsReading`` says so: for tests.
  var isPaused: Bool {
    get { lock.withLock { paused } }
    set { lock.withLock { paused = newValue } }
  }

  /// Whether the store's snapshot is in a read transaction, which keeps the WAL from starting
  /// over: checkpoints wait meanwhile. The snapshot's worker sets it as each of its steps
  /// begins and ends its transaction, between a store's writes; each commit and each pass read
  /// it. (Set rather than asked: a question to the worker at every commit took its lock and a
  /// weak reference, about 300 instructions a send.)
  var snapshotIsReading: Bool {
    get { lock.withLock { snapshotReading } }
    set {
      lock.withLock {
        if newValue, !snapshotReading { snapshotReadsBegun += 1 }
        snapshotReading = newValue
      }
    }
  }
  private var snapshotReading = false
  private var snapshotReadsBegun = 0

  /// How many of the snapshot's read transactions have begun: for tests.
  var snapshotReadsSeen: Int { lock.withLock { snapshotReadsBegun } }

  /// Whether checkpoints wait now; called with the lock held.
  private var waiting: Bool { paused || snapshotReading }

  /// Makes this checkpointer the one of `db`, the store's connection, in place of SQLite's
  /// automatic checkpoint. ``uninstall(from:)`` must run before the checkpointer is released.
  func install(on db: Database) {
    if let pageSize = try? Int64.fetchOne(db, sql: "PRAGMA page_size") {
      lock.withLock { frameBytes = pageSize + 24 }
    }
    sqlite3_wal_hook(db.sqliteConnection, walHook, Unmanaged.passUnretained(self).toOpaque())
  }

  /// Makes the commits of `db`, the connection that stores the store's snapshot, known to
  /// this checkpointer: they wake passes as the store's do, and take the place of SQLite's
  /// automatic checkpoint there too (which ran in a snapshot's write and synced the file on
  /// its thread, beside the passes). ``uninstall(from:)`` must run before the checkpointer is
  /// released.
  func watchCommits(of db: Database) {
    sqlite3_wal_hook(db.sqliteConnection, otherWALHook, Unmanaged.passUnretained(self).toOpaque())
  }

  /// Removes the hook from `db`: its commits no longer checkpoint at all.
  func uninstall(from db: Database) {
    sqlite3_wal_hook(db.sqliteConnection, nil, nil)
  }

  /// Called after each commit on the store's connection, on its thread, with the pages the
  /// WAL holds.
  func committed(on connection: OpaquePointer, pages: Int32) {
    enum Action { case none, background, inline }
    var newSizeLimit: Int64?
    defer {
      // In the hook SQLite allows any statement on the connection: its commit is over.
      if let newSizeLimit { sqlite3_exec(connection, "PRAGMA journal_size_limit = \(newSizeLimit)", nil, nil, nil) }
    }
    let action = lock.withLock { () -> Action in
      let paused = waiting
      if pages < walPages { walStartedOver() }
      newSizeLimit = nextSizeLimit(pages: pages, startedOver: pages < walPages)
      (walPages, commits) = (pages, commits + 1)
      // A request to finish is dropped once the WAL has started over, and by a snapshot's
      // read: the WAL grows meanwhile, and a pass (not a commit) copies what it gained, as it
      // does what another connection's reader holds.
      if restartWanted, paused || pages < restartLog { restartWanted = false }
      if paused { readerBacklog = pages }
      if paused || stopped || pages < marksValue.backgroundPages { return .none }
      // Passes that have not kept up: they failed, or they run and the WAL is still past the
      // mark (they did not start, or commits outran them), and not for a reader's backlog.
      let behind =
        pages >= marksValue.inlinePages && (passFailed || (running && pages >= 2 * readerBacklog))
      if (restartWanted && !running) || behind {
        // The run under way ends after its pass, rather than take the lock again first.
        (restartWanted, commitWaits) = (false, running)
        return .inline
      }
      return claimPasses() ? .background : .none
    }
    switch action {
    case .none:
      return
    case .inline:
      // The worker's pass under way would hold the checkpoint lock: the commit waits for it,
      // so that the WAL stays bounded however slowly passes run. (Another connection's
      // checkpoint fails this one at once; that loses nothing: the WAL stays, and the next
      // commit tries again.)
      let code = passLock.withLock { sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil) }
      lock.withLock {
        commitWaits = false
        if code == SQLITE_OK { counts.inline += 1 }
      }
    case .background:
      startPasses()
    }
  }

  /// Called after each commit of a connection ``watchCommits(of:)`` watches, on its thread,
  /// with the pages the WAL holds: it wakes passes, never checkpoints itself, and is no send
  /// (no commit of the store's: see ``waitForPauseBetweenCommits(after:atMost:)``).
  func committedElsewhere(pages: Int32) {
    let start = lock.withLock { () -> Bool in
      if pages < walPages { walStartedOver() }
      walPages = pages
      if waiting || stopped || pages < marksValue.backgroundPages { return false }
      return claimPasses()
    }
    if start { startPasses() }
  }

  /// The `journal_size_limit` the store's connection is to have after a commit that left the
  /// WAL with `pages`, the first after it `startedOver`, when it changes. Called with the lock
  /// held.
  ///
  /// SQLite cuts the WAL file back to the limit in the first commit after the WAL starts over.
  /// A WAL a reader held grows past it (to 1.4 GB, in a compaction at 100,000 tasks while the
  /// store sent), and cutting that back at once took 0.3 to 0.9 s of the sending thread here
  /// (the file system frees, and discards, every block). So while the file is that large the
  /// limit stays one `marks.walShrinkStep` under it, and each start-over cuts one step (1.4 GB
  /// took 0.3 to 0.46 s on a quiet machine: some 30 to 40 ms a step) until the file is back at
  /// `marks.walSizeLimit`.
  private func nextSizeLimit(pages: Int32, startedOver: Bool) -> Int64? {
    let step = max(1, marksValue.walShrinkStep)
    if startedOver { walFileBytes -= step }
    walFileBytes = max(walFileBytes, Int64(pages) * frameBytes)
    let wanted = max(marksValue.walSizeLimit, (walFileBytes - step) / step * step)
    guard wanted != sizeLimit else { return nil }
    sizeLimit = wanted
    return wanted
  }

  /// Whether a run of passes is to start: none runs. Otherwise the one under way is asked for
  /// another pass. Called with the lock held.
  private func claimPasses() -> Bool {
    if running {
      requestedAgain = true
      return false
    }
    running = true
    return true
  }

  /// Runs passes on a global queue, claimed by ``claimPasses()``.
  private func startPasses() {
    group.enter()
    DispatchQueue.global(qos: .utility).async { [self] in
      runPasses()
      group.leave()
    }
  }

  /// Checkpoints until no commit asked for another pass meanwhile, no pass left more than
  /// `marks.finishPages` behind while it still made progress, and no finishing pass is due.
  private func runPasses() {
    var finishing = false
    while true {
      if finishing, !waitForPause() { return }
      let before = lock.withLock { (commits: commits, restarts: restarts, walPages: walPages) }
      let outcome = try? pass()
      // Another connection is checkpointing: give it a moment rather than spin on its lock.
      if outcome != nil, outcome?.copied == nil { Thread.sleep(forTimeInterval: 0.001) }
      let again = lock.withLock { () -> Bool in
        let paused = waiting
        passFailed = outcome == nil
        var progressing = false
        finishing = false
        if let outcome, let copied = outcome.copied {
          counts.background += 1
          if copied < lastCopied { walStartedOver() }
          // The pass copied the WAL as it was when it began. The store's commits since are past
          // that, uncopied, unless one of them found it wholly copied and started it over;
          // else no commit will, and the WAL grows until one finishes a pass (it did, with
          // commits landing during every pass: to 7,530 pages on a loaded machine).
          let logPages =
            commits != before.commits && restarts == before.restarts
            ? max(outcome.walPages, walPages) : outcome.walPages
          let uncopied = logPages - copied
          // A WAL this large has not started over for a while: writers never let it. Much
          // left uncopied, another pass copies it as long as passes gain (a reader of another
          // connection may hold them all back). A little, a finishing pass copies it in the
          // next pause; where none comes (soon enough for a reader waiting for the WAL to
          // start over), or passes are held back, the store's next commit finishes it.
          if logPages >= marksValue.restartPages, uncopied > 0 {
            let gained = copied != lastCopied
            // Only a reader leaves a pass less than the WAL it saw. The store's own holds it at
            // the end of the store's last commit, in the moment its next commit ends (a loaded
            // machine may pause it there); one of another connection may hold it anywhere, and
            // once the store has committed since, it is no reader of the store's.
            let heldByReader = !gained && copied < min(outcome.walPages, before.walPages)
            if heldByReader { readerBacklog = max(readerBacklog, outcome.walPages) }
            if heldByReader, commits == commitsAtLastPass {
              // Held back again with no commit since: the next commit asks for a pass.
            } else {
              (heldBack, commitsAtLastPass) = (heldByReader ? heldBack + 1 : 0, commits)
              if uncopied > marksValue.finishPages {
                progressing = gained
              } else if heldBack < Self.finishingTriesHeldBack, !commitMustFinish(atPages: logPages) {
                finishing = true
              } else {
                (restartWanted, restartLog) = (true, logPages)
              }
            }
          } else {
            heldBack = 0
          }
          lastCopied = copied
        }
        // Once the store's next commit is to finish, another pass would only keep it waiting.
        let again =
          (requestedAgain || progressing || finishing) && !restartWanted && !commitWaits && !stopped && !paused
        requestedAgain = false
        if !again { running = false }
        return again
      }
      guard again else { return }
    }
  }

  /// Forgets what was learned of the WAL before it started over. Called with the lock held.
  private func walStartedOver() {
    restarts += 1
    (readerBacklog, lastCopied, heldBack) = (0, -1, 0)
  }

  /// Whether the store's next commit is to finish a pass rather than a finishing pass wait for
  /// a pause: the WAL holds `pages`, at or past the commit-finish mark (never past the mark
  /// where commits checkpoint themselves anyway), or a reader has waited for it to start over
  /// for `marks.readerPatience` of the pass's `wait` with no pause. Read with the lock held.
  private func commitMustFinish(atPages pages: Int32, waited wait: Duration = .zero) -> Bool {
    pages >= min(marksValue.commitFinishPages, marksValue.inlinePages)
      || (readersWaitingForRestart > 0 && wait >= marksValue.readerPatience)
  }

  /// How many passes in a row, each after a commit of the store, a reader may hold back
  /// before the store's next commit is asked to finish instead.
  static let finishingTriesHeldBack = 3

  /// Waits for a pause between the store's commits, for a finishing pass. Returns `false`,
  /// with the worker's run ended, when it is to stop or wait, and also, with the store's next
  /// commit asked to finish, when the WAL passes the mark first or a reader has waited for it
  /// to start over for `marks.readerPatience`.
  private func waitForPause() -> Bool {
    let start = ContinuousClock.now
    var (seen, since) = (lock.withLock { commits }, start)
    while true {
      Thread.sleep(forTimeInterval: 0.000_1)
      let outcome = lock.withLock { () -> Bool? in
        if stopped || waiting {
          running = false
          return false
        }
        if commitMustFinish(atPages: walPages, waited: ContinuousClock.now - start) {
          (restartWanted, restartLog, running) = (true, walPages, false)
          return false
        }
        if commits != seen {
          (seen, since) = (commits, ContinuousClock.now)
          return nil
        }
        return ContinuousClock.now - since >= marksValue.pause ? true : nil
      }
      if let outcome { return outcome }
    }
  }

  /// What a pass found: the pages the WAL holds (all it ever held since it last started over,
  /// copied or not), and how many of them are copied into the file, or `nil` when another
  /// connection's checkpoint held the lock (the `rewind` tool's commits checkpoint as SQLite's
  /// do): that pass did nothing, and is no failure.
  struct PassOutcome {
    var walPages: Int32
    var copied: Int32?
  }

  /// Makes every pass fail, as if the file could not be opened: for tests.
  var injectedPassFailure: Bool {
    get { lock.withLock { failingPasses } }
    set { lock.withLock { failingPasses = newValue } }
  }
  private var failingPasses = false

  /// Run by each pass before it starts, on the worker's thread: tests hold passes back with it,
  /// as busy global queues or a slow sync would.
  var injectedPassDelay: (@Sendable () -> Void)? {
    get { lock.withLock { passDelay } }
    set { lock.withLock { passDelay = newValue } }
  }
  private var passDelay: (@Sendable () -> Void)?

  /// One passive checkpoint on the worker's connection.
  private func pass() throws -> PassOutcome {
    injectedPassDelay?()
    if injectedPassFailure { throw RewindError(.fileNotFound, "injected failure") }
    if connection == nil { connection = try DatabaseFile.reopen(path: path, configuration: configuration) }
    passLock.lock()
    defer { passLock.unlock() }
    return try connection!.writeWithoutTransaction { db in
      var (pages, copied): (Int32, Int32) = (0, 0)
      let code = sqlite3_wal_checkpoint_v2(db.sqliteConnection, nil, SQLITE_CHECKPOINT_PASSIVE, &pages, &copied)
      if code == SQLITE_BUSY { return PassOutcome(walPages: lock.withLock { walPages }, copied: nil) }
      guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
      return PassOutcome(walPages: pages, copied: copied)
    }
  }

  /// Blocks until no pass is under way.
  func wait() { group.wait() }

  /// Waits, at most `limit`, while the store's WAL is past `marks.restartPages` and the store
  /// goes on committing: called by a reader about to begin a read transaction, which would
  /// keep the WAL from starting over. The store's commits meanwhile checkpoint it, and the one
  /// after starts it over. A store that stopped committing does not start it over until it
  /// commits again, so the reader goes on then.
  func waitForWALToStartOver(atMost limit: Duration = .milliseconds(100)) {
    let deadline = ContinuousClock.now + limit
    var seen = lock.withLock {
      readersWaitingForRestart += 1
      return commits
    }
    defer { lock.withLock { readersWaitingForRestart -= 1 } }
    while ContinuousClock.now < deadline {
      Thread.sleep(forTimeInterval: 0.000_5)
      let (long, latest) = lock.withLock { (walPages >= marksValue.restartPages && !stopped, commits) }
      guard long, latest != seen else { return }
      seen = latest
    }
  }

  /// Waits, at most `limit`, for a pause between the store's commits (none for
  /// `marks.pause`) with the WAL short of `marks.restartPages` or wholly copied (see
  /// ``walIsShortOrCopied``), and returns the commits
  /// counted then: passed back as `previous`, it says that the pause lasts while no commit
  /// came since. Called by the store's snapshot before each of its writes (on a connection
  /// ``watchCommits(of:)`` watches), so that sends seldom find the write lock held, and the
  /// snapshot's pages do not keep a finishing pass from starting the WAL over: it writes
  /// again once the WAL has.
  func waitForPauseBetweenCommits(after previous: Int?, atMost limit: Duration) -> Int {
    let start = ContinuousClock.now
    var (seen, since, short) = lock.withLock { (commits, start, walIsShortOrCopied) }
    if seen == previous, short { return seen }
    while true {
      Thread.sleep(forTimeInterval: 0.000_1)
      let (latest, done) = lock.withLock { () -> (Int, Bool) in
        short = walIsShortOrCopied
        return (commits, stopped)
      }
      let now = ContinuousClock.now
      if latest != seen { (seen, since) = (latest, now) }
      if done || (short && now - since >= marksValue.pause) || now - start >= limit { return seen }
    }
  }

  /// Whether the WAL is short of `marks.restartPages`, or wholly copied by the last pass, so
  /// that the next write starts it over. Read with the lock held.
  private var walIsShortOrCopied: Bool {
    walPages < marksValue.restartPages || (!running && lastCopied >= walPages)
  }

  /// Waits for the pass under way, then closes the worker's connection: once its store is
  /// released, nothing of it holds the file open.
  func stop() {
    lock.withLock { stopped = true }
    group.wait()
    connection = nil
  }
}

/// The WAL hook of a connection that stores the store's snapshot (see
/// ``WALCheckpointer/watchCommits(of:)``).
private func otherWALHook(
  _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ pages: Int32
) -> Int32 {
  guard let context else { return SQLITE_OK }
  Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committedElsewhere(pages: pages)
  return SQLITE_OK
}

/// The WAL hook: SQLite calls it after each commit on the store's connection.
private func walHook(
  _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ pages: Int32
) -> Int32 {
  guard let context, let connection else { return SQLITE_OK }
  Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(on: connection, pages: pages)
  return SQLITE_OK
}
