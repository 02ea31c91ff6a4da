import Foundation
import GRDB

extension HistoryLog {
  /// Writes `changes` (one per row) in dependency order, and carries out what deleting an
  /// entity implies, so that every foreign key holds and the log records every row written:
  ///
  /// - inserts and updates go first, parents before children (a row is written after the rows
  ///   it refers to); deletes follow, children before parents;
  /// - a deleted row's children are deleted (`ON DELETE CASCADE`) or have their reference set
  ///   to NULL (`ON DELETE SET NULL`) by the engine, before SQLite would do it unlogged; a
  ///   relation that refuses (`RESTRICT`, `NO ACTION`) with children left is refused here, with
  ///   their names;
  /// - a deleted entity leaves the order lists of its table, and the lists it owns go with it.
  ///
  /// Returns the changes as written, in that order (what the entry logs), and the changes of
  /// rows the engine added or changed beyond `changes` (what memory must still be told).
  ///
  /// - Complexity: O(k log k) for k changes, plus one indexed query per deleted entity and
  ///   relation or list that can name it; O(k) and the write alone when no entity is deleted
  ///   and one entity table is touched (most actions).
  mutating func writeRows(_ changes: [RowChange], _ db: Database) throws -> (
    written: [RowChange], cascaded: [RowChange]
  ) {
    // Most entries delete no entity and touch one entity table: nothing to order or cascade.
    var entityTable: String?
    var ordered = true
    // By index: `for change in changes` copies each change (a retain of every image) for a
    // look at two of its fields.
    for index in changes.indices where tables.isEntityTable(changes[index].table) {
      if changes[index].after == nil || (entityTable != nil && entityTable != changes[index].table) {
        ordered = false
        break
      }
      entityTable = changes[index].table
    }
    // (Rows a UNIQUE constraint held in a write that failed are not this write's.)
    if !writer.held.isEmpty { writer.held = [] }
    if ordered, !tables.relations.hasCycle || entityTable == nil {
      try writer.apply(changes, .forward, in: db)
      if !writer.held.isEmpty { try writer.writeHeldRows(in: db, finally: true) }
      return (changes, [])
    }
    if tables.relations.hasCycle {
      // Rows of tables that refer to each other cannot always be ordered: SQLite checks their
      // references when the transaction commits instead.
      try db.cachedStatement(sql: "PRAGMA defer_foreign_keys = ON").execute()
    }
    var plan = RowWritePlan(changes, catalog: tables)
    try writer.apply(plan.ordered(deletes: false), .forward, in: db)
    // Written before children are looked for, so that a row moving to another parent is found
    // under that one; a row whose values a row this write deletes keeps waits for the delete.
    if !writer.held.isEmpty { try writer.writeHeldRows(in: db, finally: false) }
    var deleting = plan.ordered(deletes: true).filter { tables.isEntityTable($0.table) }
    while let change = deleting.popLast() {
      let (updates, deletes) = try plan.cascade(deleting: change, db)
      // A reference set to NULL is written before its parent goes.
      try writer.apply(updates, .forward, in: db)
      deleting += deletes.filter { tables.isEntityTable($0.table) }
    }
    if let refusal = plan.refusal { throw RewindError(.relationViolation, refusal) }
    let deletes = plan.ordered(deletes: true)
    try writer.apply(deletes, .forward, in: db)
    if !writer.held.isEmpty { try writer.writeHeldRows(in: db, finally: true) }
    let written = (plan.ordered(deletes: false) + deletes).filter { $0.before != $0.after }
    return (written, plan.cascaded)
  }
}

