import Foundation
import GRDB

/// Maps a state to its tables: sets up and validates the database, and runs the transactions
/// that write rows together with their log entries, each after catching up with what other
/// connections committed.
///
/// One repository owns one connection. It is used from the store's actor only.
final class Repository<State: PersistentState> {
  /// The file's connection; for a read-only store on a file that needs setting up, a private
  /// in-memory copy of it.
  private(set) var database: DatabaseQueue
  let schema: StateSchema<State>
  /// The most rows in one `initialize` entry: about 2.5 MB of log text for rows of tasks.
  static var initialBatchRows: Int { 10_000 }

  /// The log's position, as the file holds it; see ``write(following:_:)``.
  var history: HistoryLog
  /// Whether the file was opened read-only: every write throws ``RewindError/Code/readOnly``.
  let isReadOnly: Bool
  /// The file's path, or `:memory:`, for messages.
  let name: String
  /// Takes automatic snapshots off the caller's thread; `nil` for in-memory and read-only
  /// databases (an in-memory one has no second connection: it takes its snapshots in place).
  let worker: SnapshotWorker?
  /// Runs WAL checkpoints off the caller's thread; `nil` where `worker` is.
  let checkpointer: WALCheckpointer?
  /// Whether the checkpointer's hook is on the connection (from the first write on).
  private var checkpointerInstalled = false
  /// Entries between automatic snapshots instead of the policy's, for benchmarks.
  var snapshotSpacing: Int64?

  /// A released store stops its snapshot under way (at its next part, within milliseconds)
  /// and waits for its checkpoint, rather than go on writing a file its owner may now copy,
  /// move or delete. Its connection, the last to close, then checkpoints the WAL into the file.
  deinit {
    worker?.stop()
    if let checkpointer, checkpointerInstalled {
      database.writeWithoutTransaction { db in checkpointer.uninstall(from: db) }
    }
    checkpointer?.stop()
  }

