import Foundation
import GRDB

// The export format: the state with no storage details, deterministic to the byte.
//
//   {
//     "format": "rewind-export",
//     "version": 1,
//     "entities": {
//       "tasks": [
//         {"done":0,"id":1,"title":"Buy milk"}
//       ]
//     },
//     "lists": {
//       "allTasks": [1],
//       "projectTasks": [
//         {"owner":1,"ids":[1]}
//       ]
//     },
//     "view": {
//       "searchText": ""
//     }
//   }
//
// Entities are rows (column → value, as in the row changes of the log), sorted by key; lists
// are ids in order (a keyed family: each owner's ids, owners sorted by key); view state is
// path → JSON value. Position keys are not exported: the same
// order always gives the same bytes, whatever moves produced it.

extension RewindDatabase {
  static let exportFormat = "rewind-export"
  static let exportVersion = 1

  /// The whole state as JSON: now, or right after `seq` without changing the database.
  ///
  /// The same state always gives the same bytes.
  ///
  /// - Throws: ``RewindError/Code/unknownSeq`` if `seq` is not in the log.
  public func export(at seq: Int64? = nil) throws -> String {
    try export(at: seq, viewAt: seq)
  }

  /// The state as JSON with its document (entities and lists) right after `seq` and its view
  /// state right after `viewSeq` (`nil`: now): the two timelines of a split time travel, in
  /// the format ``importState(_:)`` reads.
  ///
  /// - Throws: ``RewindError/Code/unknownSeq`` if a seq is not in the log.
  public func export(at seq: Int64?, viewAt viewSeq: Int64?) throws -> String {
    try read { db, history in
      let viewState = EngineTable.viewState.name
      let appSchema = history.tables.appSchema.version(ofRowsAt: seq)
      // Now, or a seq reached by walking back from the tables (see `rebuildAnchor(for:_:)`):
      // read straight from the tables, with the rows changed since put back as they were.
      func rowsChanged(since seq: Int64?) throws -> [String: [StateRows.Row: StateRows.Row?]]? {
        try seq.map { try history.rowsChanged(since: $0, db) } ?? [:]
      }
      if var changed = try rowsChanged(since: seq) {
        let viewChanged =
          viewSeq == seq ? changed[viewState] ?? [:] : try rowsChanged(since: viewSeq).map { $0[viewState] ?? [:] }
        if let viewChanged {
          changed[viewState] = viewChanged
          if let text = try TableScanExport(catalog: history.tables, changed: changed).export(appSchema: appSchema, db)
          {
            return text
          }
        }
      }
      // Otherwise from an image of the state, rebuilt from a snapshot (or the start), or where
      // SQLite's order of a table is not the export's.
      func rows(_ seq: Int64?) throws -> StateRows {
        try seq.map { try history.rows(at: $0, db) } ?? StateRows(db, catalog: history.tables)
      }
      var image = try rows(seq)
      if viewSeq != seq { image.tables[viewState] = try rows(viewSeq).tables[viewState] }
      return Self.exportJSON(image, catalog: history.tables, appSchema: appSchema)
    }
  }

  /// The export of `rows`, in the shape of app schema version `appSchema`.
  static func exportJSON(_ rows: StateRows, catalog: TableCatalog, appSchema: Int) -> String {
    var writer = ExportWriter(appSchema: appSchema)
    // Tables of the catalog, and those of rows read in an older shape (before a barrier).
    let engineTables: Set = [EngineTable.listEntries.name, EngineTable.viewState.name]
    let tables = Set(catalog.entityTables).union(rows.tables.keys.filter { !engineTables.contains($0) }).sorted()
    for table in tables {
      writer.beginTable(table)
      let entities = rows.tables[table] ?? [:]
      for key in StateRows.sortedKeys(entities.keys) { writer.appendRow(entities[key]) }
      writer.endTable()
    }
    writer.beginLists()
    let entries = (rows.tables[EngineTable.listEntries.name] ?? [:]).values
    let byList = Dictionary(grouping: entries) { $0["list"].flatMap(String.fromDatabaseValue) ?? "" }
    for list in Set(catalog.lists.keys).union(byList.keys).sorted() {
      let keyed = catalog.listOwners[list] != nil
      writer.beginList(list)
      // Members by position (then id); a keyed list's by owner first.
      let members = (byList[list] ?? []).map { ListMember($0, keyed: keyed) }.sorted(by: ListMember.precedes)
      for member in members { writer.append(member, keyed: keyed) }
      writer.endList(keyed: keyed)
    }
    writer.beginView()
    appendView(rows.tables[EngineTable.viewState.name] ?? [:], to: &writer)
    return writer.finish()
  }

