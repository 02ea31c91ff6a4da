import Foundation
import GRDB

/// A Rewind database opened with no app code: what the `rewind` tool works with.
///
/// Everything it does uses only what the file holds: the declared tables, the order lists,
/// the view-state rows and the row changes in the action log. Writes (undo, redo, restore,
/// import) are log entries like the app's, so the app can undo them too.
///
/// ```swift
/// let database = try RewindDatabase(path: "tasks.sqlite")
/// let json = try database.export(at: 12)
/// try database.restore(to: 12)
/// ```
///
/// The app and a `RewindDatabase` may have the same file open: both use WAL with a busy
/// timeout, every write works on the position as the file has it inside its transaction, and a
/// running store applies what the tool wrote before its next write.
///
/// ## Topics
/// ### Opening
/// - ``init(path:readOnly:)``
/// - ``isReadOnly``
/// ### Reading
/// - ``inspect()``
/// - ``log(from:last:)``
/// - ``export(at:)``
/// - ``snapshots()``
/// - ``step(movedBy:)``
/// - ``position()``
/// - ``log(_:)``
/// - ``entry(_:)``
/// - ``backup(to:)``
/// ### Writing history
/// - ``undo()``
/// - ``redo()``
/// - ``snapshot(label:)``
/// - ``restore(to:)``
/// - ``restore(to:timeline:)``
/// - ``restore(snapshot:)``
/// - ``importState(_:)``
/// ### Maintenance
/// - ``verify(progress:)``
/// - ``rebuildTables(progress:)``
/// - ``compact(keep:progress:)``
public final class RewindDatabase {
  let queue: DatabaseQueue
  var history: HistoryLog
  /// The file's path.
  public let path: String
  /// Whether the database was opened read-only: reading, exporting and verifying work, and
  /// every write throws ``RewindError/Code/readOnly``.
  public let isReadOnly: Bool

  /// Opens an existing Rewind database.
  ///
  /// Read-only, nothing is ever written: the file may be read-only, sit in a read-only folder,
  /// or lack its `-shm` file. A file from an earlier release is then upgraded in a private
  /// in-memory copy (memory proportional to the file), since the file itself cannot be.
  ///
  /// - Parameters:
  ///   - path: the database file.
  ///   - readOnly: open for reading only.
  /// - Throws: ``RewindError`` if the file is missing, is not SQLite, is not a Rewind database,
  ///   or was written by a newer version. Nothing is written to such a file.
  public init(path: String, readOnly: Bool = false) throws {
    guard FileManager.default.fileExists(atPath: path) else {
      throw RewindError(.fileNotFound, "\(path) does not exist")
    }
    self.path = path
    isReadOnly = readOnly
    var configuration = Configuration()
    configuration.busyMode = LockWait.busyMode
    configuration.readonly = readOnly
    // Compaction writes the tool's largest WALs: cut back as a store's are (see `Durability`).
    configuration.prepareDatabase { db in try db.execute(sql: Durability.walSizeLimitPragma) }
    var (queue, contents) = try DatabaseFile.open(path: path, configuration: configuration)
    guard case .rewind = contents else {
      throw RewindError(
        .notRewindDatabase,
        "\(path) has no Rewind tables: it is not a Rewind database (the app creates them when it first opens the file)")
    }
    do {
      if try queue.read(EngineMigrations.isPending) {
        if readOnly {
          let copy = try DatabaseQueue()
          try queue.backup(to: copy)
          queue = copy
        }
        history = try queue.writeWithoutTransaction { db in
          try db.inImmediateTransaction {
            db.clearSchemaCache()
            try EngineMigrations.migrate(db, path: path)
            return try HistoryLog(db)
          }
        }
      } else {
        history = try queue.read { db in try HistoryLog(db) }
      }
      self.queue = queue
    } catch let error as RewindError {
      throw error
    } catch {
      throw RewindError(.readFailed, "\(path) could not be read as a Rewind database", underlying: error)
    }
  }

  /// Runs `body` in one write transaction, on the history position as it is inside that
  /// transaction: the app may have appended entries since this database was opened, and the
  /// tool works on top of them rather than refusing or mislabelling a snapshot.
  ///
  /// SQLite's own refusals (a trigger's, a full disk) are this layer's error, naming
  /// `operation` and saying that nothing was written, as the store's are.
  func write<T>(_ operation: String, _ body: (Database, inout HistoryLog) throws -> T) throws -> T {
    try checkWritable()
    do {
      let result = try queue.writeWithoutTransaction { db in
        try db.inImmediateTransaction {
          try history.reload(db)
          return try body(db, &history)
        }
      }
      // The write has committed: a snapshot that fails now only loses a speed-up, as in the
      // store, so it must not turn a done undo or restore into a reported failure.
      try? takeAutomaticSnapshotIfDue()
      return result
    } catch {
      try? queue.read { db in try history.reload(db) }
      if let refusal = DatabaseFile.readOnlyRefusal(error, path: path) { throw refusal }
      guard error is DatabaseError else { throw error }
      throw RewindError(.commitFailed, "\(operation) failed; nothing was written", underlying: error)
    }
  }

