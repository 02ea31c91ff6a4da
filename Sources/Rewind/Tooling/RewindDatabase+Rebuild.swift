import GRDB

/// What ``RewindDatabase/rebuildTables(progress:)`` did.
public struct TableRebuildReport: Hashable, Sendable {
  /// The seq whose state the tables hold now: the log's last.
  public var seq: Int64
  /// The rows written, by table: each row edited or deleted by hand put back as the log has
  /// it, and each row added by hand removed. Empty when the tables already matched the log.
  public var rowsWritten: [String: Int]
  /// The automatic snapshots dropped: those taken from the tables once they were edited by
  /// hand (or edited themselves), which are not the log's state at their seq. Later ones are
  /// taken in their time.
  public var snapshotsDropped = 0

  /// The rows written in all tables.
  public var rowCount: Int { rowsWritten.values.reduce(0, +) }
}

extension RewindDatabase {
  /// Makes the state tables (entity tables, `list_entries`, `view_state`) exactly what the log
  /// says they hold at its last seq, where they were edited by hand (with the `sqlite3` shell,
  /// say), which ``verify(progress:)`` reports as rows that differ from the replayed log.
  ///
  /// The log is the history's single source of truth and the tables are its latest state, so
  /// the log is not changed and no entry is logged: afterwards `verify` passes again, undo
  /// and redo revert and reapply what the log says, and the hand edits are gone. (A restore
  /// cannot do this: it logs its rows as a change from the tables as they are, so the entry
  /// would record the hand edits as history, and undoing it would put them back.) Stores open
  /// on the file read their state from the tables again before their next write (the file
  /// counts rebuilds in `rewind_meta`, key `tables_rebuilt`), and the rebuild may run while
  /// they go on writing.
  ///
  /// The log is taken at its word. An edit to the log itself that still replays without a
  /// conflict (a value changed in every entry that names it) is not found by `verify`, which
  /// reports it as table rows that differ from the log; the rebuild then makes the tables
  /// follow the edited log. Keep backups (``backup(to:)``) of a file that matters.
  ///
  /// Automatic snapshots are read from the tables, so one taken after the hand edits holds
  /// them, and is not the log's state at its seq: the rebuild drops those (derived data; later
  /// ones are taken in their time), with any stored while it replayed the log. A labelled
  /// snapshot is the user's: one that differs from the log is refused, as any other problem.
  ///
  /// The state is found by the same replay ``verify(progress:)`` runs (`progress` is its
  /// progress), so a rebuild costs about what a verify does, then one write transaction that
  /// reads every table and writes the rows that differ.
  ///
  /// - Returns: the seq the tables hold, and the rows written (none when the tables already
  ///   matched the log).
  /// - Throws: ``RewindError/Code/corruptData`` when `verify` finds any problem beyond rows of
  ///   the tables and automatic snapshots (the log, a labelled snapshot or the undo stacks
  ///   damaged, or the file itself): the
  ///   log would then be no guide, and a backup is the remedy. ``RewindError/Code/externalChange``
  ///   when the file was compacted or migrated while the rebuild read it, or an app logged an
  ///   entry meanwhile that does not follow from the log (written on top of the hand edits).
  ///   ``RewindError/Code/commitFailed`` when SQLite refuses to write a row back (an app's
  ///   `UNIQUE` column whose values were swapped by hand: the rows are written one at a time).
  ///   ``RewindError/Code/readOnly`` for a database opened read-only. Nothing is written then.
  public func rebuildTables(progress: (Int, Int) -> Void = { _, _ in }) throws -> TableRebuildReport {
    do {
      return try rebuildTables(progress: progress, afterReading: {})
    } catch let error as RewindError {
      throw error
    } catch {
      // SQLite refusing a row (an app's UNIQUE column whose values were swapped by hand: the
      // rows are written one at a time).
      throw DatabaseFile.readOnlyRefusal(error, path: path)
        ?? RewindError(
          .commitFailed,
          "rebuilding the tables failed: SQLite refused to write the log's rows back (\(error)); nothing was written",
          underlying: error)
    }
  }

