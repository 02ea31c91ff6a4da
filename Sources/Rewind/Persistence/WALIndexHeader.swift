import Foundation

/// The head of a database's WAL index (its `-shm` file), as any process may read it: how long
/// the WAL is, how much of it is copied into the file, and a count of the commits.
///
/// The layout is SQLite's, for the unix and windows file systems
/// (<https://www.sqlite.org/walformat.html>, "The WAL-Index Format"): two copies of a 48-byte
/// header, then the checkpoint information. Integers are in the byte order of the machine that
/// wrote them, this one's. Read without SQLite's locks, it may be caught mid-update: good for a
/// guess about what a writer does (``waitForTheWALToStartOver(ofDatabaseAt:patience:idle:)``),
/// never for a decision that matters to the data.
struct WALIndexHeader: Equatable {
  /// Counts the transactions committed (`iChange`): it changes when a writer commits.
  var commits: UInt32
  /// The frames in the WAL (`mxFrame`): 0 once it starts over.
  var frames: UInt32
  /// The frames a checkpoint has copied into the file (`nBackfill`).
  var copied: UInt32
  /// The frames the last checkpoint set out to copy (`nBackfillAttempted`): past `copied`
  /// while one copies, and also after one failed, or once SQLite has recovered the WAL (a
  /// connection opening it after the last one closed without copying it).
  var copying: UInt32

  /// The bytes read: both header copies and the checkpoint information up to
  /// `nBackfillAttempted`.
  private static let length = 132

  /// Reads the head of a WAL index from its open `handle`; `nil` when it is shorter (no WAL
  /// index yet) or not initialized.
  static func read(from handle: FileHandle) -> WALIndexHeader? {
    guard (try? handle.seek(toOffset: 0)) != nil, let data = try? handle.read(upToCount: length),
      data.count == length
    else { return nil }
    return data.withUnsafeBytes { bytes in
      func integer(at offset: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
      // isInit, the byte after iChange: a header not yet written is all zeros.
      guard bytes.load(fromByteOffset: 12, as: UInt8.self) != 0 else { return nil }
      return WALIndexHeader(
        commits: integer(at: 8), frames: integer(at: 16), copied: integer(at: 96), copying: integer(at: 128))
    }
  }

  /// How ``waitForTheWALToStartOver(ofDatabaseAt:patience:idle:)`` ended.
  enum WaitOutcome: Equatable {
    /// The WAL is shorter than ``longWAL`` frames: it started over, or never grew.
    case short
    /// The WAL is wholly copied into the file: the next commit starts it over.
    case copied
    /// Nothing committed or copied for `patience.idle` (or for the whole wait): no writer is
    /// there to start it over.
    case idle
    /// `patience.most` ran out first (a writer that never checkpoints, or a reader of its own).
    case patienceRanOut
    /// There is no WAL index to read (not in WAL mode, or a file opened immutable).
    case noIndex
  }

  /// How long ``waitForTheWALToStartOver(ofDatabaseAt:patience:idle:)`` waits.
  struct Patience {
    /// The longest wait.
    var most: Duration
    /// No commit and no checkpoint for this long: the writer has stopped, or pauses.
    var idle: Duration

    /// Between two of `verify`'s reads: a store sending flat out at a million tasks started
    /// its WAL over 0.1 to 0.2 s after each of the replay's reads (the pages it wrote during
    /// the read copied first).
    static let betweenReads = Patience(most: .milliseconds(200), idle: .milliseconds(20))
  }

  /// Past this many frames a writer checkpoints, and its next commit then starts the WAL over
  /// (SQLite's automatic checkpoint mark, and a store's, see
  /// `WALCheckpointer.Marks.restartPages`).
  static let longWAL: UInt32 = 1_000

  /// Waits, at most `patience.most`, while the WAL of the database at `path` is long and a
  /// writer goes on committing to it or copying it: called between two read transactions, so
  /// that the next one does not begin before the writer's checkpoint has copied what it wrote
  /// during the last, and its next commit has started the WAL over. A read begun on a long WAL
  /// holds it: the WAL can only grow until the read ends (reads back to back let it grow for
  /// as long as all of them).
  ///
  /// `idle` is the WAL index as the last wait that ended ``WaitOutcome/idle`` left it: while
  /// it is unchanged (no writer came since), the wait ends at once. Set here. (A WAL whose
  /// index says a checkpoint copies, with nothing changing for the whole wait, is idle too:
  /// that is what a failed checkpoint, or SQLite's recovery of the WAL, leaves.) Like
  /// `WALCheckpointer.waitForWALToStartOver(atMost:)`, which waits for a store's own commits.
  static func waitForTheWALToStartOver(
    ofDatabaseAt path: String, patience: Patience, idle: inout WALIndexHeader?
  ) -> WaitOutcome {
    guard let handle = FileHandle(forReadingAtPath: path + "-shm") else { return .noIndex }
    defer { try? handle.close() }
    let start = ContinuousClock.now
    let first = read(from: handle)
    var (header, moved, changed) = (first, start, false)
    if first != nil, first == idle { return .idle }
    idle = nil
    while true {
      guard let seen = header else { return .noIndex }
      if seen.frames < longWAL { return .short }
      if seen.copied >= seen.frames { return .copied }
      Thread.sleep(forTimeInterval: 0.000_5)
      let now = ContinuousClock.now
      if now - start >= patience.most {
        guard changed else {
          idle = seen
          return .idle
        }
        return .patienceRanOut
      }
      header = read(from: handle)
      if header != seen { changed = true }
      // A checkpoint under way changes nothing here until it ends: it is no pause.
      if header != seen || seen.copying > seen.copied {
        moved = now
      } else if now - moved >= patience.idle {
        idle = header
        return .idle
      }
    }
  }
}