  /// Whether this process may write the file at `path` and create its `-wal` and `-shm` files
  /// beside it: what opening it for writing needs.
  public static func canWrite(_ path: String) -> Bool { DatabaseFile.canWrite(path) }

  /// Throws ``RewindError/Code/readOnly`` if the database was opened read-only.
  func checkWritable() throws {
    guard !isReadOnly else {
      throw RewindError(.readOnly, "\(path) was opened read-only; open it for writing to change it")
    }
  }

  /// Runs `body` in a read transaction, on the history position as it is in that transaction.
  func read<T>(_ body: (Database, HistoryLog) throws -> T) throws -> T {
    try queue.read { db in
      try history.reload(db)
      return try body(db, history)
    }
  }

  /// Takes an automatic snapshot when the policy says so (see ``HistoryLog/minimumSnapshotSpacing``).
  func takeAutomaticSnapshotIfDue() throws {
    // Counting rows costs a scan of every table (tens of milliseconds at a million rows): do it
    // only once as many entries have passed as the last snapshot held rows, the size the state
    // had then.
    guard history.wantsAutomaticSnapshot(rows: Int(history.lastSnapshotRows)) else { return }
    let due = try queue.read { db in
      try history.reload(db)
      return history.wantsAutomaticSnapshot(rows: Int(try history.stateRowCount(db)))
    }
    // Read as a store's are, in steps (see `SteppedSnapshotRead`), and stored in parts: an app
    // sending on the file waits for one part's insert at most, and its WAL starts over
    // between the steps.
    guard due, let read = try SteppedSnapshotRead.snapshot(from: queue),
      try SnapshotWorker.store(read.snapshot, in: queue) != nil
    else { return }
    try queue.read { db in try history.reload(db) }
  }

  // MARK: - History

  /// Reverts the last undo step, as the store does. Returns the new entry's seq, or `nil`.
  ///
  /// The tool has no app code, so it cannot repair view state that points at a missing entity;
  /// the app repairs it when it next opens the database.
  @discardableResult
  public func undo() throws -> Int64? {
    try write("undo") { db, history in try history.undo(db)?.seq }
  }

  /// Reapplies the last undone step. Returns the new entry's seq, or `nil`.
  @discardableResult
  public func redo() throws -> Int64? {
    try write("redo") { db, history in try history.redo(db)?.seq }
  }

  /// Sets the whole state to what it was right after `seq`, as one `restore` entry (an undo
  /// step when it changes the document, as for any entry).
  ///
  /// - Returns: the entry's seq, or `nil` when the state already is that one (nothing is
  ///   logged).
  /// - Throws: ``RewindError/Code/unknownSeq`` if `seq` is not in the log or was compacted away.
  /// - Complexity: proportional to the entries since `seq` when that is nearer than any
  ///   snapshot; otherwise the state's size plus at most half the snapshot spacing of entries.
  @discardableResult
  public func restore(to seq: Int64) throws -> Int64? {
    try restore(to: seq, timeline: .all)
  }

  /// Sets part of the state to what it was right after `seq`, as one `restore` entry: the
  /// whole state, the document (entities and lists, keeping the view state), or the view
  /// state (keeping the document). The entry is an undo step when it changes the document; one
  /// that changes the view state alone is not, as a view-only action is not.
  ///
  /// - Returns: the entry's seq, or `nil` when that part already is as it was.
  /// - Throws: ``RewindError/Code/unknownSeq`` if `seq` is not in the log or was compacted away.
  @discardableResult
  public func restore(to seq: Int64, timeline: Timeline) throws -> Int64? {
    try write("restoring seq \(seq)") { db, history in
      // Near the head this reads only the entries since `seq`; far from it, the nearest
      // snapshot and the entries between.
      let changes = try history.changesJumping(to: seq, timeline: timeline, db)
      guard !changes.isEmpty else { return nil }
      let payload = timeline == .all ? #"{"to":\#(seq)}"# : #"{"timeline":"\#(timeline.rawValue)","to":\#(seq)}"#
      return try history.append(
        LogEntry(kind: .restore, action: "restore", payload: payload, changes: changes, undo: .step(group: nil)), db)
    }
  }