  /// ``rebuildTables(progress:)``, running `afterReading` between the replay and the write
  /// (for tests of what an app may write meanwhile).
  func rebuildTables(progress: (Int, Int) -> Void, afterReading: () throws -> Void) throws -> TableRebuildReport {
    try checkWritable()
    var replayedFrom: (baseSeq: Int64, appSchemaVersion: Int, lastSnapshotID: Int64)?
    let (health, kept) = try verify(progress: progress) { db, history in
      let lastSnapshotID = try db.checkedInteger("SELECT max(id) FROM snapshots", what: "snapshots.id") ?? 0
      replayedFrom = (history.baseSeq, history.tables.appSchema.version, lastSnapshotID)
      return history.lastSeq
    }
    let others = health.problems.indices.filter { health.rebuildable[$0] == nil }.map { health.problems[$0] }
    if let first = others.first {
      throw RewindError(
        .corruptData,
        "refusing to rebuild the tables from the log: verify finds \(others.count) problem\(others.count == 1 ? "" : "s") beyond rows of the tables and automatic snapshots, the first: \(first). The log is no guide to what the tables should hold; restore the file from a backup"
      )
    }
    guard let kept, let replayedFrom else {
      throw RewindError(
        .corruptData, "refusing to rebuild the tables: the replay of the log did not reach its last seq")
    }
    try afterReading()
    return try write("rebuilding the tables") { db, history in
      guard history.baseSeq == replayedFrom.baseSeq, history.tables.appSchema.version == replayedFrom.appSchemaVersion
      else {
        throw RewindError(
          .externalChange,
          "the file was compacted or migrated while its log was replayed for the rebuild; nothing was written, run it again"
        )
      }
      // What an app logged meanwhile, on top of the state replayed.
      var expected = kept.rows
      var seq = kept.seq
      try history.forEachEntry(after: kept.seq, through: history.lastSeq, db) { changes in
        seq += 1
        for change in changes {
          let replaced = expected.replace(with: change, .forward)
          guard replaced != change.before else { continue }
          throw RewindError(
            .externalChange,
            "seq \(seq), logged while the log was replayed for the rebuild, changes \(change.table) \(describe(change.key)) from \(describe(change.before)), which the log does not hold there (it was written on top of rows edited by hand); nothing was written: run `rewind verify`"
          )
        }
      }
      let catalog = history.tables
      let changes = try StateRows(db, catalog: catalog).changes(to: expected).map(Self.clearingOmittedColumn)
      var report = TableRebuildReport(
        seq: history.lastSeq, rowsWritten: Dictionary(changes.map { ($0.table, 1) }, uniquingKeysWith: +))
      // Automatic snapshots verify found differing, and any stored since its replay began:
      // read from the tables before this write, they may hold the hand edits.
      var dropped = health.rebuildable.values.compactMap { problem -> Int64? in
        if case .automaticSnapshot(let id) = problem { id } else { nil }
      }
      dropped += try Int64.fetchAll(
        db, sql: "SELECT id FROM snapshots WHERE kind = 'automatic' AND id > ?",
        arguments: [replayedFrom.lastSnapshotID])
      for id in Set(dropped) {
        // (Its parts go with it: `snapshot_parts_go_with_their_snapshot`.)
        try db.execute(sql: "DELETE FROM snapshots WHERE id = ? AND kind = 'automatic'", arguments: [id])
        report.snapshotsDropped += db.changesCount
      }
      guard !changes.isEmpty else {
        try history.reload(db)
        return report
      }
      _ = try history.writeRows(changes, db)
      // The tables' own rules (a cascade, a trigger of the app's) may write more than asked,
      // and a column added by hand is one the log's rows do not name. (Compared row by row as
      // read; the tables are read whole only to name a difference.)
      if try !catalog.tableNames.allSatisfy({ try expected.matchesTable($0, in: db, catalog: catalog) }),
        let stray = try StateRows(db, catalog: catalog).changes(to: expected).first
      {
        throw RewindError(
          .relationViolation,
          "rebuilding the tables cannot give the log's state: once the log's rows are written, \(stray.table) \(describe(stray.key)) holds \(describe(stray.before)) where the log says \(describe(stray.after)) (a trigger or a cascade wrote it, or the table has a column the log does not know); nothing was written"
        )
      }
      try db.execute(
        sql: """
          INSERT INTO rewind_meta (key, value) VALUES ('tables_rebuilt', 1)
          ON CONFLICT (key) DO UPDATE SET value = value + 1
          """)
      try history.reload(db)
      return report
    }
  }

  /// `change`, with the column its table's images leave out when NULL (a fixed list entry's
  /// `owner`) set to NULL in the row it writes, where the table's row holds a value there (an
  /// owner given by hand): the writer sets only the columns an image names.
  private static func clearingOmittedColumn(_ change: RowChange) -> RowChange {
    guard let column = StateRows.columnOmittedWhenNull(in: change.table), var after = change.after,
      after[column] == nil, let held = change.before?[column], !held.isNull
    else { return change }
    after[column] = .null
    return RowChange(table: change.table, key: change.key, before: change.before, after: after)
  }
}
