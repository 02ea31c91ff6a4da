import Foundation
import GRDB

/// How a connection waits for the write lock another connection holds.
///
/// The lock is mostly held for a millisecond or two: another store's commit, a part of a
/// snapshot being stored, the end of a compaction. SQLite's own busy timeout sleeps 1 ms, then
/// 2, then 5, 10 and more, so a send that met a snapshot part being written waited 3 to 8 ms
/// for a lock freed after one. Here the first waits are short, and they grow to 5 ms only once
/// the lock has been held for over 20 ms, so the wait follows the lock; in all, a connection
/// waits at least ``timeout`` before it reports the file busy, as with SQLite's timeout.
@_spi(Benchmarks)
public enum LockWait {
  /// The least time a connection waits for the lock before giving up (`SQLITE_BUSY`).
  static let timeout: TimeInterval = 10

  /// The busy mode of every connection the engine opens.
  static let busyMode: Database.BusyMode = .callback { tries in
    guard tries < maximumTries else { return false }
    let microseconds = sleepMicroseconds(try: tries)
    counter.add(waits: tries == 0 ? 1 : 0, microseconds: microseconds)
    usleep(microseconds)
    return true
  }

  /// The sleep before the try after `tries` failed ones: 50 µs for the first millisecond,
  /// 250 µs up to about 20 ms, then 5 ms.
  static func sleepMicroseconds(try tries: Int) -> UInt32 {
    switch tries {
    case ..<shortTries: 50
    case ..<(shortTries + mediumTries): 250
    default: 5_000
    }
  }

  private static let shortTries = 20
  private static let mediumTries = 80
  /// Enough tries that their sleeps add up to ``timeout`` (each sleep lasts at least as long
  /// as asked).
  static let maximumTries: Int = {
    let early = shortTries * 50 + mediumTries * 250
    return shortTries + mediumTries + Int((timeout * 1_000_000 - Double(early)) / 5_000) + 1
  }()

  /// How many times the engine's connections in this process found the lock held, and the
  /// sleeps they asked for meanwhile, for benchmarks.
  public static var counts: (waits: Int, sleptMicroseconds: Int) { counter.counts }

  private static let counter = Counter()

  private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var waits = 0
    private var slept = 0

    func add(waits: Int, microseconds: UInt32) {
      lock.withLock {
        self.waits += waits
        slept += Int(microseconds)
      }
    }

    var counts: (waits: Int, sleptMicroseconds: Int) { lock.withLock { (waits, slept) } }
  }
}
