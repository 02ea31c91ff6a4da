import Foundation
import GRDB
import Testing

@_spi(Benchmarks) @testable import Rewind

/// Holds a store so that another thread can release it.
final class StoreBox: @unchecked Sendable {
  var store: JournalStore?
  init(_ store: JournalStore) { self.store = store }
}

/// A released store leaves nothing writing its file and the WAL moved into it, whatever its
/// snapshot worker and checkpointer were doing, and wherever it is released: the file can be
/// copied on its own at once (the benchmark does).
@MainActor
@Suite struct StoreReleaseTests {
  let directory: TemporaryDirectory
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("journal.sqlite")
  }

  func noWAL() -> Bool { !FileManager.default.fileExists(atPath: path + "-wal") }

  @Test(arguments: 0..<5) func releasedWhileASnapshotAndAPassRun(_ run: Int) throws {
    var store: JournalStore? = try JournalStore.journal(path: path)
    store!.repository.checkpointer!.marks = .init(backgroundPages: 4, restartPages: 12, inlinePages: 64)
    store!.automaticSnapshotSpacing = 5
    store!.automaticSnapshotPartBytes = 300
    for index in 0..<(200 + run * 37) {
      try store!.send(.add(title: "Entry \(index) " + String(repeating: "y", count: 2000)))
    }
    let state = store!.state
    store = nil
    #expect(noWAL())
    #expect(try fileState(path) == state)
  }

  @Test func releasedAfterUndoJumpReloadAndAFailedSend() throws {
    var store: JournalStore? = try JournalStore.journal(path: path)
    store!.repository.checkpointer!.marks = .init(backgroundPages: 4, restartPages: 12, inlinePages: 64)
    for index in 0..<50 { try store!.send(.add(title: "Entry \(index)")) }
    _ = try store!.undo()
    _ = try store!.jump(to: 10)
    try store!.reload()
    try store!.repository.database.writeWithoutTransaction { db in
      try db.execute(
        sql: "CREATE TEMP TRIGGER inject BEFORE INSERT ON action_log BEGIN SELECT RAISE(ABORT, 'injected'); END")
    }
    #expect(throws: (any Error).self) { try store!.send(.add(title: "fails")) }
    try store!.repository.database.writeWithoutTransaction { db in try db.execute(sql: "DROP TRIGGER temp.inject") }
    try store!.send(.add(title: "after"))
    let state = store!.state
    store = nil
    #expect(noWAL())
    #expect(try fileState(path) == state)
  }

  @Test(arguments: 0..<5) func releasedOnAnotherThreadWhileAPassRuns(_ run: Int) throws {
    let box = StoreBox(try JournalStore.journal(path: path))
    box.store!.repository.checkpointer!.marks = .init(backgroundPages: 4, restartPages: 12, inlinePages: 64)
    for index in 0..<(100 + run * 13) {
      try box.store!.send(.add(title: "Entry \(index) " + String(repeating: "z", count: 3000)))
    }
    let state = box.store!.state
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      box.store = nil
      done.signal()
    }
    done.wait()
    #expect(noWAL())
    #expect(try fileState(path) == state)
  }

  @Test func twoStoresOnOneFileReleasedInTurn() throws {
    var first: JournalStore? = try JournalStore.journal(path: path)
    var second: JournalStore? = try JournalStore.journal(path: path)
    for store in [first!, second!] {
      store.repository.checkpointer!.marks = .init(backgroundPages: 4, restartPages: 12, inlinePages: 64)
    }
    for index in 0..<200 { try (index % 2 == 0 ? first! : second!).send(.add(title: "Entry \(index)")) }
    first = nil
    #expect(!noWAL())
    try second!.send(.add(title: "last"))
    let state = second!.state
    second = nil
    #expect(noWAL())
    #expect(try fileState(path) == state)
  }
}