  /// Writes the view-state rows, by path.
  static func appendView(_ view: [StateRows.Row: StateRows.Row], to writer: inout ExportWriter) {
    let paths = view.values.compactMap { row in row["path"].flatMap(String.fromDatabaseValue).map { ($0, row) } }
    for (path, row) in paths.sorted(by: { $0.0 < $1.0 }) {
      writer.appendView(path: path, value: row["value"].flatMap(String.fromDatabaseValue) ?? "null")
    }
  }

  /// Replaces the whole state with an exported one, as one undoable `import` entry.
  ///
  /// The file is checked before anything is written: its format and version, that every
  /// entity table and order list it names exists here, that rows name only real columns and
  /// carry their key, that ids are unique, and that every listed id exists.
  ///
  /// - Returns: the `import` entry's seq, or `nil` when the state already is the file's.
  /// - Throws: ``RewindError/Code/invalidImport`` naming the first problem; the database is
  ///   unchanged.
  @discardableResult
  public func importState(_ json: String) throws -> Int64? {
    try write("importing the state") { db, history in
      let current = try StateRows(db, catalog: history.tables)
      let target = try Self.importedRows(json, current: current, catalog: history.tables)
      let payload = #"{"rows":\#(target.tables.values.map(\.count).reduce(0, +))}"#
      do {
        return try history.replaceState(current, with: target, kind: .import, payload: payload, db)
      } catch let error as RewindError where error.code == .relationViolation {
        throw RewindError(.invalidImport, "the imported state breaks a relation: \(error.message)")
      } catch let error as DatabaseError {
        throw RewindError(.invalidImport, "the imported state does not fit the database's tables", underlying: error)
      }
    }
  }

  private struct ExportDocument: Decodable {
    var format: String
    var version: Int
    /// The app schema version the export was written at; absent: version 1.
    var appSchema: Int?
    var entities: [String: [[String: JSONValue]]]
    var lists: [String: [JSONValue]]
    var view: [String: JSONValue]
  }

