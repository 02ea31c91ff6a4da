import Foundation
import GRDB

extension RewindDatabase {
  /// Writes a consistent copy of the database to `destination`, a new file readable by its
  /// owner only, and verifies the copy.
  ///
  /// A plain file copy of a live database is unsafe: the latest commits may still be in the
  /// `-wal` file, so a copy without it is an older state (or a damaged one, if a checkpoint
  /// runs during the copy), and a copy placed next to a stale `-wal` file takes that file's
  /// pages. This copy is SQLite's `VACUUM INTO`, which reads the database in one transaction:
  /// the state as of one commit, in a single file, while apps keep writing. Works on a
  /// database opened read-only.
  ///
  /// - Returns: the seq the copy is at (the last entry of its log).
  /// - Throws: ``RewindError/Code/invalidPath`` if `destination` exists (nothing is
  ///   overwritten); ``RewindError/Code/corruptData`` if the copy does not verify, in which case
  ///   it is deleted.
  @discardableResult
  public func backup(to destination: String) throws -> Int64 {
    try DatabaseFile.checkPath(destination)
    // O_EXCL: never write over an existing file, the database itself included.
    let fd = open(destination, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    guard fd >= 0 else {
      let reason = errno == EEXIST ? "it already exists (choose a new path)" : String(cString: strerror(errno))
      throw RewindError(.invalidPath, "cannot back up to \(destination): \(reason)")
    }
    close(fd)
    do {
      // Outside any transaction (SQLite runs VACUUM in its own); writes only the new file.
      try queue.inDatabase { db in try db.execute(sql: "VACUUM INTO ?", arguments: [destination]) }
      let copy = try RewindDatabase(path: destination, readOnly: true)
      if let first = try copy.verify().problems.first {
        throw RewindError(.corruptData, "the backup at \(destination) does not verify: \(first)")
      }
      return copy.history.lastSeq
    } catch {
      unlink(destination)
      if let error = error as? RewindError { throw error }
      throw RewindError(.readFailed, "backing up \(path) to \(destination) failed", underlying: error)
    }
  }
}
