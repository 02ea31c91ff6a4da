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
  /// Runs `work` on a thread named `name` (what `top -H`, `ps -L` and debuggers show; Linux
  /// keeps its first 15 bytes).
  static func run(named name: String, _ work: @escaping @Sendable () -> Void) {
    #if canImport(Glibc)
      final class Context {
        let name: String
        let work: @Sendable () -> Void
        init(_ name: String, _ work: @escaping @Sendable () -> Void) {
          self.name = name
          self.work = work
        }
      }
      let context = Unmanaged.passRetained(Context(name, work)).toOpaque()
      var thread = pthread_t()
      let created = pthread_create(
        &thread, nil,
        { pointer in
          let context = Unmanaged<Context>.fromOpaque(pointer!).takeRetainedValue()
          BackgroundThread.setName(context.name)
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

  #if canImport(Glibc)
    /// Glibc's `pthread_setname_np`, which its Swift module leaves out (it is a GNU extension).
    private static let setThreadName = dlsym(nil, "pthread_setname_np").map {
      unsafeBitCast($0, to: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)
    }

    /// Names the calling thread; Linux keeps the first 15 bytes. (A new thread starts with its
    /// creator's name.)
    private static func setName(_ name: String) {
      var bytes = Array(name.utf8.prefix(15)).map { CChar(bitPattern: $0) }
      bytes.append(0)
      _ = setThreadName?(pthread_self(), bytes)
    }
  #endif

  /// The thread's `nice` value: a tenth of a core's time against a thread of the app's that
  /// wants it all (19 would leave it under 2%, and a snapshot read that long keeps the WAL
  /// from starting over meanwhile).
  static let niceness: Int32 = 10
}