  static func importedRows(_ json: String, current: StateRows, catalog: TableCatalog) throws -> StateRows {
    func invalid(_ message: String) -> RewindError { RewindError(.invalidImport, message) }
    let document: ExportDocument
    do {
      document = try JSONDecoder().decode(ExportDocument.self, from: Data(json.utf8))
    } catch let error as DecodingError {
      throw RewindError(.invalidImport, "the file is not a Rewind export: \(describe(error))")
    }
    guard document.format == exportFormat else {
      throw invalid("the file's format is \"\(document.format)\", not \"\(exportFormat)\"")
    }
    guard document.version == exportVersion else {
      throw invalid("the file is export version \(document.version); this tool reads version \(exportVersion)")
    }
    // Another app's export (none of its tables is this database's, nor dropped by one of its
    // migrations) is said to be one, rather than compared by version with this app's schema.
    let exported = Set(document.entities.keys)
    let droppedEver = catalog.appSchema.records.flatMap(\.operations).compactMap { operation -> String? in
      if case .dropTable(let table, _) = operation { table } else { nil }
    }
    if !exported.isEmpty, !catalog.entityTables.isEmpty,
      exported.isDisjoint(with: catalog.entityTables), exported.isDisjoint(with: droppedEver)
    {
      throw invalid(
        "the file is an export of another app: its entity tables (\(exported.sorted().joined(separator: ", "))) are none of this database's (\(catalog.entityTables.sorted().joined(separator: ", ")))"
      )
    }
    var rows = StateRows(empty: catalog)
    // An export written at an earlier app schema version (a file users kept from an earlier
    // version of the app) is read through the migrations since, as the log's images are.
    let operations = try catalog.appSchema.operations(readingExportOf: document.appSchema ?? 1)

    // Entities.
    var entities: [String: [(index: Int, row: StateRows.Row)]] = [:]
    for (table, objects) in document.entities {
      for (index, object) in objects.enumerated() {
        do {
          if let (table, row) = AppSchemaHistory.apply(
            operations, toRowOf: table, RowImage(try object.mapValues { try $0.databaseValue() }))
          {
            entities[table, default: []].append((index, row))
          }
        } catch let error as RewindError {
          throw invalid("\(table)[\(index)]: \(error.message)")
        }
      }
    }
    let dropped = Set(operations.compactMap { if case .dropTable(let table, _) = $0 { table } else { nil } })
    let tables = Set(document.entities.keys).union(entities.keys).subtracting(dropped)
    if let unknown = tables.subtracting(catalog.entityTables).sorted().first {
      throw invalid("entity table \(unknown) does not exist in this database")
    }
    // An export of an earlier app version may lack tables declared since: they import empty.
    if (document.appSchema ?? 1) >= catalog.appSchema.version,
      let missing = Set(catalog.entityTables).subtracting(tables).sorted().first
    {
      throw invalid("entity table \(missing) is missing from the file")
    }
    for (table, indexedRows) in entities {
      let keyColumns = catalog.keyColumns(of: table)
      for (index, row) in indexedRows {
        if let unknown = Set(row.keys).subtracting(catalog.columns(of: table)).sorted().first {
          throw invalid("\(table)[\(index)] has column \(unknown), which table \(table) does not have")
        }
        for column in row.keys.sorted() {
          if let problem = catalog.mismatch(row[column]!, column: column, of: table) {
            throw invalid("\(table)[\(index)].\(column) is \(problem)")
          }
        }
        // Every column, so the logged rows are exactly what the table holds (no defaults).
        if let missing = catalog.columns(of: table).subtracting(row.keys).sorted().first {
          throw invalid("\(table)[\(index)] has no column \(missing)")
        }
        let key = row.keeping(keyColumns)
        guard key.count == keyColumns.count, !key.values.contains(.null) else {
          throw invalid("\(table)[\(index)] has no \(keyColumns.joined(separator: ", "))")
        }
        guard rows.tables[table]![key] == nil else {
          throw invalid(
            "\(table) has two rows with \(keyColumns.joined(separator: ", ")) \(key.values.map(\.description).joined(separator: ", "))"
          )
        }
        rows.tables[table]![key] = row
      }
    }

    // Order lists: keep the current position keys when a list's order is unchanged. Lists
    // dropped with their table since the export was written are left out.
    let droppedLists = Set(
      operations.flatMap { operation -> [String] in
        if case .dropTable(_, let lists) = operation { lists } else { [] }
      })
    let documentLists = document.lists.filter { !droppedLists.contains($0.key) }
    if let unknown = Set(documentLists.keys).subtracting(catalog.lists.keys).sorted().first {
      throw invalid("order list \(unknown) does not exist in this database")
    }
    let currentEntries = Dictionary(grouping: (current.tables[EngineTable.listEntries.name] ?? [:]).values) {
      $0["list"].flatMap(String.fromDatabaseValue) ?? ""
    }
    for (list, values) in documentLists {
      let table = catalog.lists[list]!
      let keyColumn = catalog.keyColumns(of: table)[0]
      // Ids are numbers or text, or a blob as the log writes one ({"$blob": base64}).
      func id(_ value: JSONValue, in what: String) throws -> DatabaseValue {
        guard let id = try? value.databaseValue(), id != .null else {
          throw invalid("\(what) holds \(value), which is not an id")
        }
        guard rows.tables[table]![[keyColumn: id]] != nil else {
          throw invalid("\(what) names id \(id), which is not in \(table)")
        }
        return id
      }
      // (owner, ids) per list of the family; a fixed list is one list with no owner.
      var orders: [(owner: DatabaseValue?, ids: [DatabaseValue])] = []
      if let ownerTable = catalog.listOwners[list] {
        let ownerKey = catalog.keyColumns(of: ownerTable)[0]
        for value in values {
          guard case .object(let object) = value, let ownerValue = object["owner"],
            case .array(let ids)? = object["ids"], object.count == 2
          else {
            throw invalid("list family \(list) holds \(value), which is not {\"owner\": id, \"ids\": [ids]}")
          }
          guard let owner = try? ownerValue.databaseValue(), owner != .null,
            rows.tables[ownerTable]![[ownerKey: owner]] != nil
          else {
            let named = (try? ownerValue.databaseValue()).map(\.description) ?? "\(ownerValue)"
            throw invalid("list family \(list) names owner \(named), which is not in \(ownerTable)")
          }
          guard !orders.contains(where: { $0.owner == owner }) else {
            throw invalid("list family \(list) names owner \(owner) twice")
          }
          orders.append((owner, try ids.map { try id($0, in: "list family \(list)") }))
        }
      } else {
        orders = [(nil, try values.map { try id($0, in: "order list \(list)") })]
      }
      let ids = orders.flatMap(\.ids)
      var seen = Set<DatabaseValue>()
      if let twice = ids.first(where: { !seen.insert($0).inserted }) {
        throw invalid("order list \(list) names an id twice: \(twice)")
      }
      for (owner, ids) in orders {
        let existing = (currentEntries[list] ?? []).filter { $0["owner"] == owner }.sorted {
          DatabaseValue.sqliteOrder($0["position"] ?? .null, $1["position"] ?? .null)
        }
        // Keys are kept only when the whole order is: keeping some and giving the others new
        // keys would interleave two numberings.
        let unchanged = existing.count == ids.count && zip(existing, ids).allSatisfy { $0["id"] == $1 }
        var position: String?
        for (index, id) in ids.enumerated() {
          let key: StateRows.Row = ["list": list.databaseValue, "id": id]
          if unchanged {
            rows.tables[EngineTable.listEntries.name, default: [:]][key] = existing[index]
          } else {
            let next = PositionKey.between(position, nil)
            position = next
            var row = key
            row["position"] = next.databaseValue
            row["owner"] = owner
            rows.tables[EngineTable.listEntries.name, default: [:]][key] = row
          }
        }
      }
    }

    // View state, written as the store writes it, so an unchanged value is an unchanged row.
    // The tool has no app code to decode it with: each value must have the shape of the value
    // the file holds at that path now, which the app wrote (nulls are optionals set to nil).
    let currentView = current.tables[EngineTable.viewState.name] ?? [:]
    for (storedPath, value) in document.view {
      guard !storedPath.isEmpty else { throw invalid("the view state has an empty path") }
      let viewRow: StateRows.Row = ["path": storedPath.databaseValue, "value": "null".databaseValue]
      guard
        let path = AppSchemaHistory.apply(operations, toRowOf: EngineTable.viewState.name, viewRow)?.row["path"]
          .flatMap(String.fromDatabaseValue)
      else { continue }
      if let stored = currentView[["path": path.databaseValue]]?["value"].flatMap(String.fromDatabaseValue),
        let storedValue = try? JSONValue.parse(stored), let problem = value.shapeMismatch(with: storedValue)
      {
        throw invalid("view state \(path) is \(problem); the app would not decode it")
      }
      let text = try CompactJSONEncoder.encode(value)
      rows.tables[EngineTable.viewState.name]![["path": path.databaseValue]] = [
        "path": path.databaseValue, "value": text.databaseValue,
      ]
    }
    return rows
  }