extension HistoryLog {
  /// The list entries among `changes` that name an entity (or, in a keyed family, an owner)
  /// the tables do not hold once `changes` are written: an order list refers to its rows as a
  /// foreign key does, though SQLite cannot check it for the engine.
  func danglingListEntries(in changes: [RowChange], _ db: Database) throws -> [String] {
    var problems: [String] = []
    // Rows the entry itself writes exist once it is written: no query needed (an added task
    // and its list entry are one entry). A list names entities by their one key column, so a
    // row written is known by its table and that column's value.
    var written: Set<WrittenRow>?
    // By index: a `for … in` copies each change (its rows' arrays retained and released).
    for index in changes.indices where changes[index].table == EngineTable.listEntries.name {
      // A moved entry names what it named (a deletion of that would have cascaded to it).
      guard let row = changes[index].after,
        changes[index].before == nil || changes[index].before?["owner"] != row["owner"],
        let list = row["list"].flatMap(String.fromDatabaseValue), let table = tables.lists[list]
      else { continue }
      var references = [(column: "id", table: table)]
      if let owner = tables.listOwners[list] { references.append((column: "owner", table: owner)) }
      for (column, table) in references {
        guard let value = row[column], let keyColumn = tables.keyColumns(of: table).first else { continue }
        let referenced = WrittenRow(table: table, column: keyColumn, value: value)
        if changes.count <= 16 {
          // A few changes (an added task, its list entry, the selection): comparing each is
          // cheaper than hashing them all into a set.
          if changes.indices.contains(where: { WrittenRow(changes[$0]) == referenced }) { continue }
        } else {
          if written == nil { written = Set(changes.lazy.compactMap(WrittenRow.init)) }
          if written!.contains(referenced) { continue }
        }
        if try currentRow(table: table, key: [keyColumn: value], db) == nil {
          problems.append(
            "list_entries \(describe(changes[index].key)) would name \(column == "owner" ? "its owner " : "")\(table) \(describe([keyColumn: value])), which does not exist"
          )
        }
      }
    }
    return problems
  }

  /// A row an entry writes, by its table and its one key column's value.
  struct WrittenRow: Hashable {
    var table: String
    var column: String
    var value: DatabaseValue

    /// The row `change` writes, if it writes one keyed by one column.
    init?(_ change: RowChange) {
      guard change.after != nil, change.key.count == 1, let (column, value) = change.key.first else { return nil }
      self.init(table: change.table, column: column, value: value)
    }

    init(table: String, column: String, value: DatabaseValue) {
      self.table = table
      self.column = column
      self.value = value
    }
  }

  /// Why an entry failed a foreign key: the first of its rows that refers to a row that does
  /// not exist, named with the relation, or `nil` when none does (the failure came from
  /// elsewhere).
  func brokenReference(in changes: [RowChange], _ db: Database) throws -> String? {
    for change in changes {
      guard let row = change.after else { continue }
      for key in tables.relations.referring.values.joined() where key.child == change.table {
        let values = key.columns.map { row[$0.child] ?? .null }
        guard !values.contains(.null) else { continue }
        let parentRow = RowImage(Dictionary(uniqueKeysWithValues: zip(key.columns.map(\.parent), values)))
        guard try currentRow(table: key.parent, key: parentRow, db) == nil else { continue }
        // A UUID written in another form than the parent's key names no row, nor does text in
        // another Unicode normalization form (Swift finds "café" either way; SQLite compares
        // bytes). Said only when the parent is there under the other form: a parent deleted
        // (by hand) is just missing.
        let hint =
          switch try otherSpelling(of: parentRow, in: key.parent, db) {
          case .uuid?:
            " (it is there with the UUID in another form: a UUID must be stored in the same form as the key it refers to; give both entities the same databaseUUIDEncodingStrategy(for:))"
          case .unicodeNormalization?:
            " (it is there with the key in another Unicode normalization form: SQLite compares text keys byte for byte, so é composed and decomposed name different rows even though Swift finds them equal; write keys in one form, such as NFC, `precomposedStringWithCanonicalMapping`)"
          case nil: ""
          }
        return
          "\(change.table) \(describe(change.key)) refers to \(key.parent) \(describe(parentRow)), which does not exist\(hint)"
      }
    }
    return nil
  }
}

extension HistoryLog {
  /// A way a key's value can be spelled otherwise and still be equal for Swift.
  fileprivate enum KeySpelling {
    case uuid, unicodeNormalization
  }

