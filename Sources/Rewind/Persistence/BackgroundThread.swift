import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Runs CPU-heavy background work below the app's threads' priority: a snapshot reads and
/// encodes the whole state, seconds of CPU at a million rows.
///
/// Dispatch's utility quality of service has no effect on Linux, where its threads run at the
/// app's own priority: on a machine with two cores, a snapshot under way made the app's sends
/// wait for the CPU (a million tasks: the median send from 45 to 64 µs, the slowest 52 ms).
/// There the work gets a thread of its own, which lowers its own priority (`nice` 10, which on
/// Linux applies to the calling thread alone) and ends with the work, so that no pooled thread
/// is left at the lower priority (an unprivileged thread cannot raise it again). Elsewhere, and
/// if no thread can be created, the work runs on Dispatch's utility queue.
///
/// Work that holds the write lock must not run at that priority, where the app's threads could
/// keep it waiting for the CPU while the app waits for the lock: hand it back to Dispatch.
enum BackgroundThread {
  static func run(_ work: @escaping @Sendable () -> Void) {
    #if canImport(Glibc)
      final class Context {
        let work: @Sendable () -> Void
        init(_ work: @escaping @Sendable () -> Void) { self.work = work }
      }
      let context = Unmanaged.passRetained(Context(work)).toOpaque()
      var thread = pthread_t()
      let created = pthread_create(
        &thread, nil,
        { pointer in
          let context = Unmanaged<Context>.fromOpaque(pointer!).takeRetainedValue()
          _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, BackgroundThread.niceness)
          context.work()
          return nil
        }, context)
      if created == 0 {
        pthread_detach(thread)
        return
      }
      Unmanaged<Context>.fromOpaque(context).release()
    #endif
    DispatchQueue.global(qos: .utility).async(execute: work)
  }

  /// The thread's `nice` value: a tenth of a core's time against a thread of the app's that
  /// wants it all (19 would leave it under 2%, and a snapshot read that long keeps the WAL
  /// from starting over meanwhile).
  static let niceness: Int32 = 10
}
