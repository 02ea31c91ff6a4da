import Foundation
import GRDB
import GRDBSQLite
import RewindSQLiteShim

/// Opens database files, refusing anything that is not a Rewind database before writing to it.
enum DatabaseFile {
  /// What an opened file holds.
  enum Contents {
    /// No Rewind tables: a new database to set up (no tables at all, or only an app's own
    /// tables managed by GRDB's `DatabaseMigrator`).
    case empty
    /// A Rewind database at `version`.
    case rewind(version: Int)
  }

  static let sqliteHeader = Array("SQLite format 3\0".utf8)

  /// A second connection to a store's file, for its background workers (and compaction's
  /// attempt to empty the WAL). A file gone since (moved, or its folder removed once the store
  /// was done) is not created again, empty.
  ///
  /// It does not try to checkpoint as it closes. SQLite's connection to a WAL file takes a
  /// lock on the file as it closes, to see whether it is the last one and should move the WAL
  /// into the file: a connection opening meanwhile with no busy timeout (the `sqlite3` shell's
  /// default) gets "database is locked". A snapshot worker closes its connection after each
  /// snapshot, while the store and anyone inspecting the file go on; and the store's own
  /// connection is the one meant to close last.
  static func reopen(path: String, configuration: Configuration) throws -> DatabaseQueue {
    guard FileManager.default.fileExists(atPath: path) else {
      throw RewindError(.fileNotFound, "\(path) does not exist any more")
    }
    var configuration = configuration
    configuration.prepareDatabase { db in
      guard rewind_sqlite_no_checkpoint_on_close(db.sqliteConnection, 1) == 1 else {
        throw RewindError(.readFailed, "SQLite refused to open \(path) with no checkpoint on close")
      }
    }
    return try DatabaseQueue(path: path, configuration: configuration)
  }

  /// Whether closing `db` skips SQLite's checkpoint on close (see ``reopen(path:configuration:)``).
  static func skipsCheckpointOnClose(_ db: Database) -> Bool {
    rewind_sqlite_no_checkpoint_on_close(db.sqliteConnection, -1) == 1
  }

  /// Opens the database at `path`, creating it (readable by its owner only) if absent.
  ///
  /// Nothing is written to an existing file until it is known to be a Rewind database of a
  /// version this library can read.
  static func open(path: String, configuration: Configuration) throws -> (DatabaseQueue, Contents) {
    try checkPath(path)
    try checkHeader(path: path)
    let queue: DatabaseQueue
    do {
      queue = try DatabaseQueue(path: path, configuration: configuration)
    } catch let error as DatabaseError where configuration.readonly && cannotOpenWAL(error, path: path) {
      queue = try openImmutable(path: path, configuration: configuration)
    } catch let error as DatabaseError
      where (error.resultCode == .SQLITE_READONLY || error.resultCode == .SQLITE_CANTOPEN) && !canWrite(path)
    {
      throw RewindError(
        .readOnly,
        "\(path) cannot be opened for writing: the file, its -wal or -shm file, or its folder is read-only",
        underlying: error)
    } catch {
      throw RewindError(.notSQLite, "\(path) could not be opened as an SQLite database", underlying: error)
    }
    let contents = try inspect(queue, path: path)
    return (queue, contents)
  }

  /// Whether this process may write the file and create its `-wal` and `-shm` files beside it.
  /// The error for a write SQLite refused because the file, its `-wal` or `-shm` file, or its
  /// folder is read-only (opening read-write succeeds there; the first write fails), or `nil`
  /// for any other error.
  static func readOnlyRefusal(_ error: any Error, path: String) -> RewindError? {
    guard let error = error as? DatabaseError,
      error.resultCode == .SQLITE_READONLY || (error.resultCode == .SQLITE_CANTOPEN && !canWrite(path))
    else { return nil }
    return RewindError(
      .readOnly,
      "\(path) cannot be written: the file, its -wal or -shm file, or its folder is read-only; nothing was changed",
      underlying: error)
  }

  static func canWrite(_ path: String) -> Bool {
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    return access(path, W_OK) == 0 && access(folder, W_OK) == 0
  }