  private static func describe(_ error: DecodingError) -> String {
    switch error {
    case .dataCorrupted(let context):
      return context.codingPath.isEmpty
        ? "it is not valid JSON" : "\(path(context.codingPath)): \(context.debugDescription)"
    case .keyNotFound(let key, let context):
      return "\(path(context.codingPath + [key])) is missing"
    case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
      return
        "\(path(context.codingPath)) is not \(type == String.self ? "a string" : type == Int.self ? "an integer" : "of the expected type")"
    @unknown default:
      return "\(error)"
    }
  }

  private static func path(_ codingPath: [any CodingKey]) -> String {
    codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: ["."])
  }
}

extension JSONValue {
  /// Why this value cannot stand where `stored` (a value the app wrote) does, or `nil`: another
  /// JSON type, or an object (a struct) lacking a key the stored one has. Null fits anywhere,
  /// and so does anything where null is stored (optionals); objects with a single key are
  /// enum cases, which may differ.
  func shapeMismatch(with stored: JSONValue, at path: String = "") -> String? {
    func kind(_ value: JSONValue) -> String {
      switch value {
      case .null: "null"
      case .bool: "a boolean"
      case .integer, .real: "a number"
      case .string: "text"
      case .array: "an array"
      case .object: "an object"
      }
    }
    switch (self, stored) {
    case (.null, _), (_, .null): return nil
    case (.object(let new), .object(let old)):
      if old.count == 1 || new.count == 1 { return nil }
      for (key, oldValue) in old.sorted(by: { $0.key < $1.key }) {
        guard let newValue = new[key] else {
          if case .null = oldValue { continue }
          return "missing \(path.isEmpty ? "" : path + ".")\(key)"
        }
        if let problem = newValue.shapeMismatch(with: oldValue, at: path.isEmpty ? key : path + "." + key) {
          return problem
        }
      }
      return nil
    default:
      let (new, old) = (kind(self), kind(stored))
      return new == old ? nil : "\(new)\(path.isEmpty ? "" : " at " + path) where the app wrote \(old)"
    }
  }
}

extension RewindDatabase {
  /// Throws ``RewindError/Code/invalidPath`` if writing an export to `path` would overwrite
  /// this database or one of its `-wal`, `-shm` or `-journal` files.
  public func checkExportDestination(_ path: String) throws {
    func identity(_ path: String) -> (dev_t, ino_t)? {
      var info = stat()
      return stat(path, &info) == 0 ? (info.st_dev, info.st_ino) : nil
    }
    // A file that does not exist yet is told by its name: SQLite would take a `-wal` or
    // `-journal` file written there for the database's own.
    func name(_ path: String) -> String {
      URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
    }
    let target = identity(path)
    let files = [
      ("", "the database \(self.path) itself; writing the export there would destroy it"),
      ("-wal", "the write-ahead log of \(self.path); writing the export there would lose its latest commits"),
      ("-shm", "the shared-memory index of \(self.path); writing the export there would break its open connections"),
      ("-journal", "the rollback journal of \(self.path); writing the export there would corrupt the database"),
    ]
    for (suffix, what) in files {
      let own = self.path + suffix
      let isOwn = target.map { target in identity(own).map { $0 == target } ?? false } ?? (name(path) == name(own))
      if isOwn { throw RewindError(.invalidPath, "\(path) is \(what)") }
    }
  }
}