  /// Sets the whole state to a labelled snapshot's, as one `restore` entry (an undo step
  /// when it changes the document, as for any entry).
  ///
  /// - Returns: the entry's seq, or `nil` when the state already is the snapshot's.
  /// - Throws: ``RewindError/Code/snapshotLabel`` if there is no snapshot with that label;
  ///   ``RewindError/Code/corruptData`` if it was edited after it was taken.
  @discardableResult
  public func restore(snapshot label: String) throws -> Int64? {
    try write("restoring snapshot \(label)") { db, history in
      guard
        let row = try Row.fetchOne(
          db, sql: "SELECT seq, rows, part_set, checksum, schema_seq FROM snapshots WHERE label = ?", arguments: [label]
        )
      else {
        throw RewindError(.snapshotLabel, "there is no snapshot labelled \(label)")
      }
      try history.checkNotBeforeBarrier(try row.checked("seq", in: EngineTable.snapshots.name))
      let target = try history.snapshotRows(row, db)
      var payload = #"{"snapshot":"#
      JSONText.appendString(label, to: &payload)
      payload += "}"
      return try history.replaceState(
        StateRows(db, catalog: history.tables), with: target, kind: .restore, payload: payload, db)
    }
  }

  /// Stores the current state as a snapshot named `label`. Returns the seq it was taken at.
  ///
  /// - Throws: ``RewindError/Code/snapshotLabel`` if the label is empty or already used.
  @discardableResult
  public func snapshot(label: String) throws -> Int64 {
    guard !label.isEmpty else { throw RewindError(.snapshotLabel, "a snapshot label cannot be empty") }
    // SQLite's text ends at a NUL for some readers: "a\0b" would be stored as "a".
    guard !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
      throw RewindError(.invalidValue, "a snapshot label cannot hold control characters (such as NUL or a newline)")
    }
    try checkWritable()
    for _ in 0..<3 {
      if try queue.read({ db in
        try Bool.fetchOne(db, sql: "SELECT 1 FROM snapshots WHERE label = ?", arguments: [label]) == true
      }) {
        throw RewindError(.snapshotLabel, "a snapshot labelled \(label) already exists")
      }
      // Read and stored as an automatic snapshot is (see `takeAutomaticSnapshotIfDue`).
      let read = try SteppedSnapshotRead.snapshot(from: queue, evenIfUpToDate: true)
      let stored: Int64?
      do {
        stored = try read.flatMap { try SnapshotWorker.store($0.snapshot, label: label, in: queue) }
      } catch {
        throw DatabaseFile.readOnlyRefusal(error, path: path) ?? error
      }
      try queue.read { db in try history.reload(db) }
      if let stored { return stored }
      // Another process migrated the app's schema while the state was read: read it again.
    }
    throw RewindError(
      .readFailed,
      "the app's schema changed three times while the snapshot \(label) was read (another process is migrating the file); nothing was stored, try again"
    )
  }

  /// The step that the `undo` or `redo` entry `seq` reverted or reapplied, or `nil` when
  /// `seq` is no such entry.
  public func step(movedBy seq: Int64) throws -> HistoryStep? {
    try queue.read { db in try HistoryLog.step(movedBy: seq, db) }
  }

  /// Where the history stands, read cheaply enough to poll: the last seq, where history
  /// starts, and the steps redo would reapply.
  /// - Complexity: O(log n) plus the size of the redo stack.
  public func position() throws -> HistoryPosition {
    // Read directly rather than through `read`, whose full position reload also looks for an
    // open undo group, which can mean a long walk back over view-only entries.
    try queue.read { db in
      var redo: [Int64] = []
      var canUndo = false
      // Undone steps are the largest ids: walk down until the first step that is not. Steps
      // from before a barrier migration are refused by undo and redo: not offered.
      let barrier = try AppSchemaHistory(db).lastBarrier
      let steps = try Row.fetchCursor(
        db, sql: "SELECT id, undone FROM undo_steps WHERE id >= ? ORDER BY id DESC", arguments: [barrier])
      while let step = try steps.next() {
        guard try step.checked("undone", in: EngineTable.undoSteps.name, as: Bool.self) else {
          canUndo = true
          break
        }
        redo.append(try step.checked("id", in: EngineTable.undoSteps.name, as: Int64.self))
      }
      let base = try HistoryLog.fileBaseSeq(db)
      let last = try db.checkedInteger("SELECT max(seq) FROM action_log", what: "action_log.seq")
      return HistoryPosition(
        lastSeq: last ?? base, baseSeq: base, canUndo: canUndo, redoSteps: redo,
        tablesRebuilt: try HistoryLog.fileTablesRebuilt(db))
    }
  }

  /// The snapshots, oldest first.
  public func snapshots() throws -> [SnapshotInfo] {
    try queue.read { db in try HistoryLog.snapshots(db) }
  }
}