  /// How `key`, which names no row of `table`, is spelled otherwise in a row that does exist:
  /// one of its values as a UUID in another form (text in either case, or 16 bytes), or as
  /// text in the other Unicode normalization form. `nil` when no such row exists.
  fileprivate func otherSpelling(of key: RowImage, in table: String, _ db: Database) throws -> KeySpelling? {
    for (column, value) in key {
      var spellings: [(DatabaseValue, KeySpelling)] = []
      switch value.storage {
      case .string(let text):
        if let uuid = UUID(uuidString: text) {
          spellings = [text.uppercased(), text.lowercased()].filter { $0 != text }.map { ($0.databaseValue, .uuid) }
          spellings.append((withUnsafeBytes(of: uuid.uuid) { Data($0) }.databaseValue, .uuid))
        } else if !text.utf8.allSatisfy({ $0 < 0x80 }) {
          spellings = [text.precomposedStringWithCanonicalMapping, text.decomposedStringWithCanonicalMapping]
            .filter { $0.utf8.elementsEqual(text.utf8) == false }
            .map { ($0.databaseValue, .unicodeNormalization) }
        }
      case .blob(let data) where data.count == 16:
        let uuid = data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        spellings = [uuid.uuidString, uuid.uuidString.lowercased()].map { ($0.databaseValue, .uuid) }
      default: break
      }
      for (spelling, kind) in spellings {
        var other = key
        other[column] = spelling
        if try currentRow(table: table, key: other, db) != nil { return kind }
      }
    }
    return nil
  }
}

extension HistoryLog {
  /// Refuses `entry` if it adds an entity whose key SQLite holds as the key of a row already
  /// there, by the key column's collation (`Dairy` where `dairy` is, under `NOCASE`): the
  /// write would update that row, where the state holds two.
  func refuseKeysHeldAsOne(in entry: LogEntry, moving: Bool, _ db: Database) throws {
    // The keys this entry adds so far, by table: two of them may be one to SQLite too.
    var added: [String: [DatabaseValue]] = [:]
    for change in entry.changes where change.before == nil && change.after != nil {
      guard let collation = tables.keyCollations[change.table],
        let keyColumn = tables.keyColumns(of: change.table).first, let key = change.key[keyColumn]
      else { continue }
      // With the collation said: it may be the key's, or a unique index's, not the column's.
      let sql = """
        SELECT \(keyColumn.quotedDatabaseIdentifier) FROM \(change.table.quotedDatabaseIdentifier) \
        WHERE \(keyColumn.quotedDatabaseIdentifier) = ?\(collation.clause) LIMIT 1
        """
      let held =
        try added[change.table]?.first { collation.equal($0, key) }
        ?? DatabaseValue.fetchOne(db.cachedStatement(sql: sql), arguments: [key])
      added[change.table, default: []].append(key)
      guard let held else { continue }
      // Rows are written before deletes go: the same entry deleting the held key does not help.
      let deletesHeld = entry.changes.contains {
        $0.table == change.table && $0.after == nil && $0.key[keyColumn]?.isSameBytes(as: held) == true
      }
      let advice =
        deletesHeld
        ? "it also deletes that row, but SQLite would take the new key for it first: delete it in one step and add the new key in another"
        : "use the key already there, or declare \(keyColumn) without a collation"
      throw RewindError(
        moving ? .conflict : .invalidValue,
        "\(entry.action) cannot add \(change.table) \(describe([keyColumn: key])): \(change.table) holds (or the same action adds) \(describe([keyColumn: held])), the same key to SQLite (\(keyColumn) compares\(collation.clause)), where the state would hold two; \(advice); nothing was written"
      )
    }
  }
}

/// An entry's row changes, one per row, with the rows the engine's cascades add merged in as
/// ``NetChanges`` merges: a row both changed and cascaded keeps its first `before` and takes
/// the cascade's `after`.
struct RowWritePlan {
  private typealias RowID = NetChanges.RowID

  private let catalog: TableCatalog
  private var net = NetChanges()
  private var cascadedRows: [RowID] = []
  private var isCascaded: Set<RowID> = []
  /// The rows the cascades take that the action moved under a row it deletes, with why the
  /// entry is refused, unless another delete takes them too.
  private var refusals: [(id: RowID, message: String)] = []

