import Foundation
import GRDB
import PropertyBased
import Testing

@testable import Rewind
@testable import TasksExample

@MainActor
struct RewindDatabaseTests {
  @Test func exportAtAnySeqEqualsTheExportTakenThereAndTheExportAfterRestoring() async {
    await checkProperty(count: 15, input: HistoryPropertyTests.sessions) { codes in
      let directory = try TemporaryDirectory()
      var session = try RandomSession(path: directory.path("tasks.sqlite"))
      var exports: [Int64: String] = [:]
      exports[session.store.lastSeq] = try RewindDatabase(path: session.path).export()
      for code in codes {
        try session.perform(code)
        exports[session.store.lastSeq] = try RewindDatabase(path: session.path).export()
      }
      let database = try RewindDatabase(path: session.path)
      for seq in exports.keys.sorted() {
        #expect(try database.export(at: seq) == exports[seq], "export at \(seq)")
      }
      for seq in exports.keys.sorted().reversed() {
        try database.restore(to: seq)
        #expect(try database.export() == exports[seq], "restore to \(seq)")
      }
      #expect(try database.verify().isHealthy)
    }
  }

  @Test func restoresStartFromTheNearestSnapshotAndAgreeWithEveryOtherAnchor() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    for index in 0..<2_300 {
      switch index % 4 {
      case 0: try store.send(.add(title: "Task \(index)"))
      case 1: try store.send(.rename(id: Int64(index / 4 + 1), title: "Renamed \(index)"))
      case 2: try store.send(.move(id: Int64(index / 4 + 1), to: 0))
      default: try store.send(.scroll(Double(index)))
      }
      // Snapshots are taken in the background: waiting after each send keeps their seqs exact.
      store.waitForSnapshots()
    }
    let database = try RewindDatabase(path: path)
    let automatic = try database.snapshots().filter { $0.kind == "automatic" }
    // The policy waits max(1000, rows in the state) entries: 1000 while the state is small,
    // then as many entries as the state has rows (tasks, two lists, three view rows).
    #expect(automatic.first?.seq == 1_000)
    #expect(automatic.count == 2)
    let rowsAtSecond = try DatabaseQueue(path: path).read { db in
      try Int.fetchOne(db, sql: "SELECT row_count FROM snapshots WHERE seq = ?", arguments: [automatic[1].seq])!
    }
    #expect(automatic[1].seq - automatic[0].seq == max(1_000, Int64(rowsAtSecond)))
    // Rebuilding seq 1200 from the snapshot at 1000 reads 200 entries; from the head, 1101.
    try database.queue.read { db in
      let anchor = try database.history.nearestAnchor(to: 1_200, db)
      #expect(anchor.distance == 200)
      let fromSnapshot = try database.history.rows(at: 1_200, from: anchor, db)
      let fromHead = try database.history.rows(at: 1_200, from: (.head, 1_101), db)
      let fromOrigin = try database.history.rows(at: 1_200, from: (.origin, 1_200), db)
      #expect(fromSnapshot == fromHead)
      #expect(fromSnapshot == fromOrigin)
    }
    #expect(try database.verify().isHealthy)
  }

  /// `rewind export -o` refuses to write over the database or any of its files, naming which
  /// and what writing there would do; the database is left as it was.
  @Test func anExportIsNotWrittenOverTheDatabaseOrItsFiles() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)  // open: the -wal and -shm files exist
    try store.send(.add(title: "A"))
    let database = try RewindDatabase(path: path)
    let before = try database.export()
    let expected = [
      "": "the database \(path) itself",
      "-wal": "the write-ahead log of \(path)",
      "-shm": "the shared-memory index of \(path)",
    ]
    for (suffix, what) in expected {
      // Named another way, through a symbolic link: the check compares files, not names.
      let link = directory.path("link\(suffix)")
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path + suffix)
      for destination in [path + suffix, link] {
        let error = #expect(throws: RewindError.self, "\(destination)") {
          try database.checkExportDestination(destination)
        }
        #expect(error?.code == .invalidPath)
        #expect(error?.message.hasPrefix("\(destination) is \(what)") == true, "\(error?.message ?? "")")
      }
    }
    try database.checkExportDestination(directory.path("state.json"))  // a new file
    // A file of the database's that does not exist now is told by its name.
    let journal = #expect(throws: RewindError.self) { try database.checkExportDestination(path + "-journal") }
    #expect(journal?.message.hasPrefix("\(path)-journal is the rollback journal of \(path)") == true)
    #expect(try database.export() == before)
    #expect(try database.verify().isHealthy)
  }

  @Test func aStoreFollowsWhatTheToolDidBeforeItsNextWrite() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    try store.send(.add(title: "A"))
    try store.send(.add(title: "B"))
    // The tool undoes the last add while the app has the file open.
    #expect(try RewindDatabase(path: path).undo() != nil)
    // The store applies the tool's undo first: task 2 is gone, so toggling it changes nothing.
    #expect(try store.send(.toggle(id: 2)) == nil)
    #expect(store.state.tasks.count == 1)
    try store.send(.toggle(id: 1))
    #expect(try RewindDatabase(path: path).verify().isHealthy)
    #expect(try TasksStore.tasks(path: path).state == store.state)
  }

  @Test func refusesFilesThatAreNotRewindDatabases() throws {
    let directory = try TemporaryDirectory()
    let empty = directory.path("empty.sqlite")
    _ = try DatabaseQueue(path: empty)
    #expect { try RewindDatabase(path: empty) } throws: { ($0 as? RewindError)?.code == .notRewindDatabase }
    #expect { try RewindDatabase(path: directory.path("nope.sqlite")) } throws: {
      ($0 as? RewindError)?.code == .fileNotFound
    }
    #expect(!FileManager.default.fileExists(atPath: directory.path("nope.sqlite")))
  }

  /// The log's search finds text as typed, though the log's JSON escapes a quote, a backslash,
  /// a newline or a tab; a NUL (which ends a `LIKE` pattern) matches no entry rather than all.
  @Test func theLogsSearchFindsTextTheJSONEscapes() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("journal.sqlite")
    let store = try JournalStore.journal(path: path)
    let titles = ["plain words", #"a "quoted" word"#, #"back\slash"#, "two\nlines", "a\ttab", "café"]
    var seqs: [String: Int64] = [:]
    for title in titles {
      try store.send(.add(title: title))
      seqs[title] = store.lastSeq
    }
    let database = try RewindDatabase(path: path, readOnly: true)
    for title in titles {
      let found = try database.log(LogQuery(text: title)).map(\.seq)
      #expect(found == [seqs[title]!], "searching for \(title.debugDescription)")
    }
    #expect(try database.log(LogQuery(text: #""quoted""#)).map(\.seq) == [seqs[#"a "quoted" word"#]!])
    #expect(try database.log(LogQuery(text: "\0")).isEmpty)
    #expect(
      try database.log(LogQuery(from: seqs[titles[0]]!, text: "ad")).map(\.seq) == titles.map { seqs[$0]! },
      "the action's name, add")
  }

  /// A view-state value is JSON text inside the changes' JSON, so its quotes and newlines are
  /// escaped twice there: the search finds it as typed in entries whose payload does not hold
  /// it (the search cleared, and a jump back that restores it).
  @Test func theLogsSearchFindsViewStateTextInChangesAlone() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("journal.sqlite")
    let store = try JournalStore.journal(path: path)
    let text = "say \"hi\"\nthen go"
    try store.send(.add(title: "first"))
    try store.send(.search(text))
    let searched = store.lastSeq
    try store.send(.search(""))
    let cleared = store.lastSeq
    try store.jump(to: searched)
    let jumped = store.lastSeq
    #expect(store.state.view.search == text)
    let database = try RewindDatabase(path: path, readOnly: true)
    #expect(try database.log(LogQuery(text: text)).map(\.seq) == [searched, cleared, jumped])
    #expect(try database.log(LogQuery(text: "\"hi\"")).map(\.seq) == [searched, cleared, jumped])
    #expect(try database.log(LogQuery(text: "first")).map(\.seq) == [searched - 1])
  }
}
