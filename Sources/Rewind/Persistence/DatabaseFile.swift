import Foundation
import GRDB

/// Opens database files, refusing anything that is not a Rewind database before writing to it.
enum DatabaseFile {
  /// What an opened file holds.
  enum Contents {
    /// No tables at all: a new database to set up.
    case empty
    /// A Rewind database at `version`.
    case rewind(version: Int)
  }

  static let sqliteHeader = Array("SQLite format 3\0".utf8)

  /// Opens the database at `path`, creating it (readable by its owner only) if absent.
  ///
  /// Nothing is written to an existing file until it is known to be a Rewind database of a
  /// version this library can read.
  static func open(path: String, configuration: Configuration) throws -> (DatabaseQueue, Contents) {
    try checkHeader(path: path)
    let queue: DatabaseQueue
    do {
      queue = try DatabaseQueue(path: path, configuration: configuration)
    } catch {
      throw RewindError(.notSQLite, "\(path) could not be opened as an SQLite database", underlying: error)
    }
    let contents = try inspect(queue, path: path)
    return (queue, contents)
  }

  /// Refuses a file that exists, is not empty and lacks SQLite's header; creates a missing one.
  private static func checkHeader(path: String) throws {
    let fd = Foundation.open(path, O_RDONLY)
    if fd < 0 {
      guard errno == ENOENT else {
        throw RewindError(.readFailed, "\(path) cannot be read: \(String(cString: strerror(errno)))")
      }
      // Create it now with owner-only permissions; SQLite gives its -wal and -shm files the same.
      let created = Foundation.open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
      guard created >= 0 else {
        throw RewindError(.readFailed, "\(path) cannot be created: \(String(cString: strerror(errno)))")
      }
      close(created)
      return
    }
    defer { close(fd) }
    var header = [UInt8](repeating: 0, count: sqliteHeader.count)
    let count = read(fd, &header, header.count)
    if count == 0 { return }  // An empty file is a new database.
    guard count == header.count, header == sqliteHeader else {
      throw RewindError(.notSQLite, "\(path) is not an SQLite database (its header does not match)")
    }
  }

  static func inspect(_ reader: some DatabaseReader, path: String) throws -> Contents {
    do {
      return try reader.read { db in
        let tables = try String.fetchAll(
          db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        if tables.isEmpty { return .empty }
        guard tables.contains("rewind_meta"), tables.contains("grdb_migrations") else {
          throw RewindError(
            .notRewindDatabase,
            "\(path) is an SQLite database but not a Rewind database (it has no rewind_meta table)")
        }
        let migrator = EngineMigrations.migrator
        if try migrator.hasBeenSuperseded(db) {
          let applied = try migrator.appliedIdentifiers(db).sorted()
          throw RewindError(
            .newerSchema,
            "\(path) was written by a newer Rewind (schema \(applied.last ?? "?"), this library knows up to \(EngineMigrations.embedded.last?.identifier ?? "?")); update the app to open it")
        }
        return .rewind(version: try migrator.appliedIdentifiers(db).count)
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