  /// Whether a read-only open failed only because SQLite could not create the `-shm` file a
  /// WAL database needs (a read-only folder) while no `-wal` file holds commits.
  private static func cannotOpenWAL(_ error: DatabaseError, path: String) -> Bool {
    guard error.resultCode == .SQLITE_READONLY || error.resultCode == .SQLITE_CANTOPEN else { return false }
    // Only where no one can write in WAL mode: an immutable reader never sees later commits.
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    return access(folder, W_OK) != 0 && walSize(of: path) == 0
  }

  /// The size of the file's write-ahead log, 0 if it has none.
  private static func walSize(of path: String) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber)?.int64Value ?? 0
  }

  /// Opens the file as immutable: SQLite reads the main file alone, with no `-shm`. Right for
  /// a file no one can be writing: in a folder where the `-wal` file cannot be created, no
  /// connection can commit in WAL mode.
  private static func openImmutable(path: String, configuration: Configuration) throws -> DatabaseQueue {
    let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
    do {
      return try DatabaseQueue(path: "file:\(encoded)?immutable=1", configuration: configuration)
    } catch {
      throw RewindError(.notSQLite, "\(path) could not be opened read-only as an SQLite database", underlying: error)
    }
  }

  /// Refuses paths SQLite gives another meaning: a store on them would acknowledge actions and
  /// then lose them (`:memory:` and `""` are private in-memory or temporary databases; a
  /// `file:` URI can ask for either). Use ``Store/init(inMemory:reducer:)`` for an in-memory
  /// store.
  static func checkPath(_ path: String) throws {
    if path.isEmpty || path == ":memory:" || path.hasPrefix("file:") {
      throw RewindError(
        .invalidPath,
        "\(path.isEmpty ? "an empty path" : path) is not a file path: SQLite would open an in-memory or temporary database, and everything written to it would be lost when it closes; give a file path, or open an in-memory store on purpose with Store(inMemory:reducer:)"
      )
    }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
      throw RewindError(.invalidPath, "\(path) is a directory, not a database file")
    }
  }

  /// Refuses a file that exists, is not empty and lacks SQLite's header, or whose size shows it
  /// was cut short; creates a missing one.
  private static func checkHeader(path: String) throws {
    if !FileManager.default.fileExists(atPath: path) {
      // Create it now with owner-only permissions; SQLite gives its -wal and -shm files the same.
      let created = Foundation.open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
      if created >= 0 {
        close(created)
        return
      }
      // Another process created it between the two calls: check theirs.
      guard errno == EEXIST else {
        throw RewindError(.readFailed, "\(path) cannot be created: \(String(cString: strerror(errno)))")
      }
    }
    let (header, size) = try readHeader(path)
    if size == 0 { return }  // An empty file is a new database.
    guard header.count >= sqliteHeader.count, Array(header[0..<sqliteHeader.count]) == sqliteHeader else {
      throw RewindError(.notSQLite, "\(path) is not an SQLite database (its header does not match)")
    }
    guard header.count == 100 else {
      throw RewindError(.corruptData, "\(path) is damaged: it is \(size) bytes long, shorter than SQLite's header")
    }
    try checkSize(header, size: size, path: path)
  }

  /// The file's first 100 bytes (fewer if it is shorter) and its size, read through SQLite's
  /// own file layer. Opening and closing the file directly would drop every POSIX lock this
  /// process holds on it, those of its other connections included: another process could then
  /// take the database for unused and reset its write-ahead log under them.
  private static func readHeader(_ path: String) throws -> (header: [UInt8], size: Int64) {
    var connection: OpaquePointer?
    defer { sqlite3_close(connection) }
    guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
      throw RewindError(.readFailed, "\(path) cannot be read: \(String(cString: sqlite3_errmsg(connection)))")
    }
    var file: UnsafeMutablePointer<sqlite3_file>?
    guard sqlite3_file_control(connection, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
      let file, let methods = file.pointee.pMethods
    else {
      throw RewindError(.readFailed, "\(path) cannot be read: SQLite gave no file handle")
    }
    var size: sqlite3_int64 = 0
    guard methods.pointee.xFileSize(file, &size) == SQLITE_OK else {
      throw RewindError(.readFailed, "\(path) cannot be read: its size is unknown")
    }
    var header = [UInt8](repeating: 0, count: Int(min(size, 100)))
    if !header.isEmpty {
      let result = header.withUnsafeMutableBytes { methods.pointee.xRead(file, $0.baseAddress, Int32($0.count), 0) }
      guard result == SQLITE_OK else {
        throw RewindError(.readFailed, "\(path) cannot be read (SQLite error \(result))")
      }
    }
    return (header, Int64(size))
  }

  /// SQLite reads a truncated file without complaint until it needs a missing page. Its header
  /// says how long the file must be: whole pages, and (when the header's page count is valid
  /// and no write-ahead log holds newer pages) at least that many.
  private static func checkSize(_ header: [UInt8], size: Int64, path: String) throws {
    let rawPageSize = Int64(header[16]) << 8 | Int64(header[17])
    let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
    guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else {
      throw RewindError(.corruptData, "\(path) is damaged: its header gives a page size of \(rawPageSize)")
    }
    guard size % pageSize == 0 else {
      throw RewindError(
        .corruptData,
        "\(path) is damaged: it is \(size) bytes long, not a whole number of \(pageSize)-byte pages (was it cut short?)"
      )
    }
    func uint32(at offset: Int) -> Int64 { header[offset..<offset + 4].reduce(0) { $0 << 8 | Int64($1) } }
    let pageCountIsValid = uint32(at: 92) == uint32(at: 24)
    if pageCountIsValid, walSize(of: path) == 0, uint32(at: 28) * pageSize > size {
      throw RewindError(
        .corruptData,
        "\(path) is damaged: its header counts \(uint32(at: 28)) pages but the file holds \(size / pageSize) (was it cut short?)"
      )
    }
  }

  /// Switches the file to write-ahead logging. Changing the journal mode needs the file to
  /// itself and does not wait on SQLite's busy handler, so while another process is setting up
  /// the same new file it is retried for up to 10 seconds, like any write.
  ///
  /// A new, empty file is first set to incremental auto-vacuum, which can only be chosen before
  /// its first page is written: compaction then gives the pages of the entries it removed back
  /// to the file system a few at a time (`PRAGMA incremental_vacuum`), each step a short write
  /// transaction, rather than rewriting the whole file with `VACUUM`, which holds the write
  /// lock, and every send of an app on the file, for as long (see
  /// ``RewindDatabase/compact(keep:progress:)``).
  static func enableWAL(_ queue: DatabaseQueue) throws {
    let deadline = Date().addingTimeInterval(10)
    while true {
      do {
        try queue.writeWithoutTransaction { db in
          if try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" { return }
          if try Int.fetchOne(db, sql: "PRAGMA page_count") == 0 {
            try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
          }
          try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
        return
      } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && Date() < deadline {
        usleep(5_000)
      }
    }
  }

  /// Refuses a database that is not Rewind's, or is from a newer version.
  static func checkRewindTables(_ db: Database, path: String) throws -> Contents {
    let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
    guard tables.contains(EngineTable.meta.name), try EngineMigrations.hasRecord(db) else {
      throw RewindError(
        .notRewindDatabase,
        "\(path) is an SQLite database but not a Rewind database (it has no rewind_meta table)")
    }
    try EngineMigrations.checkNotNewer(db, path: path)
    return .rewind(version: try EngineMigrations.applied(db).count)
  }

  /// Whether the database is to be set up as a new Rewind database: it has no table of its
  /// own (SQLite's internal ones aside), or only the tables of an app that manages its schema
  /// with GRDB's `DatabaseMigrator` (a `grdb_migrations` table that records none of the
  /// engine's migrations), which Rewind then shares the file with.
  static func needsSettingUp(_ db: Database) throws -> Bool {
    let tables = try String.fetchAll(
      db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    if tables.isEmpty { return true }
    guard tables.contains(EngineMigrations.legacyTable), !tables.contains(EngineTable.meta.name) else { return false }
    return try !EngineMigrations.hasRecord(db)
  }

  static func inspect(_ reader: some DatabaseReader, path: String) throws -> Contents {
    do {
      return try reader.read { db in
        guard try !needsSettingUp(db) else { return .empty }
        return try checkRewindTables(db, path: path)
      }
    } catch let error as RewindError {
      throw error
    } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
      throw RewindError(.notSQLite, "\(path) is not an SQLite database", underlying: error)
    } catch {
      throw RewindError(.readFailed, "\(path) could not be read", underlying: error)
    }
  }
}
