import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// Files the engine must refuse, byte for byte untouched.
@MainActor
struct DatabaseRefusalTests {
  func expectRefusal(_ path: String, code: RewindError.Code, mentioning words: String) throws {
    let bytesBefore = contents(of: path)
    #expect {
      _ = try TasksStore.tasks(path: path)
    } throws: { error in
      guard let error = error as? RewindError else { return false }
      #expect(error.code == code)
      #expect("\(error)".contains(words))
      return true
    }
    #expect(contents(of: path) == bytesBefore)
    #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
  }

  /// Another app's Rewind file (found by an app written on the library: the tasks example
  /// opened a kanban board's file, created its tables beside the board's, recorded its
  /// migrations, and locked the board's own app out). Refused whichever app opens whose, and
  /// the file is left byte for byte as it was; the other app and the tool still read it.
  @Test func refusesAnotherAppsFile() throws {
    let directory = try TemporaryDirectory()
    let journal = directory.path("journal.sqlite")
    do {
      let store = try JournalStore.journal(path: journal)
      try store.send(.add(title: "A"))
    }
    try expectRefusal(
      journal, code: .schemaMismatch, mentioning: "holds another app's state: its entity tables (entries)")
    let tasks = directory.path("tasks.sqlite")
    do {
      let store = try TasksStore.tasks(path: tasks)
      try store.send(.add(title: "Buy milk"))
    }
    let before = contents(of: tasks)
    #expect {
      _ = try JournalStore.journal(path: tasks)
    } throws: { error in
      (error as? RewindError)?.code == .schemaMismatch && "\(error)".contains("projects, tasks")
    }
    #expect(contents(of: tasks) == before)
    #expect(try JournalStore.journal(path: journal).state.entries.count == 1)
    #expect(try RewindDatabase(path: tasks).verify().problems == [])
    // The tool imports neither app's export into the other's file, saying why (not that the
    // export's app schema version is newer).
    let journalExport = try RewindDatabase(path: journal).export()
    let database = try RewindDatabase(path: tasks)
    let exportBefore = try database.export()
    let error = #expect(throws: RewindError.self) { try database.importState(journalExport) }
    #expect(error?.code == .invalidImport)
    #expect(
      error?.message
        == "the file is an export of another app: its entity tables (entries) are none of this database's (projects, tasks)"
    )
    #expect(try database.export() == exportBefore)
  }

  /// A write SQLite refuses as read-only after the file opened for writing (a file without
  /// write permission beside writable -wal and -shm files) is a RewindError naming the file,
  /// not the statement SQLite refused; other errors pass through.
  @Test func aWriteSQLiteRefusesAsReadOnlyIsARewindErrorNamingTheFile() throws {
    let refused = DatabaseError(resultCode: .SQLITE_READONLY, message: "attempt to write a readonly database")
    let error = try #require(DatabaseFile.readOnlyRefusal(refused, path: "board.sqlite"))
    #expect(error.code == .readOnly)
    #expect(
      error.message.hasPrefix(
        "board.sqlite cannot be written: the file, its -wal or -shm file, or its folder is read-only"))
    #expect(DatabaseFile.readOnlyRefusal(DatabaseError(resultCode: .SQLITE_FULL), path: "board.sqlite") == nil)
    #expect(DatabaseFile.readOnlyRefusal(RewindError(.conflict, "x"), path: "board.sqlite") == nil)
  }

  @Test func refusesAFileThatIsNotSQLite() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("notes.txt")
    try "Remember the milk.\n".write(toFile: path, atomically: true, encoding: .utf8)
    try expectRefusal(path, code: .notSQLite, mentioning: "is not an SQLite database")
  }

  @Test func refusesAnSQLiteDatabaseThatIsNotRewinds() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("other.sqlite")
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes VALUES (1, 'hi')")
    }
    try expectRefusal(path, code: .notRewindDatabase, mentioning: "not a Rewind database")
  }

  @Test func refusesADatabaseFromANewerVersion() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    do {
      let store = try TasksStore.tasks(path: path)
      try store.send(.add(title: "Buy milk"))
    }
    // Given a database migrated by a future version of the engine.
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "INSERT INTO rewind_engine_migrations (identifier) VALUES ('9999_future')")
    }
    try expectRefusal(path, code: .newerSchema, mentioning: "newer Rewind")
  }

  @Test func recordsTheMigrationsItAppliedInItsOwnTable() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    _ = try TasksStore.tasks(path: path)
    let (applied, hasGRDBTable) = try DatabaseQueue(path: path).read {
      (
        try String.fetchAll($0, sql: "SELECT identifier FROM rewind_engine_migrations ORDER BY identifier"),
        try $0.tableExists("grdb_migrations")
      )
    }
    #expect(applied == EngineMigrations.embedded.map(\.identifier))
    #expect(applied.first == "0001_engine")
    // grdb_migrations is the app's, for GRDB's DatabaseMigrator: the engine leaves none behind.
    #expect(!hasGRDBTable)
  }

  @Test func identifiersOfAnAppsOwnMigratorAreNotTakenForANewerRewind() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    do {
      let store = try TasksStore.tasks(path: path)
      try store.send(.add(title: "Buy milk"))
    }
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
      try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('9999_future')")
    }
    let store = try TasksStore.tasks(path: path)
    #expect(store.state.tasks.count == 1)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  @Test func embedsEveryFileOfTheMigrationsFolder() throws {
    // The SQL files are the single source of truth: the library carries each one verbatim.
    let folder = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("migrations")
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .filter { $0.hasSuffix(".sql") }.sorted()
    #expect(files.map { String($0.dropLast(4)) } == EngineMigrations.embedded.map(\.identifier))
    for (file, migration) in zip(files, EngineMigrations.embedded) {
      let sql = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
      #expect(sql == migration.sql)
    }
  }
}
