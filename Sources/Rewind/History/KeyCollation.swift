import GRDB

/// How SQLite compares the values of a key: by the collation of the unique index that makes
/// the columns a key (which SQLite's foreign keys compare with too).
///
/// `BINARY` compares bytes, as the state's ids compare in Swift. `NOCASE` and `RTRIM` make
/// keys one that the state holds apart (`Dairy` and `dairy`; `a` and `a `): the engine must
/// then refuse a second such key, and find a row's children as SQLite's foreign keys do.
enum KeyCollation: Hashable, Sendable {
  case binary
  /// ASCII letters compared regardless of case.
  case nocase
  /// Trailing spaces ignored.
  case rtrim
  /// An app-defined collation, which only SQLite can apply.
  case other(String)

  init(name: String) {
    switch name.uppercased() {
    case "BINARY": self = .binary
    case "NOCASE": self = .nocase
    case "RTRIM": self = .rtrim
    default: self = .other(name)
    }
  }

  /// What an SQL comparison adds to compare as this collation does. Said even for `BINARY`:
  /// the column compared may have a collation of its own (a child column's `NOCASE` where its
  /// parent's key compares bytes), which would apply otherwise.
  var clause: String {
    switch self {
    case .binary: " COLLATE BINARY"
    case .nocase: " COLLATE NOCASE"
    case .rtrim: " COLLATE RTRIM"
    case .other(let name): " COLLATE \(name.quotedDatabaseIdentifier)"
    }
  }

  /// Whether SQLite holds `a` and `b` as one key. Collations compare text alone; for an
  /// app-defined collation, which only SQLite can apply, equal values only.
  func equal(_ a: DatabaseValue?, _ b: DatabaseValue?) -> Bool {
    guard case .string(let x)? = a?.storage, case .string(let y)? = b?.storage else { return a == b }
    switch self {
    case .binary, .other: return x.utf8.elementsEqual(y.utf8)
    case .nocase: return x.utf8.elementsEqual(y.utf8) { Self.foldingCase($0) == Self.foldingCase($1) }
    case .rtrim: return x.utf8.prefix(Self.untrimmed(x)).elementsEqual(y.utf8.prefix(Self.untrimmed(y)))
    }
  }

  /// SQLite's `NOCASE` folds ASCII letters alone.
  private static func foldingCase(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
  }

  /// The number of bytes of `text` before its trailing spaces.
  private static func untrimmed(_ text: String) -> Int {
    text.utf8.count - text.utf8.reversed().prefix { $0 == UInt8(ascii: " ") }.count
  }

  /// The collations SQLite compares `columns` of `table` with as a key, in their order: those
  /// of the primary key if they are its columns, otherwise of a unique constraint or index on
  /// exactly them (what a foreign key to them compares with). A rowid table's
  /// `INTEGER PRIMARY KEY` has no index, and compares integers: binary.
  static func of(key columns: [String], in table: String, _ db: Database) throws -> [KeyCollation] {
    try uniqueIndexes(on: columns, in: table, db).first ?? columns.map { _ in .binary }
  }

  /// The collation that makes keys of `table`'s one `column` one row that differ in bytes, if
  /// any of its unique indexes has one: another than `BINARY`, declared on the column, in the
  /// primary key or by a unique index beside it (any of them refuses the second key).
  static func folding(key column: String, in table: String, _ db: Database) throws -> KeyCollation? {
    try uniqueIndexes(on: [column], in: table, db).lazy.map { $0[0] }.first { $0 != .binary }
  }

  /// The collations of each unique index on exactly `columns` of `table`, in their order: the
  /// primary key's first, then unique constraints', then other indexes'.
  private static func uniqueIndexes(
    on columns: [String], in table: String, _ db: Database
  ) throws -> [[KeyCollation]] {
    // A rowid table's INTEGER PRIMARY KEY holds integers alone, and no index can make it
    // unique otherwise (GRDB caches what the key is; the pragmas below cost about 100,000
    // instructions a table, a third of reading 1,000 rows).
    if columns.count == 1, try db.primaryKey(table).rowIDColumn?.lowercased() == columns[0].lowercased() {
      return []
    }
    // One statement, prepared once per connection, for every table.
    let rows = try Row.fetchAll(
      db.cachedStatement(
        sql: """
          SELECT list.name AS "index", column.name, column.coll FROM pragma_index_list(?) AS list
          JOIN pragma_index_xinfo(list.name) AS column
          WHERE list."unique" = 1 AND column.key = 1
          ORDER BY CASE list.origin WHEN 'pk' THEN 0 WHEN 'u' THEN 1 ELSE 2 END, list.name, column.seqno
          """), arguments: [table])
    let wanted = Set(columns.map { $0.lowercased() })
    var indexes: [[KeyCollation]] = []
    var start = rows.startIndex
    while start < rows.endIndex {
      let index: String = rows[start]["index"]
      let end = rows[start...].firstIndex { $0["index"] as String != index } ?? rows.endIndex
      let collations = Dictionary(
        rows[start..<end].compactMap { row in
          (row["name"] as String?).map { ($0.lowercased(), row["coll"] as String? ?? "BINARY") }
        }
      ) { first, _ in first }
      if end - start == columns.count, Set(collations.keys) == wanted {
        indexes.append(columns.map { KeyCollation(name: collations[$0.lowercased()]!) })
      }
      start = end
    }
    return indexes
  }
}
