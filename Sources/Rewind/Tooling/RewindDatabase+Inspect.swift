import Foundation
import GRDB

/// What ``RewindDatabase/inspect()`` finds in a database.
public struct Inspection: Sendable {
  /// The path and size of the file (the main file only, not its WAL).
  public var path: String
  public var fileSize: Int64
  /// The engine migrations applied, in order; the schema version is their count.
  public var migrations: [String]
  /// The app's own migrations, in order (see ``SchemaMigration``); the app schema version is
  /// their count plus 1.
  public var appMigrations: [String]
  /// Entity tables and their row counts, sorted by name.
  public var entityTables: [(name: String, rows: Int)]
  /// Order lists, their entity tables and lengths, sorted by name; a keyed family has the
  /// table of its owners, and its count is that of all its lists.
  public var lists: [(name: String, entityTable: String, ownerTable: String?, count: Int)]
  /// The view-state tree: path and JSON value, sorted by path.
  public var viewState: [(path: String, value: String)]
  /// The seq of the last entry, and the seq history starts after.
  public var lastSeq: Int64
  public var baseSeq: Int64
  /// The steps undo and redo can move (steps from before a barrier migration stay on the
  /// stacks, refused, and are not counted).
  public var undoSteps: Int
  public var redoSteps: Int
  public var snapshots: [SnapshotInfo]
  /// How many times ``RewindDatabase/rebuildTables(progress:)`` put the tables back to the
  /// log's rows after hand edits (it logs no entry: this count is its trace in the file).
  public var tablesRebuilt: Int64
}

extension Inspection: CustomStringConvertible {
  public var description: String {
    var lines = ["File: \(path) (\(fileSize) bytes)"]
    lines.append("Schema: version \(migrations.count) (\(migrations.joined(separator: ", ")))")
    lines.append(
      "App schema: version \(appMigrations.count + 1)"
        + (appMigrations.isEmpty ? "" : " (\(appMigrations.joined(separator: ", ")))"))
    lines.append("Entity tables:")
    lines += entityTables.map { "  \($0.name): \($0.rows) row\($0.rows == 1 ? "" : "s")" }
    lines.append("Order lists:")
    lines += lists.map { list in
      let owners = list.ownerTable.map { ", one list per row of \($0)" } ?? ""
      return "  \(list.name) (ids of \(list.entityTable)\(owners)): \(list.count) id\(list.count == 1 ? "" : "s")"
    }
    lines.append("View state:")
    lines += viewState.isEmpty ? ["  (empty)"] : viewState.map { "  \($0.path) = \($0.value)" }
    lines.append(
      "History: last seq \(lastSeq)\(baseSeq > 0 ? ", starts after seq \(baseSeq) (compacted)" : ""); "
        + "undo: \(undoSteps) step\(undoSteps == 1 ? "" : "s")\(undoSteps > 0 ? " (can undo)" : ""); "
        + "redo: \(redoSteps) step\(redoSteps == 1 ? "" : "s")\(redoSteps > 0 ? " (can redo)" : "")"
        + (tablesRebuilt > 0
          ? "; tables rebuilt from the log \(tablesRebuilt) time\(tablesRebuilt == 1 ? "" : "s") (after hand edits)"
          : ""))
    lines.append("Snapshots: \(snapshots.count)")
    lines += snapshots.map {
      "  \($0.label.map { "\"\($0)\"" } ?? "(\($0.kind))") at seq \($0.seq), \($0.kind), \($0.time)"
    }
    return lines.joined(separator: "\n")
  }
}

/// One `action_log` entry, as ``RewindDatabase/log(from:last:)`` lists it.
public struct LogRecord: Sendable {
  public var seq: Int64
  public var time: String
  /// `action`, `initialize`, `undo`, `redo`, `jump`, `repair`, `restore` or `import`.
  public var kind: String
  public var action: String
  /// The payload and the row changes, as stored (JSON text).
  public var payload: String
  public var changes: String
  public var step: Int64?
  public var groupKey: String?

  /// Per table, how many rows the entry inserted (+), updated (~) and deleted (-).
  public func changeSummary() throws -> String {
    let decoded = try RowChange.decodeJSON(changes)
    guard !decoded.isEmpty else { return "no changes" }
    var counts: [String: (inserted: Int, updated: Int, deleted: Int)] = [:]
    for change in decoded {
      var count = counts[change.table] ?? (0, 0, 0)
      switch (change.before, change.after) {
      case (nil, _): count.inserted += 1
      case (_, nil): count.deleted += 1
      default: count.updated += 1
      }
      counts[change.table] = count
    }
    return counts.keys.sorted().map { table in
      let count = counts[table, default: (0, 0, 0)]
      let parts = [("+", count.inserted), ("~", count.updated), ("-", count.deleted)].filter { $0.1 > 0 }
      return "\(table) " + parts.map { "\($0.0)\($0.1)" }.joined(separator: " ")
    }.joined(separator: ", ")
  }

