import Foundation
import GRDB

/// Every row of the state tables (entity tables, `list_entries`, `view_state`) in memory,
/// keyed by table and primary key: the state as the database holds it, with no app code.
///
/// Exports, imports, snapshots, restores and verification work on this image.
struct StateRows: Equatable {
  typealias Row = RowImage
  /// Table → primary key → row.
  var tables: [String: [Row: Row]]

  init(tables: [String: [Row: Row]]) { self.tables = tables }

  /// An empty image of the catalog's tables.
  init(empty catalog: TableCatalog) {
    tables = Dictionary(uniqueKeysWithValues: catalog.tableNames.map { ($0, [:]) })
  }

  /// Reads every row of the catalog's tables.
  init(_ db: Database, catalog: TableCatalog) throws {
    self.init(empty: catalog)
    for table in catalog.tableNames {
      tables[table] = try Self.rows(of: table, keyColumns: catalog.keyColumns(of: table), db)
    }
  }

  /// Every row of `table`, by key.
  static func rows(of table: String, keyColumns: [String], _ db: Database) throws -> [Row: Row] {
    var rows: [Row: Row] = [:]
    let cursor = try GRDB.Row.fetchCursor(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)")
    var layout = RowImage.Layout(table: table)
    var keys = RowImage.KeyProjection(keyColumns: keyColumns)
    while let row = try cursor.next() {
      let image = layout.image(of: row)
      rows[keys.key(of: image)] = image
    }
    return rows
  }

  /// Whether every row here is of a table the catalog names (a log edited to name another
  /// holds rows no table in the file can match).
  func holdsNoRows(outside catalog: TableCatalog) -> Bool {
    let names = catalog.tableNames
    return tables.allSatisfy { table, rows in rows.isEmpty || names.contains(table) }
  }

  /// Whether `table` in `db` holds exactly this image's rows of it, compared as they are read:
  /// nothing is kept, so a check of a large state holds it once, not twice.
  func matchesTable(_ table: String, in db: Database, catalog: TableCatalog) throws -> Bool {
    let expected = tables[table] ?? [:]
    let keyColumns = catalog.keyColumns(of: table)
    // When SQLite keeps the keys unique, as many rows as expected, each found, are every row
    // expected; otherwise (an entity's key column need not be the table's primary key) the
    // keys found are kept, so that a row repeated in place of another is no match.
    var found: Set<Row>? = try db.table(table, hasUniqueKey: keyColumns) ? nil : []
    let cursor = try GRDB.Row.fetchCursor(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier)")
    var layout = RowImage.Layout(table: table)
    var keys = RowImage.KeyProjection(keyColumns: keyColumns)
    var matched = 0
    while let row = try cursor.next() {
      let image = layout.image(of: row)
      let key = keys.key(of: image)
      guard expected[key] == image, found?.insert(key).inserted ?? true else { return false }
      matched += 1
    }
    return matched == expected.count
  }

  /// A row as the log's images hold it: every column, except the one
  /// ``columnOmittedWhenNull(in:)`` names when it is NULL.
  static func image(of row: GRDB.Row, in table: String) -> Row {
    var layout = RowImage.Layout(table: table)
    return layout.image(of: row)
  }

  /// The column of `table` whose NULL a row image leaves out: the `owner` of a fixed list's
  /// `list_entries` row, a column added after fixed lists' rows were first logged.
  static func columnOmittedWhenNull(in table: String) -> String? {
    table == EngineTable.listEntries.name ? "owner" : nil
  }

  /// Applies row changes: each row becomes what `direction` selects.
  mutating func apply(_ changes: [RowChange], _ direction: ChangeDirection) {
    for index in changes.indices {
      replace(with: changes[direction == .forward ? index : changes.count - 1 - index], direction)
    }
  }

  /// Makes the row of `change` what `direction` selects, with one look-up. Returns the row it
  /// replaced (`nil`: there was none), which verification compares with the change's image.
  @discardableResult
  mutating func replace(with change: RowChange, _ direction: ChangeDirection) -> Row? {
    if let target = change.target(direction) {
      return tables[change.table, default: [:]].updateValue(target, forKey: change.key)
    }
    // (A table with no rows is not made for a removal: images are compared whole.)
    return tables[change.table]?.removeValue(forKey: change.key)
  }

  /// The changes that turn this image into `target`, for the tables `timeline` includes.
  func changes(to target: StateRows, timeline: Timeline = .all) -> [RowChange] {
    var changes: [RowChange] = []
    for table in Set(tables.keys).union(target.tables.keys).sorted() where timeline.includes(table) {
      let current = tables[table] ?? [:]
      let wanted = target.tables[table] ?? [:]
      // Only the keys that differ are sorted: the two images mostly agree (a restore near the
      // current seq, verify's healthy tables), and sorting every key of a 100,000-row table
      // was most of verify's time.
      var differing = current.compactMap { key, row in wanted[key] == row ? nil : key }
      differing += wanted.keys.filter { current[$0] == nil }
      for key in Self.sortedKeys(differing) {
        changes.append(RowChange(table: table, key: key, before: current[key], after: wanted[key]))
      }
    }
    return changes
  }

  /// A deterministic order for keys, comparing columns by name and values as SQLite does.
  static func keyOrder(_ a: Row, _ b: Row) -> Bool {
    for column in Set(a.keys).union(b.keys).sorted() {
      let x = a[column] ?? .null
      let y = b[column] ?? .null
      if x != y { return DatabaseValue.sqliteOrder(x, y) }
    }
    return false
  }

  /// `keys` in ``keyOrder(_:_:)``, for keys that share their columns (those of one table);
  /// sorting on precomputed tuples of values avoids comparing column names again and again.
  static func sortedKeys(_ keys: some Collection<Row>) -> [Row] {
    guard let columns = keys.first?.keys.sorted(), keys.allSatisfy({ $0.count == columns.count }) else {
      return keys.sorted(by: keyOrder)
    }
    return keys.map { key in (key, columns.map { key[$0] ?? .null }) }
      .sorted { valuesPrecede($0.1, $1.1) }
      .map(\.0)
  }

  /// Keys given as their values in key-column name order, compared as ``sortedKeys(_:)``
  /// orders them: value by value, as SQLite orders values.
  static func valuesPrecede<A: Sequence<DatabaseValue>, B: Sequence<DatabaseValue>>(_ a: A, _ b: B) -> Bool {
    for (x, y) in zip(a, b) where x != y { return DatabaseValue.sqliteOrder(x, y) }
    return false
  }
}

extension DatabaseValue {
  /// SQLite's order of values: NULL, then numbers, then text, then blobs.
  static func sqliteOrder(_ a: DatabaseValue, _ b: DatabaseValue) -> Bool {
    func rank(_ value: DatabaseValue) -> Int {
      switch value.storage {
      case .null: 0
      case .int64, .double: 1
      case .string: 2
      case .blob: 3
      }
    }
    if rank(a) != rank(b) { return rank(a) < rank(b) }
    switch (a.storage, b.storage) {
    case (.int64(let x), .int64(let y)): return x < y
    case (.int64(let x), .double(let y)): return Double(x) < y
    case (.double(let x), .int64(let y)): return x < Double(y)
    case (.double(let x), .double(let y)): return x < y
    case (.string(let x), .string(let y)): return x.utf8.lexicographicallyPrecedes(y.utf8)
    case (.blob(let x), .blob(let y)): return x.lexicographicallyPrecedes(y)
    default: return false
    }
  }
}