  /// Opens (creating if needed) the database at `path`, or an in-memory one when `path` is nil,
  /// and sets it up in one write transaction: the engine's migrations, the app's tables, and
  /// for a new file the initial state's rows.
  ///
  /// Read-only, the file must exist and is never written; one that needs setting up or
  /// upgrading is set up in an in-memory copy, whose state does not follow later writes.
  ///
  /// - Throws: ``RewindError`` when the path is not a file path, or the file is not SQLite, not
  ///   a Rewind database, damaged, or from a newer version; the file is left untouched.
  init(path: String?, durability: Durability = .normal, initialState: State, readOnly: Bool = false) throws {
    isReadOnly = readOnly
    let name = path ?? ":memory:"
    self.name = name
    // Before the file is touched: a schema whose parts share rows is the app's error.
    let schema = State.schema.renewed()
    try schema.checkPartsAreDistinct()
    self.schema = schema
    if readOnly, let path, !FileManager.default.fileExists(atPath: path) {
      throw RewindError(.fileNotFound, "\(path) does not exist")
    }
    var configuration = Configuration()
    configuration.busyMode = LockWait.busyMode
    configuration.readonly = readOnly
    configuration.prepareDatabase { db in
      for pragma in durability.connectionPragmas { try db.execute(sql: pragma) }
    }
    // The workers open the file again later, from other threads: by its absolute path, which
    // a change of the working directory meanwhile does not point at another file.
    let absolutePath = path.map { URL(fileURLWithPath: $0).path }
    let checkpointer = absolutePath.flatMap { readOnly ? nil : WALCheckpointer(path: $0, configuration: configuration) }
    self.checkpointer = checkpointer
    let worker = absolutePath.flatMap {
      readOnly ? nil : SnapshotWorker(path: $0, configuration: configuration, checkpointer: checkpointer)
    }
    self.worker = worker
    let contents: DatabaseFile.Contents
    if let path {
      (database, contents) = try DatabaseFile.open(path: path, configuration: configuration)
    } else {
      (database, contents) = (try DatabaseQueue(configuration: configuration), .empty)
    }
    do {
      if path != nil, !readOnly { try DatabaseFile.enableWAL(database) }
      // A file that is set up already is opened without writing (it may be read-only, or
      // shared with a reader that must not be disturbed).
      if case .rewind = contents,
        let history = try database.read({ db in try Self.openWithoutWriting(db, schema, initialState, name) })
      {
        self.history = history
        return
      }
      if readOnly {
        // A file of an earlier release (or one this app has not set up yet) is set up in a
        // private in-memory copy, as `RewindDatabase` does: the file itself is never written.
        let copy = try DatabaseQueue()
        try database.backup(to: copy)
        database = copy
      }
      // Whether the file is new is decided under the write lock: two processes creating one
      // file at once agree on which of them sets it up.
      history = try database.writeWithoutTransaction { db in
        try db.inImmediateTransaction {
          // What this connection saw before the write lock may be stale: another process may
          // have set the file up, or migrated it, in between.
          db.clearSchemaCache()
          let isNew = try DatabaseFile.needsSettingUp(db)
          if !isNew { _ = try DatabaseFile.checkRewindTables(db, path: name) }
          try EngineMigrations.migrate(db, path: name)
          if !isNew { try Self.checkIsThisAppsFile(db, schema, name) }
          var history = try HistoryLog(db)
          // The app's migrations run on its tables as the file has them, before the schema
          // creates what is missing.
          let migrated = isNew ? 0 : try AppMigrator.migrate(db, schema: schema, history: &history, path: name)
          try schema.setUp(db, initial: initialState)
          // A new file is created at the latest app schema: its migrations are recorded as done.
          if isNew { try AppMigrator.recordAsCreated(schema.migrations, db) }
          try history.reload(db)
          if migrated > 0 {
            // The migrated tables must read as the app's state before the migrations are kept: a
            // migration that forgot a column the entity reads or writes (or left rows that do
            // not decode) is refused here, with the file as it was, rather than kept in a
            // shape that neither this app nor its earlier version can open.
            _ = try schema.loaded(db, onto: initialState)
          }
          if isNew {
            // In a file shared with the app's own tables, Rewind's must start empty: rows the
            // log does not hold could never be undone, restored or verified.
            for table in history.tables.entityTables {
              if try Bool.fetchOne(db, sql: "SELECT 1 FROM \(table.quotedDatabaseIdentifier) LIMIT 1") == true {
                throw RewindError(
                  .schemaMismatch,
                  "\(name): table \(table) exists already, with rows Rewind's log does not hold; let Rewind create its entity tables (name the app's own tables differently)"
                )
              }
            }
            try db.execute(sql: "INSERT INTO rewind_meta (key, value) VALUES ('format', 'rewind')")
            // The initial state is logged as a run of entries of bounded size: a large one is
            // never one giant row, nor all its rows in memory at once. (Tables that refer to
            // each other in a cycle keep one entry: no batch order would hold their references.)
            let relations = history.tables.relations
            var run: (first: Int64, last: Int64)?
            try schema.rows(
              of: initialState, batchSize: relations.hasCycle ? .max : Self.initialBatchRows,
              depth: { relations.depth[$0] ?? 0 }
            ) { batch in
              let seq = try history.append(
                LogEntry(kind: .initialize, action: "initialize", payload: "{}", changes: batch, undo: .none), db)
              run = (run?.first ?? seq, seq)
            }
            if let run, run.last > run.first {
              try db.execute(
                sql: "INSERT INTO rewind_meta (key, value) VALUES ('initialized_through', ?)", arguments: [run.last])
              try history.reload(db)
            }
          }
          return history
        }
      }
    } catch let error as RewindError {
      throw error
    } catch {
      throw DatabaseFile.readOnlyRefusal(error, path: name)
        ?? RewindError(.schemaMismatch, "setting up \(name) failed", underlying: error)
    }
  }

  /// The history of a Rewind file (as opening it found) that needs no writing to open (no
  /// pending migration, its tables set up and registered), or `nil` when opening must write.
  /// Runs in a read transaction, where GRDB refuses any write: a set-up step that would write
  /// says so.
  private static func openWithoutWriting(
    _ db: Database, _ schema: StateSchema<State>, _ initialState: State, _ name: String
  ) throws -> HistoryLog? {
    db.clearSchemaCache()
    guard try !EngineMigrations.isPending(db) else { return nil }
    try checkIsThisAppsFile(db, schema, name)
    let recorded = try AppSchemaHistory(db)
    guard try AppMigrator.pending(schema.migrations, recorded: recorded, path: name).isEmpty else { return nil }
    do {
      try schema.setUp(db, initial: initialState)
    } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY {
      return nil
    }
    return try HistoryLog(db)
  }

  /// Refuses the file of another app: one whose entity tables are none of this app's, where
  /// none of its migrations accounts for the difference (a transform may rename tables, a
  /// change may drop them). Opening it would create this app's tables beside the other's,
  /// record this app's migrations as done, and offer the other app's history to undo.
  private static func checkIsThisAppsFile(_ db: Database, _ schema: StateSchema<State>, _ name: String) throws {
    let declared = Set(schema.parts.compactMap(\.declaredEntityTable))
    guard !declared.isEmpty else { return }
    let registered = try String.fetchAll(db, sql: "SELECT name FROM rewind_entity_tables ORDER BY name")
    guard !registered.isEmpty, declared.isDisjoint(with: registered) else { return }
    for migration in schema.migrations {
      guard case .changes(let changes) = migration.kind else { return }
      for change in changes {
        if case .dropTable(let table, _) = change.operation, registered.contains(table) { return }
      }
    }
    throw RewindError(
      .schemaMismatch,
      "\(name) holds another app's state: its entity tables (\(registered.joined(separator: ", "))) are none of this app's (\(declared.sorted().joined(separator: ", "))), and no migration of this app accounts for them; nothing was written. Open it with the app that wrote it (the rewind tool reads any Rewind file)"
    )
  }