  init(_ changes: [RowChange], catalog: TableCatalog) {
    self.catalog = catalog
    for change in changes { net.add(change) }
  }

  /// Why the entry is refused once every delete is carried out, if it is: the first row a
  /// cascade takes that the action moved under a row it deletes, and nothing else takes.
  var refusal: String? { refusals.first?.message }

  /// The final changes of the rows the cascades touched.
  var cascaded: [RowChange] { cascadedRows.map { net[$0]! } }

  /// The inserts and updates, parents first, or the deletes, children first (list entries
  /// and view state before any entity), each kind in the order it came.
  func ordered(deletes: Bool) -> [RowChange] {
    let selected = net.changes.enumerated().compactMap { index, change -> (Int, Int, RowChange)? in
      guard (change.after == nil) == deletes else { return nil }
      // Entities by depth; the engine's tables name entities without a foreign key, so
      // their rows are written after entities appear and deleted before they go.
      let depth = catalog.relations.depth[change.table] ?? (catalog.isEntityTable(change.table) ? 0 : Int.max)
      return (deletes ? -depth : depth, index, change)
    }
    return selected.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
  }

  /// Whether this entry already deletes the row `id`.
  private func deletes(_ id: RowID) -> Bool { net[id].map { $0.after == nil } ?? false }

