import GRDB

/// The relations between entity tables, read from their SQL foreign keys: which rows refer to
/// which, what deleting a referenced row does, and the order rows must be written in.
///
/// An app declares a relation where GRDB apps do, in the child's `createTable`
/// (`t.belongsTo("project", onDelete: .cascade)`). SQLite enforces it; the engine carries out
/// its `ON DELETE` action itself, so that every row it removes or changes is in the log and
/// undoable (SQLite's own action, which neither the log nor memory would see, never finds a
/// row to act on: children are written before their parents are deleted).
struct Relations {
  /// One foreign key from an entity table to an entity table.
  struct ForeignKey: Hashable {
    enum OnDelete: String {
      /// Children are deleted with the parent.
      case cascade
      /// Children's referencing columns become NULL.
      case setNull
      /// SQLite refuses to delete a parent that has children (RESTRICT, NO ACTION).
      case refuse
    }

    var child: String
    var parent: String
    /// Child columns and the parent columns they hold, in declaration order.
    var columns: [(child: String, parent: String)]
    /// How SQLite compares each child column with its parent column: by the parent key's
    /// collation (`NOCASE` makes `DAIRY` a child of `Dairy`).
    var collations: [KeyCollation]
    var onDelete: OnDelete

    static func == (a: Self, b: Self) -> Bool {
      a.child == b.child && a.parent == b.parent && a.onDelete == b.onDelete
        && a.columns.elementsEqual(b.columns) { $0 == $1 } && a.collations == b.collations
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(child)
      hasher.combine(parent)
      for (child, parent) in columns {
        hasher.combine(child)
        hasher.combine(parent)
      }
    }
  }

  /// The foreign keys that refer to each table.
  private(set) var referring: [String: [ForeignKey]] = [:]
  /// Each entity table's depth in the reference graph: a table comes after every table it
  /// refers to. Tables on a cycle share a depth.
  private(set) var depth: [String: Int] = [:]
  /// Whether some tables refer to each other in a cycle (a table referring to itself
  /// included): their rows cannot always be ordered, so foreign keys are checked at commit.
  private(set) var hasCycle = false

  var isEmpty: Bool { referring.isEmpty }

  init() {}

  /// Reads the foreign keys of `tables` (entity table → key columns).
  ///
  /// - Throws: ``RewindError/Code/schemaMismatch`` for an action the engine cannot carry out
  ///   and log (`ON DELETE SET DEFAULT`, any `ON UPDATE` action).
  init(_ db: Database, tables keys: [String: [String]]) throws {
    var refersTo: [String: Set<String>] = [:]
    // SQLite resolves the names a foreign key gives case-insensitively: so must the engine,
    // or it leaves the relation to SQLite, which would act on it unlogged.
    let tableNamed = Dictionary(keys.keys.map { ($0.lowercased(), $0) }) { first, _ in first }
    func columnNames(_ names: [String], in table: String) throws -> [String] {
      let actual = Dictionary(try db.columns(in: table).map { ($0.name.lowercased(), $0.name) }) { first, _ in first }
      return names.map { actual[$0.lowercased()] ?? $0 }
    }
    for child in keys.keys.sorted() {
      let rows = try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\(child.quotedDatabaseIdentifier))")
      for (_, rows) in Dictionary(grouping: rows, by: { $0["id"] as Int64 }).sorted(by: { $0.key < $1.key }) {
        let rows = rows.sorted { ($0["seq"] as Int64) < ($1["seq"] as Int64) }
        guard let parent = tableNamed[(rows[0]["table"] as String).lowercased()], let parentKey = keys[parent] else {
          continue  // not an entity table: SQLite's alone
        }
        let from = try columnNames(rows.map { $0["from"] as String }, in: child)
        let described = "\(child)(\(from.joined(separator: ", "))) → \(parent)"
        let onUpdate: String = rows[0]["on_update"]
        guard ["NO ACTION", "RESTRICT"].contains(onUpdate.uppercased()) else {
          throw RewindError(
            .schemaMismatch,
            "the foreign key \(described) has ON UPDATE \(onUpdate), which SQLite would carry out behind the log's back; Rewind never changes a key in place, declare it without ON UPDATE"
          )
        }
        let onDelete: ForeignKey.OnDelete
        switch (rows[0]["on_delete"] as String).uppercased() {
        case "CASCADE": onDelete = .cascade
        case "SET NULL": onDelete = .setNull
        case "NO ACTION", "RESTRICT": onDelete = .refuse
        case let other:
          throw RewindError(
            .schemaMismatch,
            "the foreign key \(described) has ON DELETE \(other), which Rewind does not carry out; use CASCADE, SET NULL, RESTRICT or NO ACTION"
          )
        }
        let to = rows.map { $0["to"] as String? }
        let parentColumns = to.contains(nil) ? parentKey : try columnNames(to.map { $0! }, in: parent)
        guard parentColumns.count == from.count else {
          throw RewindError(
            .schemaMismatch, "the foreign key \(described) does not name as many columns in \(parent)")
        }
        let key = ForeignKey(
          child: child, parent: parent, columns: Array(zip(from, parentColumns)),
          collations: try KeyCollation.of(key: parentColumns, in: parent, db), onDelete: onDelete)
        referring[parent, default: []].append(key)
        refersTo[child, default: []].insert(parent)
      }
    }
    // Depths by repeated relaxation: a child is one deeper than its deepest parent. Cycles
    // stop growing after as many rounds as there are tables; their tables are flagged.
    depth = Dictionary(uniqueKeysWithValues: keys.keys.map { ($0, 0) })
    for _ in 0...keys.count {
      var changed = false
      for (child, parents) in refersTo {
        for parent in parents where parent != child {
          let wanted = min(depth[parent]! + 1, keys.count)
          if depth[child]! < wanted {
            depth[child] = wanted
            changed = true
          }
        }
      }
      if !changed { break }
    }
    hasCycle = refersTo.contains { child, parents in
      parents.contains(child) || parents.contains { depth[$0]! >= depth[child]! }
    }
  }
}