  /// Runs `body` in one write transaction, after bringing the position up to date with what
  /// other connections committed and letting `follow` bring the in-memory state along.
  ///
  /// If anything throws, the transaction rolls back and the position is what the file holds:
  /// caught up if `follow` succeeded (those entries were committed by others and stay), as it
  /// was otherwise.
  ///
  /// `follow` returns whether it moved the position when the sync found no entry to follow (a
  /// forced read of it, and the repair after). When neither did, the position saved before the
  /// sync is what a failure puts back: at most it predates a read that found no new entry, and
  /// it holds the `data_version` it was read at, so the next write reads the position again.
  /// Only the position is put back: the catalog changes only when the sync reads the file
  /// again, which fails whole or not at all, and the rest are caches. (A sync that read the
  /// file and then failed, or whose write failed after it, leaves the catalog as the file has
  /// it beside the position from before: the position's `data_version` makes the next write
  /// read both again.)
  func write<T>(
    following follow: (Database, HistoryLog.Sync, inout HistoryLog) throws -> Bool,
    _ body: (Database, inout HistoryLog) throws -> T
  ) throws -> T {
    guard !isReadOnly else {
      throw RewindError(.readOnly, "\(name) was opened read-only; open it for writing to change it")
    }
    var synced = history.position
    do {
      return try database.writeWithoutTransaction { db in
        prepareCheckpoints(db)
        // The history passed on as one access for the whole transaction: each access to a
        // class's stored property is checked for exclusivity at run time.
        func transaction(_ history: inout HistoryLog) throws -> T {
          let result = try db.inImmediateTransaction(statements: history.statements) {
            let sync = try history.sync(db)
            try checkAppSchema(version: history.tables.appSchema.version)
            if try follow(db, sync, &history) || !sync.isCurrent { synced = history.position }
            return try body(db, &history)
          }
          history.noteCommitted(db)
          return result
        }
        return try transaction(&history)
      }
    } catch {
      history.position = synced
      throw error
    }
  }

  /// Puts the checkpointer's hook on the connection at the first write.
  private func prepareCheckpoints(_ db: Database) {
    guard let checkpointer else { return }
    if !checkpointerInstalled {
      checkpointer.install(on: db)
      checkpointerInstalled = true
    }
  }

  /// Throws ``RewindError/Code/newerAppSchema`` once a newer version of the app migrated the
  /// file this store has open: its state no longer has the file's shape.
  ///
  /// It takes the version, not the history: a `HistoryLog` passed from a stored property is
  /// copied whole for the call, on every write.
  func checkAppSchema(version fileVersion: Int) throws {
    guard fileVersion <= schema.version else {
      throw RewindError(
        .newerAppSchema,
        "\(name) was migrated to app schema version \(fileVersion) by a newer version of the app while this one (version \(schema.version)) had it open; nothing was written, quit this version"
      )
    }
  }

  /// Takes an automatic snapshot when the policy wants one: in the background for a file (see
  /// ``SnapshotWorker``), in place for an in-memory database. A failure here loses nothing (the
  /// snapshot only speeds up restores), so it is left for a later commit to retry. The
  /// snapshot is read from the tables and labelled with the seq they are at inside its own
  /// transaction, whoever wrote last.
  func takeAutomaticSnapshotIfDue(rows countRows: @autoclosure () -> Int) {
    // Counting the rows walks the state's parts: only once the fewest entries have passed.
    guard history.wantsAutomaticSnapshot(rows: 0, spacing: snapshotSpacing) else { return }
    guard
      history.wantsAutomaticSnapshot(
        rows: countRows(), spacing: snapshotSpacing, taken: worker?.latestSnapshotSeq ?? 0)
    else { return }
    if let worker {
      worker.startSnapshot()
      return
    }
    // A snapshot only speeds up later jumps; the action is already committed, so a snapshot
    // that fails (a full disk, a busy file) must not fail its send. The next one is due soon.
    _ = try? database.writeWithoutTransaction { db in
      try db.inImmediateTransaction { try history.takeSnapshot(kind: "automatic", label: nil, db) }
    }
  }

  /// The undo and redo stacks.
  func stacks(limit: Int) throws -> HistoryStacks {
    try database.read { db in try HistoryLog.stacks(db, limit: limit) }
  }

  func step(movedBy seq: Int64) throws -> HistoryStep? {
    try database.read { db in try HistoryLog.step(movedBy: seq, db) }
  }
}