  /// Carries out what deleting `change`'s row does to the rows that refer to it, as the
  /// database holds them now (this entry's inserts and updates written): returns the
  /// references set to NULL (to write now) and the rows that go too.
  mutating func cascade(
    deleting change: RowChange, _ db: Database
  ) throws -> (updates: [RowChange], deletes: [RowChange]) {
    guard let row = change.before else { return ([], []) }
    var updates: [RowChange] = []
    var deletes: [RowChange] = []
    for key in catalog.relations.referring[change.table] ?? [] {
      let values = key.columns.map { row[$0.parent] ?? .null }
      guard !values.contains(.null) else { continue }
      // Compared as SQLite's foreign key compares them, by the parent key's collation: a child
      // it would act on and the engine did not find would change unlogged.
      let sql = """
        SELECT * FROM \(key.child.quotedDatabaseIdentifier) WHERE \
        \(zip(key.columns, key.collations).map { "\($0.child.quotedDatabaseIdentifier) = ?\($1.clause)" }
          .joined(separator: " AND "))
        """
      for child in try Row.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(values)) {
        let image = StateRows.image(of: child, in: key.child)
        let id = RowID(table: key.child, key: image.keeping(catalog.keyColumns(of: key.child)))
        let wasUnder = self.wasUnder(id) { child in
          zip(key.columns, key.collations).allSatisfy { $1.equal(child[$0.child], row[$0.parent]) }
        }
        let isDeleted = cascadeMeets(
          id, wasUnder: wasUnder, deletesIt: key.onDelete == .cascade,
          refusal:
            "\(key.child) \(describe(id.key)) would refer to \(change.table) \(describe(change.key)), which the same action deletes (\(key.child).\(key.columns.map(\.child).joined(separator: ", "))): an action cannot move an existing row under a row it deletes (delete the row itself if it should go); nothing was changed"
        )
        if isDeleted { continue }
        switch key.onDelete {
        case .cascade:
          cascade(id, current: image, to: nil)
          // The row as the database holds it now: a row this entry inserted has no `before`,
          // yet its own children must go too (or SQLite deletes them, unlogged).
          deletes.append(RowChange(table: id.table, key: id.key, before: image, after: nil))
        case .setNull:
          // Another reference of the same row to the same parent may have been cleared just
          // before (not yet written): clear this one on top of it, not on the database's row.
          var cleared = isCascaded.contains(id) ? net[id]!.after ?? image : image
          for (column, _) in key.columns { cleared[column] = .null }
          cascade(id, current: image, to: cleared)
          updates.append(RowChange(table: id.table, key: id.key, before: image, after: cleared))
        case .refuse:
          throw RewindError(
            .relationViolation,
            "\(change.table) \(describe(change.key)) cannot be deleted: \(key.child) \(describe(id.key)) refers to it (\(key.child).\(key.columns.map(\.child).joined(separator: ", ")), which neither cascades nor sets NULL on delete)"
          )
        }
      }
    }
    // Order lists: the entity leaves its table's lists, and the lists it owns go.
    if let keyColumn = catalog.keyColumns(of: change.table).first, let id = change.key[keyColumn] {
      let listsOfTable = catalog.lists.filter { $0.value == change.table }.keys.sorted()
      let ownedLists = catalog.listOwners.filter { $0.value == change.table }.keys.sorted()
      var entries: [Row] = []
      for list in listsOfTable {
        entries += try Row.fetchAll(
          db.cachedStatement(sql: "SELECT * FROM list_entries WHERE list = ? AND id = ?"), arguments: [list, id])
      }
      let ownedFrom = entries.endIndex
      for list in ownedLists {
        entries += try Row.fetchAll(
          db.cachedStatement(sql: "SELECT * FROM list_entries WHERE list = ? AND owner = ?"), arguments: [list, id])
      }
      for (index, entry) in entries.enumerated() {
        let image = StateRows.image(of: entry, in: EngineTable.listEntries.name)
        let entryID = RowID(
          table: EngineTable.listEntries.name, key: image.keeping(["id", "list"]))
        // An entity's own entries go with it wherever they are.
        let wasUnder = index < ownedFrom || self.wasUnder(entryID) { $0["owner"] == id }
        let isDeleted = cascadeMeets(
          entryID, wasUnder: wasUnder, deletesIt: true,
          refusal:
            "\(EngineTable.listEntries.name) \(describe(entryID.key)) would be in the list of \(change.table) \(describe(change.key)), which the same action deletes: an action cannot move an existing list entry to an owner it deletes (remove the entry, or delete its entity, if it should go); nothing was changed"
        )
        if isDeleted { continue }
        deletes.append(cascade(entryID, current: image, to: nil))
      }
    }
    return (updates, deletes)
  }

  /// Whether the row `id`, which a deleted row's cascade meets, was under that row before the
  /// action (`isUnder` says, of a foreign key or a list entry's owner): a row the action left
  /// alone or inserted was; an existing row the action moved there was not.
  ///
  /// The cascade would delete (or clear) a moved row that was no child of the deleted row:
  /// data the action never meant to lose, so the entry is refused, unless the row goes anyway
  /// (see ``cascadeMeets(_:wasUnder:deletesIt:refusal:)``). A row that was under the deleted row before the
  /// action goes with it, whatever else the action changed in it, and so does a row the action
  /// inserted under it (nothing that existed is lost).
  private func wasUnder(_ id: RowID, _ isUnder: (RowImage) -> Bool) -> Bool {
    guard let own = net[id], let before = own.before else { return true }
    return isUnder(before)
  }

  /// Records what it means for the entry that a deleted row's cascade meets the row `id`, and
  /// returns whether the entry already deletes that row (the cascade then leaves it).
  ///
  /// A row that was under the deleted row before the action (`wasUnder`) and that this cascade
  /// deletes (`deletesIt`) goes anyway: a move of it under another deleted row loses nothing,
  /// and is no longer refused. A row the action moved under the deleted row, and does not
  /// delete otherwise, is refused with `refusal` once every delete is carried out, unless a
  /// later cascade takes it as its child from before: whichever delete the engine reaches first.
  private mutating func cascadeMeets(
    _ id: RowID, wasUnder: Bool, deletesIt: Bool, refusal: @autoclosure () -> String
  ) -> Bool {
    if wasUnder {
      if deletesIt, !refusals.isEmpty { refusals.removeAll { $0.id == id } }
    } else if !deletes(id), !refusals.contains(where: { $0.id == id }) {
      refusals.append((id, refusal()))
    }
    return deletes(id)
  }

  /// Records that a cascade makes the row `id` (holding `current` in the database) `after`.
  @discardableResult
  private mutating func cascade(_ id: RowID, current: RowImage, to after: RowImage?)
    -> RowChange
  {
    net.add(RowChange(table: id.table, key: id.key, before: current, after: after))
    if isCascaded.insert(id).inserted { cascadedRows.append(id) }
    return net[id]!
  }
}
