import Foundation
import Testing

@testable import Rewind

#if canImport(Glibc)
  import Glibc
#endif

/// Background work (a snapshot) runs on a thread of its own, below the app's threads'
/// priority, and leaves the caller's priority as it was.
struct BackgroundThreadTests {
  @Test func theWorkRunsOnItsOwnThreadBelowTheCallersPriority() {
    final class Seen: @unchecked Sendable {
      var isMainThread = true
      var niceness: Int32 = 0
    }
    let seen = Seen()
    let done = DispatchSemaphore(value: 0)
    let callerNiceness = niceness()
    BackgroundThread.run {
      seen.isMainThread = Thread.isMainThread
      seen.niceness = niceness()
      done.signal()
    }
    done.wait()
    #expect(!seen.isMainThread)
    #if canImport(Glibc)
      // Dispatch's quality of service has no effect here: the thread lowers itself.
      #expect(seen.niceness == BackgroundThread.niceness)
    #endif
    #expect(niceness() == callerNiceness)
  }

  private func niceness() -> Int32 {
    #if canImport(Glibc)
      getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    #else
      getpriority(PRIO_PROCESS, 0)
    #endif
  }
}
