import Foundation
import GRDB

/// An ``EntityTable`` persisted in its entity's table.
@usableFromInline
final class EntityPart<Root, E: Entity>: StatePart {
  @usableFromInline
  let path: StatePath<Root, EntityTable<E>>
  @usableFromInline
  var keyPath: WritableKeyPath<Root, EntityTable<E>> { path.keyPath }
  @usableFromInline
  var table: String { E.databaseTableName }
  /// The affinities of the table's columns in the store's file, set when the store opens it.
  @usableFromInline
  var affinities: TableAffinities?

  @usableFromInline
  func renewed() -> Self { Self(keyPath: keyPath) }

  @usableFromInline
  var storage: PartStorage { .entityTable(table) }

  @usableFromInline
  var declaredEntityTable: String? { table }

  /// The key of the entity's rows.
  @usableFromInline
  let keyColumns = RowImage.Columns([E.keyColumn])

  @usableFromInline
  required init(keyPath: WritableKeyPath<Root, EntityTable<E>>) {
    path = StatePath(keyPath)
  }

  @usableFromInline
  func takeDefaults(from initial: Root) throws {}

  @usableFromInline
  func setUp(_ db: Database) throws {
    if try !db.tableExists(table) {
      // A table the file registered and lost would come back empty, with its ids free for
      // reuse while the log still names them: that is damage to report, not to paper over.
      if try Bool.fetchOne(db, sql: "SELECT 1 FROM rewind_entity_tables WHERE name = ?", arguments: [table]) == true {
        throw RewindError(
          .schemaMismatch,
          "the entity table \(table) is missing from the database, which registers it in rewind_entity_tables (was it dropped?); restore the file from a backup"
        )
      }
      try E.createTable(db)
    }
    try registerIfPresent(db)
    affinities = try TableAffinities(of: table, db)
  }

  @usableFromInline
  func registerIfPresent(_ db: Database) throws {
    guard try db.tableExists(table) else { return }
    let columns = try db.columns(in: table).map(\.name)
    guard columns.contains(E.keyColumn) else {
      let spelled = columns.first { $0.lowercased() == E.keyColumn.lowercased() }.map {
        " (it has \($0): SQLite takes either spelling, but the log, the lists and the tools name the key as \(E.self) does; spell the column \(E.keyColumn))"
      }
      throw RewindError(
        .schemaMismatch, "entity table \(table) has no key column \(E.keyColumn)\(spelled ?? "")")
    }
    try checkColumnOrder(against: columns)
    // Checked first: opening a set-up file must not write (it may be read-only).
    let registered = try Bool.fetchOne(
      db, sql: "SELECT 1 FROM rewind_entity_tables WHERE name = ? AND key_column = ?", arguments: [table, E.keyColumn])
    guard registered != true else { return }
    try db.execute(
      sql: "INSERT OR IGNORE INTO rewind_entity_tables (name, key_column) VALUES (?, ?)",
      arguments: [table, E.keyColumn])
  }

