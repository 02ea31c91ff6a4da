import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A thread of its own for work that must not take the CPU from the app's threads: a
/// snapshot reads and encodes the whole state, seconds of CPU at a million rows.
///
/// Dispatch's utility quality of service has no effect on Linux, where its threads run at the
/// app's own priority: on a machine with two cores, a snapshot under way made the app's sends
/// wait for the CPU (a million tasks: the median send from 45 to 64 µs, the slowest 52 ms).
/// There the thread lowers its own priority (`nice` 19, which on Linux applies to the calling
/// thread alone), as the utility class does on Apple platforms. The thread is the work's
/// alone, and ends with it: no pooled thread is left at the lower priority.
enum BackgroundThread {
  static func run(named name: String, _ work: @escaping @Sendable () -> Void) {
    let thread = Thread {
      #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
      #endif
      work()
    }
    thread.name = name
    thread.qualityOfService = .utility
    thread.start()
  }
}
