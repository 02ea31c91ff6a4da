import Foundation
import Testing

@testable import Rewind

/// A build stores the batches it is handed in order, on its queue once one batch was full, and
/// gives the value once all are stored; one that never fills a batch stays on the caller's
/// thread.
struct BackgroundBuildTests {
  typealias Build = BackgroundBuild<[Int], Int>

  /// Rows handed over a batch at a time, as a part's load does, `count` of them.
  func built(_ count: Int) -> (values: [Int], queued: Bool, storedElsewhere: Bool) {
    nonisolated(unsafe) let caller = Thread.current  // compared with, never used elsewhere
    let storedElsewhere = Box()
    let build = Build([]) { values, batch in
      if Thread.current != caller { storedElsewhere.set() }
      values.append(contentsOf: batch)
      batch.removeAll()
    }
    var batch: [Int] = []
    for value in 0..<count {
      batch.append(value)
      if batch.count == Build.batchSize { build.add(&batch) }
      #expect(batch.count < Build.batchSize)
    }
    build.end(&batch)
    #expect(batch.isEmpty)
    let queued = build.queue != nil
    return (build.take(), queued, storedElsewhere.isSet)
  }

  @Test(arguments: [0, 1, Build.batchSize - 1, Build.batchSize, Build.batchSize + 1, 10 * Build.batchSize + 7])
  func batchesAreStoredInOrderWhereverTheyFall(count: Int) {
    let (values, queued, storedElsewhere) = built(count)
    #expect(values == Array(0..<count))
    // Only a full batch goes to the queue; a build that never fills one stays here.
    #expect(queued == (count >= Build.batchSize))
    #expect(storedElsewhere == queued)
  }

  final class Box: @unchecked Sendable {  // set on the build's queue, read after `take()`
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
  }
}