  @inlinable
  func load(_ db: Database) throws -> (inout Root) -> Void {
    try checkUUIDKeyForm(db)
    let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier)") ?? 0
    // Checked against the table's columns when the part was set up (`checkColumnOrder`).
    let order = E.databaseColumnOrder
    let build: BackgroundBuild<EntityTable<E>, E>
    do {
      // A closure each, so that each decodes with no test per row.
      let rows = try Row.fetchCursor(db, sql: selection(order))
      build =
        order == nil
        ? try EntityTable.build(loading: rows, count: count) { try E(row: $0) }
        : try EntityTable.build(loading: rows, count: count) { try E(orderedRow: $0) }
    } catch {
      if let column = try missingColumn(named: error, db) {
        throw missingColumnError(column, "reads", underlying: error)
      }
      let key =
        (try? firstUndecodableKey(db, order: order)).flatMap { $0 }.map { ": the row keyed \(describe($0))" } ?? ""
      throw RewindError(.corruptData, "a row of \(table) does not decode as \(E.self)\(key)", underlying: error)
    }
    if count > 0 { try checkWrittenColumns(db, order: order) }
    let keyPath = keyPath
    #if DEBUG
      if order != nil {
        let entities = build.take()
        try checkOrderedDecoding(of: entities, db)
        return { root in root[keyPath: keyPath] = entities }
      }
    #endif
    // Taken when the state is put together, after the other parts are read: the table is
    // built meanwhile.
    return { root in root[keyPath: keyPath] = build.take() }
  }

  /// Refuses a table that lacks a column the entity's rows write, found from one of its rows:
  /// a property that decodes a missing column (an optional one reads `nil`) did not fail the
  /// load, but every write of the table would fail. (An empty table has no row to tell it
  /// from; its first write says the same.)
  @usableFromInline
  func checkWrittenColumns(_ db: Database, order: [String]?) throws {
    guard let row = try Row.fetchOne(db, sql: selection(order) + " LIMIT 1"),
      let written = try? (order == nil ? E(row: row) : E(orderedRow: row)).databaseRowImage().keys
    else { return }
    let existing = try columnNames(db)
    guard let column = written.first(where: { !existing.contains($0.lowercased()) }) else { return }
    throw missingColumnError(column, "writes", underlying: nil)
  }

  /// The table's column names, lowercased: SQLite compares names ignoring case.
  @usableFromInline
  func columnNames(_ db: Database) throws -> Set<String> {
    Set(try db.columns(in: table).map { $0.name.lowercased() })
  }

  /// The refusal of a table that lacks `column`, which the entity `access`es (reads, writes).
  @usableFromInline
  func missingColumnError(_ column: String, _ access: String, underlying: (any Error & Sendable)?) -> RewindError {
    RewindError(
      .schemaMismatch,
      "\(table) has no column \(column), which \(E.self) \(access): the table is older than the app's entity (is the app migration that adds it missing?); nothing was changed",
      underlying: underlying)
  }

  /// The column a decoding `error` says the entity reads and the table does not have (GRDB's
  /// `column not found: "name"`), or `nil`: any other decoding failure is the row's.
  @usableFromInline
  func missingColumn(named error: any Error, _ db: Database) throws -> String? {
    let text = String(describing: error)
    guard let start = text.range(of: #"column not found: ""#)?.upperBound,
      let end = text[start...].firstIndex(of: "\"")
    else { return nil }
    let column = String(text[start..<end])
    return try columnNames(db).contains(column.lowercased()) ? nil : column
  }

  /// Refuses an ``Entity/databaseColumnOrder`` that does not name each of the table's
  /// `columns` once (as SQLite compares names, ignoring case): a column it left out would not
  /// be read (an initializer reading past the row stops the process in GRDB), one the table
  /// lacks could not be selected.
  @usableFromInline
  func checkColumnOrder(against columns: [String]) throws {
    guard let order = E.databaseColumnOrder else { return }
    let named = order.map { $0.lowercased() }
    let existing = Set(columns.map { $0.lowercased() })
    let problem: String? =
      if let missing = order.first(where: { !existing.contains($0.lowercased()) }) {
        "names \(missing), which \(table) does not have"
      } else if let twice = order.first(where: { name in named.filter { $0 == name.lowercased() }.count > 1 }) {
        "names \(twice) twice"
      } else if case let left = columns.filter({ !named.contains($0.lowercased()) }), !left.isEmpty {
        "leaves out \(left.joined(separator: ", ")) of \(table)"
      } else {
        nil
      }
    guard let problem else { return }
    throw RewindError(
      .schemaMismatch,
      "\(E.self).databaseColumnOrder \(problem): it must name every column of \(table) once, in the order init(orderedRow:) reads them (\(table) has \(columns.joined(separator: ", ")))"
    )
  }

  /// The `SELECT` of the table's rows: of the columns `order` names, in that order, or of all.
  @usableFromInline
  func selection(_ order: [String]?) -> String {
    "SELECT \(order?.map(\.quotedDatabaseIdentifier).joined(separator: ", ") ?? "*") FROM \(table.quotedDatabaseIdentifier)"
  }

  /// Debug builds: the first rows read by name (`init(row:)`) must be the entities read by
  /// position (`init(orderedRow:)`), or the entity's column order does not match its
  /// initializer, and every open would read wrong values.
  @usableFromInline
  func checkOrderedDecoding(of entities: EntityTable<E>, _ db: Database) throws {
    let rows = try Row.fetchCursor(db, sql: "\(selection(nil)) LIMIT 16")
    while let row = try rows.next() {
      let byName: E
      do {
        byName = try E(row: row)
      } catch {
        throw RewindError(
          .invalidValue,
          "a row of \(table) reads by position (init(orderedRow:)) but not by name (init(row:)), which undo and other writers' changes use: \(describe(StateRows.image(of: row, in: table)))",
          underlying: error)
      }
      guard let byPosition = entities[byName.id], byPosition == byName else {
        throw RewindError(
          .invalidValue,
          "\(E.self) \(byName.id) reads as another value by position (init(orderedRow:), in the order of databaseColumnOrder: \(E.databaseColumnOrder ?? [])) than by name (init(row:)): \(entities[byName.id].map { "\($0)" } ?? "none") instead of \(byName); make databaseColumnOrder name the columns in the order init(orderedRow:) reads them"
        )
      }
    }
  }

  /// The key of the first row of the table that does not decode as an entity (by position
  /// when `order` is given), for the error that names it: read again only once loading has
  /// failed.
  @usableFromInline
  func firstUndecodableKey(_ db: Database, order: [String]?) throws -> RowImage? {
    let rows = try Row.fetchCursor(db, sql: selection(order))
    while let row = try rows.next() {
      let decodes = order == nil ? (try? E(row: row)) != nil : (try? E(orderedRow: row)) != nil
      if !decodes { return RowImage([E.keyColumn: row[E.keyColumn]]) }
    }
    return nil
  }

  @inlinable
  func hasChanges(in root: inout Root) -> Bool { path.read(&root) { $0.hasPendingChanges } }

  @inlinable
  func takeChanges(from root: inout Root, into changes: inout [RowChange]) throws {
    // Most actions touch one table: a read is cheaper than the mutable access taking needs.
    guard hasChanges(in: &root) else { return }
    try path.modify(&root) { entities in try takeChanges(from: &entities, into: &changes) }
  }

  @inlinable
  func takeChanges(from entities: inout EntityTable<E>, into changes: inout [RowChange]) throws {
    // Read in place, where a list of (id, before, after) copied each entity twice.
    var touched = entities.takeTouched()
    defer { entities.reuseTouched(&touched) }
    for (id, before) in touched {
      let after = entities.storage[id]
      guard try before != after || Self.storedApart(before, after) else { continue }
      if let after, after.id != id { throw Self.idChanged(from: id, to: after.id) }
      let (change, readBack) = try storedChange(id: id, before: before, after: after)
      // Memory holds what the file will: a value the row cannot hold exactly (a `Date` beyond
      // the millisecond GRDB stores) is replaced with the one a load would read.
      if let row = change.after, let after, Self.readsRowsBack {
        let stored = try readBack ?? self.readBack(row, id: id)
        if stored != after {
          if E.databaseRowRoundTripsExactly {
            throw RewindError(
              .invalidValue,
              "\(E.self) says its rows read back exactly (databaseRowRoundTripsExactly), but \(E.self) \(id) reads back from its row \(describe(row)) as another value: \(stored) instead of \(after); return false from databaseRowRoundTripsExactly, or make init(row:) read what databaseRowImage() writes"
            )
          }
          entities.set(stored, for: id)
        }
      }
      // Another value, the same row (`nil` where `.some(nil)` was, in an `Int??` column): the
      // file would not change, and an entry for it would be an undo step that undoes nothing.
      if let before = change.before, let after = change.after, before.isStoredAlike(after) { continue }
      changes.append(change)
    }
  }

  /// Whether two entities Swift's `==` takes for equal have rows SQLite stores apart: text in
  /// one Unicode form and the other (`"café"` composed or decomposed), which Swift compares by
  /// canonical equivalence and SQLite by bytes. Such a change is logged, so that the table
  /// holds the bytes memory does (and the next change's before-image is the table's row).
  /// Rows are built only for an entity touched and left equal: a rare case.
  @inlinable
  static func storedApart(_ before: E?, _ after: E?) throws -> Bool {
    guard let before, let after else { return false }
    return try !before.databaseRowImage().isStoredAlike(after.databaseRowImage())
  }

  /// The error of an entity stored under another id than its own: its id is its key in the
  /// table and in its row.
  @usableFromInline
  static func idChanged(from id: E.ID, to new: E.ID) -> RewindError {
    RewindError(
      .invalidValue,
      "\(E.self) \(id) was given the id \(new) in place (table[\(id)]?.id = …, or table[\(id)] = an entity with id \(new)): an entity's id is its key in its table and in its row, so it cannot change; remove the entity and insert it with the new id"
    )
  }

  /// Whether a changed entity's row is read back: always in debug builds, where an entity's
  /// claim that it needs no read-back is checked; in release builds unless it makes that claim.
  @inlinable
  static var readsRowsBack: Bool {
    #if DEBUG
      true
    #else
      !E.databaseRowRoundTripsExactly
    #endif
  }

  @usableFromInline
  func rows(of root: Root, into batches: inout RowBatches) throws {
    let entities = root[keyPath: keyPath]
    for id in entities.ids.sorted() {
      try batches.append(storedChange(id: id, before: nil, after: entities[id]!).change)
    }
  }

  /// The entity `row` reads back as.
  @inlinable
  func readBack(_ row: RowImage, id: E.ID) throws -> E {
    do {
      return try E(row: Row(image: row))
    } catch {
      throw RewindError(
        .invalidValue, "\(E.self) \(id) encodes to a row of \(table) it cannot be read back from: \(describe(row))",
        underlying: error)
    }
  }

  /// The row change of one entity with its rows as the table stores them (its columns'
  /// affinities applied), and the entity its after-image reads back as if a conversion made
  /// it read it back.
  ///
  /// A conversion that changes what the row reads back as is refused: a `Decimal` such as
  /// 19.99 in a `NUMERIC` column is stored as a real, which reads back as
  /// 19.98999999999999488; memory taking that value would write another real at the next
  /// change of the row, and the table would drift away from what was written.
  @inlinable
  func storedChange(id: E.ID, before: E?, after: E?) throws -> (change: RowChange, readBack: E?) {
    var change = try change(id: id, before: before, after: after)
    if let row = change.after { try affinities?.checkColumns(of: row, writtenBy: "\(E.self)") }
    guard let encoded = try affinities?.store(&change), let stored = change.after else { return (change, nil) }
    return (change, try checkConversion(id: id, encoded: encoded, stored: stored))
  }

  /// The entity `stored`, the row `encoded` becomes in the table, reads back as; throws unless
  /// it keeps its key and reads back as the entity `encoded` reads back as.
  @usableFromInline
  func checkConversion(id: E.ID, encoded: RowImage, stored: RowImage) throws -> E {
    let converted = encoded.keys.filter { column in !encoded[column]!.isStoredAlike(stored[column]!) }
    let conversions = converted.map { "\($0) \(describe([$0: encoded[$0]!])) to \(describe([$0: stored[$0]!]))" }
    func refusal(_ reason: String, underlying: (any Error)? = nil) -> RewindError {
      RewindError(
        .invalidValue,
        "\(E.self) \(id) cannot be stored as it is written: the declared types of \(table)'s columns convert \(conversions.joined(separator: ", ")) (SQLite's type affinity), \(reason); declare the column with the type the value is written as (TEXT for a Decimal, which GRDB writes as text); nothing was written",
        underlying: underlying)
    }
    if converted.contains(E.keyColumn) { throw refusal("which would store the key apart from the lists and the log") }
    let written = try readBack(encoded, id: id)
    let read: E
    do {
      read = try E(row: Row(image: stored))
    } catch {
      throw refusal("which \(E.self) cannot read back", underlying: error)
    }
    guard read == written else { throw refusal("which reads back as another value: \(read) rather than \(written)") }
    return read
  }

  /// The rows of `before` and `after`; a value GRDB cannot write (a NaN in a column it stores
  /// as JSON) is an invalid value naming the entity and the column.
  @inlinable
  func rowImages(_ before: E?, _ after: E?) throws -> (RowImage?, RowImage?) {
    do {
      return (try before?.databaseRowImage(), try after?.databaseRowImage())
    } catch EncodingError.invalidValue(_, let context) {
      let column = context.codingPath.map(\.stringValue).joined(separator: ".")
      throw RewindError(
        .invalidValue,
        "\(table)\(column.isEmpty ? "" : ".\(column)") of \(E.self) \(describe((after ?? before).map { [E.keyColumn: E.keyValue(of: $0.id)] }.map(RowImage.init))) cannot be written: \(context.debugDescription); nothing was written"
      )
    }
  }

  /// The row change of one entity, keyed by the key column's value as its row holds it.
  ///
  /// That is the key as the row encodes it (a UUID in the entity's chosen form), so the log
  /// names exactly the row the table holds. It is the stored row's own key, not necessarily
  /// the id the reducer used: Swift compares strings by canonical equivalence ("café" composed
  /// or decomposed is one key in memory) where SQLite compares bytes.
  @inlinable
  func change(id: E.ID, before: E?, after: E?) throws -> RowChange {
    let (before, after) = try rowImages(before, after)
    let (beforeKey, afterKey) = (before?[E.keyColumn], after?[E.keyColumn])
    if let beforeKey, let afterKey, !beforeKey.isSameBytes(as: afterKey) {
      // Equal ids (the table found the one by the other) that SQLite tells apart: the row
      // would be inserted a second time rather than updated.
      throw RewindError(
        .invalidValue,
        "\(E.self) \(describe([E.keyColumn: afterKey])) would replace \(describe([E.keyColumn: beforeKey])): the ids are equal in Swift (canonically equivalent Unicode) but not to SQLite, which compares their bytes, so the table would hold both; write keys in one normalization form (such as NFC, `precomposedStringWithCanonicalMapping`)"
      )
    }
    let key = E.keyValue(of: id)
    guard let written = beforeKey ?? afterKey, !written.isSameBytes(as: key) else {
      return RowChange(table: table, key: RowImage(keyColumns, [key]), before: before, after: after)
    }
    // A row that writes its key in another form (its own `encode(to:)` storing a UUID as GRDB's
    // blob where the strategy says text) would be a row the lists and the log cannot name.
    if E.ID.self == UUID.self {
      throw RewindError(
        .invalidValue,
        "\(E.self) writes its key as \(describe([E.keyColumn: written])), but its UUID strategy (databaseUUIDEncodingStrategy(for:)) stores it as \(describe([E.keyColumn: key])), the form order lists and the log name it by: write the key in the strategy's form (id.uuidString for uppercase text), or return the strategy of the form it writes"
      )
    }
    // Otherwise the same id in other bytes (the stored row's spelling of an equivalent string)
    // names the row; a key that is not the id at all names none.
    guard E.ID.fromDatabaseValue(written) == id else {
      throw RewindError(
        .invalidValue,
        "\(E.self) \(id) writes its key as \(describe([E.keyColumn: written])), which does not read back as its id: write `id` itself in \(E.keyColumn)"
      )
    }
    return RowChange(table: table, key: RowImage(keyColumns, [written]), before: before, after: after)
  }

  /// Refuses a table whose UUID keys have another form than the entity writes: a file written
  /// before the entity's strategy changed (release 62fd705 kept GRDB's default, 16-byte blobs;
  /// Rewind's default is now uppercase text). Its rows would be written a second time under
  /// the new form, and deletes and undo would miss them.
  @usableFromInline
  func checkUUIDKeyForm(_ db: Database) throws {
    guard E.ID.self == UUID.self else { return }
    let column = E.keyColumn.quotedDatabaseIdentifier
    let (form, otherForm): (String, String)
    switch E.databaseUUIDEncodingStrategy(for: E.keyColumn) {
    case .deferredToUUID: (form, otherForm) = ("16-byte blobs", "typeof(\(column)) != 'blob'")
    case .uppercaseString:
      (form, otherForm) = ("uppercase text", "typeof(\(column)) != 'text' OR \(column) != upper(\(column))")
    case .lowercaseString:
      (form, otherForm) = ("lowercase text", "typeof(\(column)) != 'text' OR \(column) != lower(\(column))")
    }
    guard
      let stored = try DatabaseValue.fetchOne(
        db, sql: "SELECT \(column) FROM \(table.quotedDatabaseIdentifier) WHERE \(otherForm) LIMIT 1")
    else { return }
    if case .string(let text) = stored.storage, UUID(uuidString: text) == nil {
      throw RewindError(
        .corruptData,
        "\(table) holds a key that is not a UUID, \(describe([E.keyColumn: stored])), where \(E.self) keys are UUIDs (was the table edited by hand?); `rewind verify` lists the damage, and `rewind rebuild-tables` puts back the rows the log holds (if the log itself is sound; otherwise restore the file from a backup)"
      )
    }
    if case .blob(let data) = stored.storage, data.count != 16 {
      throw RewindError(
        .corruptData,
        "\(table) holds a key that is not a UUID, a blob of \(data.count) bytes, where \(E.self) keys are UUIDs (was the table edited by hand?); `rewind verify` lists the damage, and `rewind rebuild-tables` puts back the rows the log holds (if the log itself is sound; otherwise restore the file from a backup)"
      )
    }
    let (found, strategy): (String, String)
    switch stored.storage {
    case .blob: (found, strategy) = ("blobs", ".deferredToUUID")
    case .string(let text) where text == text.lowercased(): (found, strategy) = ("lowercase text", ".lowercaseString")
    case .string: (found, strategy) = ("uppercase text", ".uppercaseString")
    default: (found, strategy) = ("\(stored)", "the strategy of the file's form")
    }
    throw RewindError(
      .schemaMismatch,
      "\(table) holds UUID keys as \(found) (such as \(describe([E.keyColumn: stored]))), but \(E.self) writes them as \(form): its rows would be written twice and deletes would miss them. Keep the file's form: give \(E.self) `static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { \(strategy) }` (files of release 0.3 hold GRDB's default, blobs: .deferredToUUID). If the keys took this form from an import or an edit of the file rather than from the app, revert that instead: `rewind undo` reverts an import"
    )
  }

  @inlinable
  func idTest(in root: Root) -> Any? {
    let entities = root[keyPath: keyPath]
    // `Int64` or `Int` ids close together are looked up in bits the processor's cache holds,
    // built at the first look-up: a table no list names costs nothing.
    var (dense, built): (DenseIntegerIDs?, Bool) = (nil, false)
    return { (id: E.ID) in
      if !built { (dense, built) = (DenseIntegerIDs(entities.ids), true) }
      return dense?.contains(id) ?? entities.contains(id: id)
    } as (E.ID) -> Bool
  }

  @usableFromInline
  func rowCount(of root: Root) -> Int { root[keyPath: keyPath].count }

  @usableFromInline
  func owns(_ change: RowChange) -> Bool { change.table == table }

  @usableFromInline
  func prepare(_ changes: [RowChange], _ direction: ChangeDirection) throws -> (inout Root) -> Void {
    let entities: [(E.ID, E?)] = try changes.map { change in
      guard let keyValue = change.key[E.keyColumn], let id = E.ID.fromKeyValue(keyValue) else {
        throw RewindError(.corruptData, "a change to \(table) has no valid \(E.keyColumn) key: \(describe(change.key))")
      }
      guard var row = change.target(direction) else { return (id, nil) }
      // As the table holds it (an entry of an earlier release, an import, the tool's write).
      if let stored = try affinities?.stored(row) { row = stored }
      do {
        let entity = try E(row: Row(image: row))
        guard entity.id == id else {
          throw RewindError(
            .corruptData, "a row of \(table) keyed \(describe(change.key)) decodes with id \(entity.id)")
        }
        return (id, entity)
      } catch let error as RewindError {
        throw error
      } catch {
        throw RewindError(
          .corruptData, "the row of \(table) keyed \(describe(change.key)) does not decode as \(E.self)",
          underlying: error)
      }
    }
    let keyPath = keyPath
    return { root in
      for (id, entity) in entities { root[keyPath: keyPath].set(entity, for: id) }
    }
  }
}