  /// The record as one line of JSON (JSON Lines), payload and changes embedded as JSON.
  public var jsonLine: String {
    var out = #"{"seq":\#(seq),"time":"#
    JSONText.appendString(time, to: &out)
    out += #","kind":"#
    JSONText.appendString(kind, to: &out)
    out += #","action":"#
    JSONText.appendString(action, to: &out)
    out += #","step":\#(step.map(String.init) ?? "null"),"group":"#
    if let groupKey { JSONText.appendString(groupKey, to: &out) } else { out += "null" }
    out += #","payload":\#(payload),"changes":\#(changes)}"#
    return out
  }
}

/// Which log entries ``RewindDatabase/log(_:)`` lists: a page of at most `limit` entries, with
/// optional filters. Filters combine with AND.
public struct LogQuery: Sendable, Equatable {
  /// Entries from this seq on, oldest first; with `before`, the newest entries below it.
  public var from: Int64?
  /// The page ends below this seq: the `limit` entries just before it.
  public var before: Int64?
  /// The most entries to list.
  public var limit: Int
  /// Only these kinds (`action`, `undo`, `redo`, `jump`, `repair`, `restore`, `import`, ...).
  public var kinds: [String]
  /// Only actions with this exact name.
  public var action: String?
  /// Only entries that changed a row of this table.
  public var table: String?
  /// Only entries whose action name, payload or row changes contain this text (as typed, not
  /// as the log's JSON escapes it: a quote, a newline, a NUL; a view-state value's text is
  /// found too, though the changes escape it twice).
  public var text: String?

  public init(
    from: Int64? = nil, before: Int64? = nil, limit: Int = 200, kinds: [String] = [], action: String? = nil,
    table: String? = nil, text: String? = nil
  ) {
    self.from = from
    self.before = before
    self.limit = limit
    self.kinds = kinds
    self.action = action
    self.table = table
    self.text = text
  }
}

extension RewindDatabase {
  /// A page of log entries, in seq order, read with the primary key's index: one page of a
  /// million-entry log costs what a page of a small one does (filters scan from the page's
  /// start until the page is full).
  public func log(_ query: LogQuery) throws -> [LogRecord] {
    guard query.limit >= 0 else {
      throw RewindError(.invalidValue, "the number of entries to list must be 0 or more, not \(query.limit)")
    }
    return try queue.read { db in
      var conditions: [String] = []
      var arguments: StatementArguments = []
      if let from = query.from {
        conditions.append("seq >= ?")
        arguments += [from]
      }
      if let before = query.before {
        conditions.append("seq < ?")
        arguments += [before]
      }
      if !query.kinds.isEmpty {
        conditions.append("kind IN (\(query.kinds.map { _ in "?" }.joined(separator: ", ")))")
        arguments += StatementArguments(query.kinds)
      }
      if let action = query.action {
        conditions.append("action = ?")
        arguments += [action]
      }
      if let table = query.table {
        var member = #""table":"#
        JSONText.appendString(table, to: &member)
        conditions.append("changes LIKE ? ESCAPE '\\'")
        arguments += ["%" + member.escapedForLike + "%"]
      }
      if let text = query.text, !text.isEmpty {
        // The log's JSON holds text escaped (a quote as `\"`, a newline as `\n`, a NUL as
        // `\u0000`): payloads and changes are searched for the text as written there, the
        // action's name (a plain column) for the text as given, unless it holds a NUL, which
        // ends a `LIKE` pattern (`%` alone then: every entry). A view-state value is JSON
        // text inside the changes' JSON, escaped twice there, so changes are searched for
        // that form too when it differs.
        let once = Self.jsonEscaped(text)
        let twice = Self.jsonEscaped(once)
        let inJSON = "%" + once.escapedForLike + "%"
        var matches = "payload LIKE ? ESCAPE '\\' OR changes LIKE ? ESCAPE '\\'"
        arguments += [inJSON, inJSON]
        if twice != once {
          matches += " OR changes LIKE ? ESCAPE '\\'"
          arguments += ["%" + twice.escapedForLike + "%"]
        }
        if !text.contains("\0") {
          matches += " OR action LIKE ? ESCAPE '\\'"
          arguments += ["%" + text.escapedForLike + "%"]
        }
        conditions.append("(\(matches))")
      }
      conditions.append(HistoryLog.followsBase)
      let filter = "WHERE " + conditions.joined(separator: " AND ")
      let columns = "seq, time, kind, action, payload, changes, step, group_key"
      // Newest first when the page ends at `before` (or at the end), oldest first from `from`.
      let newestFirst = query.from == nil
      var sql = "SELECT \(columns) FROM action_log \(filter) ORDER BY seq \(newestFirst ? "DESC" : "") LIMIT ?"
      if newestFirst { sql = "SELECT * FROM (\(sql)) ORDER BY seq" }
      arguments += [query.limit]
      return try Row.fetchAll(db, sql: sql, arguments: arguments).map(LogRecord.init(row:))
    }
  }

  /// `text` as the inside of a JSON string holds it, without the quotes.
  private static func jsonEscaped(_ text: String) -> String {
    var written = ""
    JSONText.appendString(text, to: &written)
    return String(written.dropFirst().dropLast())
  }

