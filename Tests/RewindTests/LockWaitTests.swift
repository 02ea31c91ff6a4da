import Foundation
import GRDB
import Testing

@_spi(Benchmarks) @testable import Rewind

/// A store whose write meets the lock held by another connection waits in short sleeps for
/// it, and writes once it is free; the sleeps add up to the timeout before it gives up.
@MainActor
@Suite struct LockWaitTests {
  let directory: TemporaryDirectory
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("journal.sqlite")
  }

  @Test func theSleepsStartShortAndAddUpToTheTimeout() {
    let sleeps = (0..<LockWait.maximumTries).map { LockWait.sleepMicroseconds(try: $0) }
    #expect(sleeps.first == 50)
    #expect(sleeps.prefix(20).reduce(0, +) == 1_000)
    #expect(sleeps == sleeps.sorted())
    let total = sleeps.reduce(0) { $0 + Double($1) } / 1_000_000
    #expect(total >= LockWait.timeout)
    #expect(total < LockWait.timeout + 0.01)
  }

  @Test func aSendWaitsForALockAnotherConnectionHolds() throws {
    let store = try JournalStore.journal(path: path)
    try store.send(.add(title: "before"))
    let other = try DatabaseQueue(path: path)
    let locked = DispatchSemaphore(value: 0)
    let released = DispatchSemaphore(value: 0)
    let waitsBefore = LockWait.counts.waits
    DispatchQueue.global().async {
      try? other.writeWithoutTransaction { db in
        try db.execute(sql: "BEGIN IMMEDIATE")
        locked.signal()
        // The lock is held, as a long snapshot part would hold it, until a connection waits
        // for it (however late the send comes on a loaded machine), or for 5 s.
        let deadline = ContinuousClock.now + .seconds(5)
        while LockWait.counts.waits == waitsBefore, ContinuousClock.now < deadline { usleep(1_000) }
        try db.execute(sql: "COMMIT")
      }
      released.signal()
    }
    locked.wait()
    try store.send(.add(title: "after"))
    released.wait()
    #expect(LockWait.counts.waits > waitsBefore)
    #expect(store.state.entries.values.map(\.title).sorted() == ["after", "before"])
    #expect(try fileState(path) == store.state)
  }
}
