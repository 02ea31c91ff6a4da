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
      var name = ""
    }
    let seen = Seen()
    let done = DispatchSemaphore(value: 0)
    let callerNiceness = niceness()
    BackgroundThread.run(named: "rewind.test.thread.name") {
      seen.isMainThread = Thread.isMainThread
      seen.niceness = niceness()
      #if os(Linux)
        // The system's name of the thread, as `top -H` and debuggers show it.
        seen.name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
      #endif
      done.signal()
    }
    done.wait()
    #expect(!seen.isMainThread)
    #if canImport(Glibc)
      // Dispatch's quality of service has no effect here: the thread lowers itself.
      #expect(seen.niceness == BackgroundThread.niceness)
      // Named for `top -H` and debuggers, cut to the 15 bytes Linux keeps.
      #expect(seen.name == "rewind.test.thr\n")
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