  /// Describes the database: schema, tables, lists, view state, history position, snapshots.
  public func inspect() throws -> Inspection {
    try read { db, history in
      let catalog = history.tables
      let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
      return Inspection(
        path: path,
        fileSize: size,
        migrations: try EngineMigrations.applied(db),
        appMigrations: catalog.appSchema.records.map(\.identifier),
        entityTables: try catalog.entityTables.map {
          ($0, try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0.quotedDatabaseIdentifier)") ?? 0)
        },
        lists: try catalog.lists.keys.sorted().map {
          (
            $0, catalog.lists[$0] ?? "", catalog.listOwners[$0],
            try Int.fetchOne(db, sql: "SELECT count(*) FROM list_entries WHERE list = ?", arguments: [$0]) ?? 0
          )
        },
        viewState: try Row.fetchAll(db, sql: "SELECT path, value FROM view_state ORDER BY path").map {
          (
            try $0.checked("path", in: EngineTable.viewState.name),
            try $0.checked("value", in: EngineTable.viewState.name)
          )
        },
        lastSeq: history.lastSeq,
        baseSeq: history.baseSeq,
        undoSteps: try Int.fetchOne(
          db, sql: "SELECT count(*) FROM undo_steps WHERE undone = 0 AND id >= ?",
          arguments: [history.tables.appSchema.lastBarrier]) ?? 0,
        redoSteps: try Int.fetchOne(
          db, sql: "SELECT count(*) FROM undo_steps WHERE undone = 1 AND id >= ?",
          arguments: [history.tables.appSchema.lastBarrier]) ?? 0,
        snapshots: try HistoryLog.snapshots(db),
        tablesRebuilt: history.position.tablesRebuilt)
    }
  }

  /// Log entries in seq order: those from `from` on (when given), the last `last` of them
  /// (when given).
  ///
  /// - Throws: ``RewindError/Code/unknownSeq`` if `from` is past the last seq.
  public func log(from: Int64? = nil, last: Int? = nil) throws -> [LogRecord] {
    if let last, last < 0 {
      throw RewindError(.unknownSeq, "the number of entries to list must be 0 or more, not \(last)")
    }
    return try queue.read { db in
      if let from {
        // The last seq alone, not a whole history position (`HistoryLog(db)` reads the catalog,
        // the app schema and the undo stacks); compaction always leaves its own entry.
        let lastSeq = try db.checkedInteger("SELECT max(seq) FROM action_log", what: "action_log.seq") ?? 0
        guard from <= lastSeq else {
          throw RewindError(.unknownSeq, "there is no seq \(from) in the log: its last seq is \(lastSeq)")
        }
      }
      var sql = """
        SELECT seq, time, kind, action, payload, changes, step, group_key FROM action_log \
        WHERE seq >= ? AND \(HistoryLog.followsBase)
        """
      var arguments: StatementArguments = [from ?? 0]
      if let last {
        sql = "SELECT * FROM (\(sql) ORDER BY seq DESC LIMIT ?) ORDER BY seq"
        arguments += [last]
      } else {
        sql += " ORDER BY seq"
      }
      return try Row.fetchAll(db, sql: sql, arguments: arguments).map(LogRecord.init(row:))
    }
  }

  /// The log entry `seq`.
  ///
  /// - Throws: ``RewindError/Code/unknownSeq`` if there is none.
  public func entry(_ seq: Int64) throws -> LogRecord {
    try queue.read { db in
      guard
        let row = try Row.fetchOne(
          db,
          sql: """
            SELECT seq, time, kind, action, payload, changes, step, group_key FROM action_log \
            WHERE seq = ? AND \(HistoryLog.followsBase)
            """,
          arguments: [seq])
      else {
        // A seq compaction folded is named as such, as jumps and exports name it.
        let base = try HistoryLog(db).baseSeq
        if seq >= 1, seq <= base {
          throw RewindError(.unknownSeq, "entry \(seq) was compacted away: history starts after seq \(base)")
        }
        let range = try Row.fetchOne(
          db, sql: "SELECT min(seq), max(seq) FROM action_log WHERE \(HistoryLog.followsBase)")
        let bounds = range.map { "\($0[0] as Int64? ?? 0) to \($0[1] as Int64? ?? 0)" } ?? "nothing"
        throw RewindError(.unknownSeq, "there is no entry \(seq) in the log (it holds \(bounds))")
      }
      return try LogRecord(row: row)
    }
  }
}

extension LogRecord {
  init(row: Row) throws {
    self.init(
      seq: try row.checked("seq", in: EngineTable.actionLog.name),
      time: try row.checked("time", in: EngineTable.actionLog.name),
      kind: try row.checked("kind", in: EngineTable.actionLog.name),
      action: try row.checked("action", in: EngineTable.actionLog.name),
      payload: try row.checked("payload", in: EngineTable.actionLog.name),
      changes: try row.checked("changes", in: EngineTable.actionLog.name),
      step: try row.checked("step", in: EngineTable.actionLog.name),
      groupKey: try row.checked("group_key", in: EngineTable.actionLog.name))
  }
}
