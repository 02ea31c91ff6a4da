import Foundation
import Rewind
import TasksExample
import Testing

/// Opening a database file again in a process that already has it open (a store and the
/// tool's `RewindDatabase`, or `rewind ui` reopening after a write) must keep the process's
/// SQLite locks. Reading the file's header with a plain open and close dropped them all (POSIX
/// locks belong to the process, and any close releases them): another process then took the
/// database for unused, checkpointed it and deleted its write-ahead log under this one.
@MainActor
struct SharedFileLocksTests {
  @Test func anotherOpenInThisProcessKeepsItsLocks() throws {
    let directory = try TemporaryDirectory()
    let runner = ProcessRunner(directory: directory.url)
    let path = directory.path("tasks.sqlite")
    #expect(try runner.tasks("add", "A").stdout == "2 add\n")
    let store = try TasksStore.tasks(path: path)
    _ = try RewindDatabase(path: path, readOnly: true)  // opens the file again, then closes
    // Another process writes enough to checkpoint; as it closes, it must see this process's
    // connection and leave the write-ahead log in place.
    let burst = (1...1_200).map { "scroll \($0)" }.joined(separator: "\n")
    #expect(try runner.tasks("shell", input: burst).status == 0)
    #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the other process deleted the write-ahead log")
    try store.reload()
    #expect(store.lastSeq == 1_202)
    #expect(store.state.list.scrollOffset == 1_200)
  }
}
