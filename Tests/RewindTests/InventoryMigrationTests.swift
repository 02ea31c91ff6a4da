import Foundation
import GRDB
import Testing

@testable import Rewind

// MARK: - A notes app whose later versions reuse names earlier ones dropped or renamed

struct EvolvingNoteV1: Entity {
  static let databaseTableName = "notes"
  var id: Int64
  var title: String
  var pinned: Int64
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("title", .text).notNull()
      t.column("pinned", .integer).notNull()
    }
  }
}

/// v2 renamed title → name and dropped pinned; v3 brought back a `title` (a subtitle) and
/// a `pinned` column.
struct EvolvingNoteV3: Entity {
  static let databaseTableName = "notes"
  var id: Int64
  var name: String
  var title: String?
  var pinned: Int64
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
      t.column("title", .text)
      t.column("pinned", .integer).notNull().defaults(to: 0)
    }
  }
}

struct EvolvingNotesViewV1: Codable, Equatable, Sendable {
  var sort = "title"
}
struct EvolvingNotesViewV3: Codable, Equatable, Sendable {
  var sort = "name"  // a new property that reuses the name of the one v2 removed
}

enum EvolvingNotesAction: LoggedAction, Equatable {
  case add(id: Int64, title: String)
  case set(id: Int64, name: String, subtitle: String?, pinned: Int64)
  case sort(String)
}

struct EvolvingNotesV1: PersistentState, Equatable {
  var notes = EntityTable<EvolvingNoteV1>()
  var view = EvolvingNotesViewV1()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.notes), .view(\.view)) }
}

struct EvolvingNotesV3: PersistentState, Equatable {
  var notes = EntityTable<EvolvingNoteV3>()
  var view = EvolvingNotesViewV3()
  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.notes), .view(\.view))
      .migrations(
        SchemaMigration(
          "2-names", .renameColumn("title", to: "name", in: "notes"), .dropColumn("pinned", from: "notes"),
          .removeViewProperty("sort")),
        SchemaMigration(
          "3-subtitles", .addColumn("title", to: "notes", .text, default: nil),
          .addColumn("pinned", to: "notes", .integer, notNull: true, default: 0)))
  }
}

struct EvolvingNotesReducerV1: Reducer {
  func reduce(into state: inout EvolvingNotesV1, action: EvolvingNotesAction) -> Effect<EvolvingNotesAction> {
    switch action {
    case .add(let id, let title): state.notes.insert(EvolvingNoteV1(id: id, title: title, pinned: 0))
    case .set(let id, let name, _, let pinned):
      state.notes[id]?.title = name
      state.notes[id]?.pinned = pinned
    case .sort(let sort): state.view.sort = sort
    }
    return .none
  }
}

struct EvolvingNotesReducerV3: Reducer {
  func reduce(into state: inout EvolvingNotesV3, action: EvolvingNotesAction) -> Effect<EvolvingNotesAction> {
    switch action {
    case .add(let id, let title): state.notes.insert(EvolvingNoteV3(id: id, name: title, title: nil, pinned: 0))
    case .set(let id, let name, let subtitle, let pinned):
      state.notes[id]?.name = name
      state.notes[id]?.title = subtitle
      state.notes[id]?.pinned = pinned
    case .sort(let sort): state.view.sort = sort
    }
    return .none
  }
}

// MARK: - Broken versions of the inventory app

/// Version 5 of the inventory app with whatever migration the test puts last.
struct EvolvingBrokenV5: InventoryVersion {
  nonisolated(unsafe) static var last: [SchemaMigration] = [Inventory.v5]
  static let number = 5
  var inner = InventoryV5()
  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.inner.items), .entities(\.inner.parties),
      .list(\.inner.shelf, named: "shelf", of: InvItemV3.self),
      .list(\.inner.preferred, named: "preferred", of: InvParty.self), .view(\.inner.view)
    ).migrations([Inventory.v2, Inventory.v3, Inventory.v4] + last)
  }
  var itemIDs: [Int64] { inner.itemIDs }
  var binIDs: [Int64] { [] }
  var partyIDs: [Int64] { inner.partyIDs }
  var final: Inventory.Final { inner.final }
  mutating func apply(_ action: Inventory.Action) { inner.apply(action) }
}

/// Version 4 whose last migration is a described change the test chooses (the v4 state shape).
struct EvolvingBrokenV4: InventoryVersion {
  nonisolated(unsafe) static var last: SchemaMigration = Inventory.v4
  static let number = 4
  var inner = InventoryV4()
  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.inner.items), .entities(\.inner.suppliers), .entities(\.inner.makers),
      .list(\.inner.shelf, named: "shelf", of: InvItemV3.self),
      .list(\.inner.preferred, named: "preferred", of: InvSupplier.self), .view(\.inner.view)
    ).migrations([Inventory.v2, Inventory.v3, last])
  }
  var itemIDs: [Int64] { inner.itemIDs }
  var binIDs: [Int64] { [] }
  var partyIDs: [Int64] { inner.partyIDs }
  var final: Inventory.Final { inner.final }
  mutating func apply(_ action: Inventory.Action) { inner.apply(action) }
}

/// Version 3's item, but the developer forgot to change its key column after renaming it.
struct EvolvingItemForgotKey: Entity {
  static let databaseTableName = "items"
  var id: Int64
  var name: String
  var price: String
  var qty: Int64
  var weight: Double
  var note: String?
  static func createTable(_ db: Database) throws { try InvItemV3.createTable(db) }
}

struct EvolvingForgotKeyV3: InventoryVersion {
  static let number = 3
  var items = EntityTable<EvolvingItemForgotKey>()
  var inner = InventoryV3()
  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.items), .entities(\.inner.bins), .entities(\.inner.suppliers), .entities(\.inner.makers),
      .list(\.inner.shelf, named: "shelf", of: EvolvingItemForgotKey.self),
      .list(\.inner.binOrder, named: "binOrder", of: InvBin.self),
      .list(\.inner.preferred, named: "preferred", of: InvSupplier.self), .view(\.inner.view)
    ).migrations(Inventory.v2, Inventory.v3)
  }
  var itemIDs: [Int64] { [] }
  var binIDs: [Int64] { [] }
  var partyIDs: [Int64] { [] }
  var final: Inventory.Final { Inventory.Final() }
  mutating func apply(_ action: Inventory.Action) {}
}

struct MigrationTestError: Error {}

@MainActor
struct InventoryMigrationTests {
  func open<S: InventoryVersion>(_ type: S.Type, _ path: String) throws -> Store<S, Inventory.Action> {
    try Store(path: path, initialState: S(), reducer: InventoryReducer<S>())
  }

  /// Everything in the file that a refused open must leave alone.
  func fileState(_ path: String) throws -> [String] {
    try dump(path)
      + DatabaseQueue(path: path).read { db in
        try String.fetchAll(db, sql: "SELECT coalesce(sql, name) FROM sqlite_master ORDER BY name")
          + String.fetchAll(
            db,
            sql: "SELECT version || identifier || seq || kind || changes FROM rewind_app_migrations ORDER BY version")
          + String.fetchAll(db, sql: "SELECT name || ':' || key_column FROM rewind_entity_tables ORDER BY name")
          + String.fetchAll(db, sql: "SELECT name || ':' || entity_table FROM rewind_lists ORDER BY name")
          + String.fetchAll(db, sql: "SELECT seq || ':' || rows FROM snapshots ORDER BY id")
      }
  }

  /// A v3 inventory file (or v1..v4) with some history, including a deleted supplier "Ghost".
  func inventoryFile(_ path: String, upTo version: Int) throws {
    let v1 = try open(InventoryV1.self, path)
    try v1.send(.addItem(id: 1, name: "Bolt ", cents: 350, tag: "hw"))
    try v1.send(.addBin(id: 2, label: "A"))
    try v1.send(.addParty(id: 3, name: "Acme", maker: false))
    try v1.send(.addParty(id: 4, name: "Ghost", maker: true))
    try v1.send(.deleteParty(id: 4))
    try v1.send(.prefer(id: 3))
    try v1.send(.scroll(12.5))
    try v1.send(.filter("bo"))
    if version >= 2 { try open(InventoryV2.self, path).send(.setWeight(id: 1, weight: 2.0)) }
    if version >= 3 { try open(InventoryV3.self, path).send(.setQty(id: 1, qty: 7)) }
    if version >= 4 { try open(InventoryV4.self, path).send(.addParty(id: 5, name: "Initech", maker: true)) }
  }

  // MARK: Bugs

  /// The same state exports to different bytes depending on where it is read from, when a
  /// REAL column holds an integral value: `export(at: lastSeq)` vs `export()`.
  @Test func integralRealsExportTheSameFromTheLogAndFromTheTables() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("inv.sqlite")
    let store = try open(InventoryV2.self, path)
    try store.send(.addItem(id: 1, name: "Bolt", cents: 350, tag: "hw"))
    let seq = try #require(try store.send(.setWeight(id: 1, weight: 2.0)))
    let db = try RewindDatabase(path: path)
    let now = try db.export()
    let atLast = try db.export(at: seq)
    #expect(now == atLast, "the same state, two byte strings")
    // The README's `restore --to 4` then `export | cmp - at4.json` recipe.
    try store.send(.setWeight(id: 1, weight: 3.0))
    try db.restore(to: seq)
    #expect(try db.export() == atLast, "restore --to then export differs from export --at")
  }

  /// `importState(export())` of the current state changes data when a later version reuses a
  /// column or view-property name an earlier migration renamed or dropped.
  @Test func importingTheCurrentExportChangesNothingWhenALaterVersionReusesOldNames() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("notes.sqlite")
    let v1 = try Store(path: path, initialState: EvolvingNotesV1(), reducer: EvolvingNotesReducerV1())
    try v1.send(.add(id: 1, title: "Groceries"))
    let v3 = try Store(path: path, initialState: EvolvingNotesV3(), reducer: EvolvingNotesReducerV3())
    try v3.send(.set(id: 1, name: "Groceries", subtitle: "for Sunday", pinned: 1))
    try v3.send(.sort("date"))
    let db = try RewindDatabase(path: path)
    #expect(try db.verify().problems == [])
    let before = try db.export()
    let seq = try db.importState(before)
    let after = try db.export()
    #expect(seq == nil, "importing the file's own export changed the state")
    #expect(after == before)
  }

  /// An export from before `.dropTable` names the dropped table's order list: importing it
  /// is refused although the table itself is skipped.
  @Test func anOldExportWithADroppedTablesListImports() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("inv.sqlite")
    try inventoryFile(path, upTo: 3)
    let v3Export = try RewindDatabase(path: path).export()
    let v4 = try open(InventoryV4.self, path)
    let db = try RewindDatabase(path: path)
    do {
      _ = try db.importState(v3Export)
    } catch {
      Issue.record("importing a v3 export into v4 (dropTable bins with list binOrder): \(error)")
    }
    _ = v4
  }

  /// An export from before a transform cannot be read in the new shape: refused, saying why.
  @Test func anOldExportAcrossATransformIsRefusedWithTheReason() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("inv.sqlite")
    try inventoryFile(path, upTo: 4)
    let v4Export = try RewindDatabase(path: path).export()
    _ = try open(InventoryV5.self, path)
    let before = try RewindDatabase(path: path).export()
    #expect {
      _ = try RewindDatabase(path: path).importState(v4Export)
    } throws: { error in
      (error as? RewindError)?.code == .invalidImport
        && (error as? RewindError)?.message.contains("before migration 5-parties (a transform") == true
    }
    #expect(try RewindDatabase(path: path).export() == before)
  }

  // MARK: Failure paths

  func expectRefused<S: InventoryVersion>(
    _ type: S.Type, _ path: String, _ label: String, code: RewindError.Code = .migrationFailed,
    contains: String? = nil
  ) throws {
    let before = try fileState(path)
    do {
      _ = try open(S.self, path)
      Issue.record("\(label): opened")
    } catch let error as RewindError {
      #expect(error.code == code, "\(label): \(error.code)")
      if let contains { #expect(error.description.contains(contains), "\(label): \(error)") }
    } catch {
      Issue.record("\(label): not a RewindError: \(error)")
    }
    #expect(try fileState(path) == before, "\(label): the file changed")
  }

  @Test func badMigrationsLeaveTheFileUnchanged() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("inv.sqlite")
    try inventoryFile(path, upTo: 4)
    let snapshotSeq = try RewindDatabase(path: path).snapshot(label: "before v5")

    func transform(
      migrate: @escaping @Sendable (Database) throws -> Void = { db in
        try Inventory.v5Migrate(db)
      }, rows: @escaping @Sendable (HistoryRow) throws -> [HistoryRow] = Inventory.mergeParties
    ) -> [SchemaMigration] {
      [.transform("5-parties", migrate: migrate, rows: rows)]
    }
    EvolvingBrokenV5.last = transform(migrate: { db in
      try Inventory.v5Migrate(db)
      try db.execute(sql: "UPDATE parties SET role = 'vendor' WHERE role = 'supplier'")
    })
    try expectRefused(EvolvingBrokenV5.self, path, "transform disagrees", contains: "disagree")
    EvolvingBrokenV5.last = transform(rows: { row in
      try Inventory.mergeParties(row).map {
        var r = $0
        if r.table == "parties" { r.table = "partys" }
        return r
      }
    })
    try expectRefused(EvolvingBrokenV5.self, path, "rows name an unknown table", contains: "partys")
    EvolvingBrokenV5.last = transform(migrate: { _ in throw MigrationTestError() })
    try expectRefused(EvolvingBrokenV5.self, path, "migrate throws", contains: "5-parties")
    EvolvingBrokenV5.last = transform(rows: { row in
      if row.table == "makers", row["name"] == "Ghost".databaseValue { throw MigrationTestError() }
      return try Inventory.mergeParties(row)
    })
    try expectRefused(EvolvingBrokenV5.self, path, "rows throw on a history-only row", contains: "5-parties")
    EvolvingBrokenV5.last = transform(rows: { row in
      try Inventory.mergeParties(row).map {
        var r = $0
        r["id"] = nil
        return r
      }
    })
    try expectRefused(EvolvingBrokenV5.self, path, "rows drop the key", contains: "no id")
    EvolvingBrokenV5.last = [.barrier("5-parties") { db in try db.execute(sql: "UPDATE nowhere SET x = 1") }]
    try expectRefused(EvolvingBrokenV5.self, path, "barrier SQL fails", contains: "5-parties")
    EvolvingBrokenV5.last = [SchemaMigration("5-parties", .renameColumn("nme", to: "title", in: "items"))]
    try expectRefused(EvolvingBrokenV5.self, path, "rename a missing column", contains: "nme")
    EvolvingBrokenV5.last = [SchemaMigration("5-parties", .renameColumn("name", to: "price", in: "items"))]
    try expectRefused(EvolvingBrokenV5.self, path, "rename onto an existing column")
    EvolvingBrokenV5.last = [SchemaMigration("5-parties", .dropColumn("itemID", from: "items"))]
    try expectRefused(EvolvingBrokenV5.self, path, "drop the key column", contains: "key")
    EvolvingBrokenV5.last = [SchemaMigration("5-parties", .renameViewProperty("filter", to: "sortAscending"))]
    try expectRefused(EvolvingBrokenV5.self, path, "rename a view property onto another", contains: "sortAscending")
    EvolvingBrokenV5.last = [
      SchemaMigration("5-parties", .addColumn("sku", to: "items", .text, notNull: true, default: nil))
    ]
    try expectRefused(EvolvingBrokenV5.self, path, "NOT NULL without default", contains: "sku")
    // (Dropping a table the file no longer has is no mistake: a file that skipped the versions
    // that had it never had it. It does nothing.)
    EvolvingBrokenV5.last = [SchemaMigration("5-parties", .addColumn("qty", to: "items", .integer, default: 1))]
    try expectRefused(EvolvingBrokenV5.self, path, "add an existing column", contains: "qty")
    _ = snapshotSeq
  }

  @Test func correctV5AfterRefusals() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("inv.sqlite")
    try inventoryFile(path, upTo: 4)
    let label = try RewindDatabase(path: path).snapshot(label: "v4")
    let expectedAtLabel = try Inventory.Final(export: RewindDatabase(path: path).export(), version: 4)
    EvolvingBrokenV5.last = [
      .transform("5-parties", migrate: { _ in throw MigrationTestError() }, rows: Inventory.mergeParties)
    ]
    _ = try? open(EvolvingBrokenV5.self, path)
    let v5 = try open(InventoryV5.self, path)
    try v5.send(.renameParty(id: 3, name: "Acme Corp"))
    let db = try RewindDatabase(path: path)
    #expect(try db.verify().problems == [])
    try db.restore(snapshot: "v4")
    #expect(try Inventory.Final(export: db.export(), version: 5) == expectedAtLabel.projected(to: 5))
    _ = label
  }

  @Test func forgettingTheKeyColumnAfterRenamingIt() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("inv.sqlite")
    try inventoryFile(path, upTo: 2)
    try expectRefused(EvolvingForgotKeyV3.self, path, "entity keyColumn not updated", code: .schemaMismatch)
  }

  @Test func dropTableOfATableTheAppStillDeclares() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("inv.sqlite")
    try inventoryFile(path, upTo: 3)
    // The v4 shape still declares suppliers; dropping it by mistake:
    EvolvingBrokenV4.last = SchemaMigration("4-no-bins", .dropTable("bins"), .dropTable("suppliers"))
    try expectRefused(EvolvingBrokenV4.self, path, "drop a declared table", contains: "still declares")
  }

  // MARK: Read-only, barrier + compaction, snapshots across transforms

  @Test func readOnlyStoreOfAnOlderFile() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("inv.sqlite")
    try inventoryFile(path, upTo: 1)
    let before = try fileState(path)
    let viewer = try Store(
      path: path, initialState: InventoryV7(), reducer: InventoryReducer<InventoryV7>(), readOnly: true)
    #expect(try fileState(path) == before)
    let writer = try open(InventoryV7.self, path)
    #expect(viewer.state == writer.state, "\(viewer.state.final) vs \(writer.state.final)")
  }

  @Test func compactionAcrossABarrier() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("inv.sqlite")
    try inventoryFile(path, upTo: 4)
    let v7 = try open(InventoryV7.self, path)
    let barrier = v7.lastSeq
    try v7.send(.renameItem(id: 1, name: "Bolt M4"))
    try v7.send(.setQty(id: 1, qty: 9))
    let db = try RewindDatabase(path: path)
    let exportsBefore = try (1...v7.lastSeq).map { try db.export(at: $0) }
    for keep in [100, 3, 1] {
      do {
        let report = try db.compact(keep: keep)
        #expect(try db.verify().problems == [])
        for seq in max(report.baseSeq, 1)...v7.lastSeq {
          if seq > barrier || report.baseSeq < barrier {
            let now = try db.export(at: seq)
            if now != exportsBefore[Int(seq) - 1] {
              let a = Set(now.split(separator: "\n"))
              let b = Set(exportsBefore[Int(seq) - 1].split(separator: "\n"))
              Issue.record(
                "export(at: \(seq)) after compact(keep: \(keep)): now \(a.subtracting(b)) before \(b.subtracting(a))")
            }
          }
        }
      } catch {
        Issue.record("compact(keep: \(keep)) across a barrier: \(error)")
      }
    }
    try v7.reload()
  }

  @Test func labelledSnapshotFromV1RestoresInV6() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("inv.sqlite")
    try inventoryFile(path, upTo: 1)
    let db = try RewindDatabase(path: path)
    let seq = try db.snapshot(label: "v1")
    let expected = try Inventory.Final(export: db.export(), version: 1)
    try inventoryFile(path, upTo: 4)
    let v6 = try open(InventoryV6.self, path)
    try v6.send(.setPrice(id: 1, cents: 999))
    try db.restore(snapshot: "v1")
    try v6.reload()
    #expect(v6.state.final == expected.projected(to: 6))
    #expect(try Inventory.Final(export: db.export(at: seq), version: 6) == expected.projected(to: 6))
    #expect(try db.verify().problems == [])
    // And a compaction whose base lands in v1, then a further transform.
    _ = v6
  }

  @Test func compactedBaseFromAnOldVersionThroughTransforms() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("inv.sqlite")
    try inventoryFile(path, upTo: 1)
    let db = try RewindDatabase(path: path)
    let report = try db.compact(keep: 2)
    let states = try (report.baseSeq...db.inspect().lastSeq).map {
      ($0, try Inventory.Final(export: db.export(at: $0), version: 1))
    }
    let v6 = try open(InventoryV6.self, path)
    #expect(try db.verify().problems == [])
    for (seq, state) in states {
      #expect(try Inventory.Final(export: db.export(at: seq), version: 6) == state.projected(to: 6), "seq \(seq)")
    }
    while try v6.undo() != nil {}
    #expect(v6.state.items.count == 0 || true)
    #expect(try db.verify().problems == [])
  }
}

extension Inventory {
  @Sendable static func v5Migrate(_ db: Database) throws {
    try db.create(table: "parties") { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
      t.column("role", .text).notNull()
    }
    try db.execute(sql: "INSERT INTO parties (id, name, role) SELECT id, name, 'supplier' FROM suppliers")
    try db.execute(sql: "INSERT INTO parties (id, name, role) SELECT id, name, 'maker' FROM makers")
    try db.drop(table: "suppliers")
    try db.drop(table: "makers")
  }
}

@MainActor
struct InventorySkippedVersionsTests {
  func open<S: InventoryVersion>(_ type: S.Type, _ path: String) throws -> Store<S, Inventory.Action> {
    try Store(path: path, initialState: S(), reducer: InventoryReducer<S>())
  }

  func attempt<S: InventoryVersion>(from: Int, to type: S.Type, compact: Bool = false) throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("inv.sqlite")
    try InventoryMigrationTests().inventoryFile(path, upTo: from)
    if compact { _ = try RewindDatabase(path: path).compact(keep: 2) }
    do {
      _ = try open(S.self, path)
      let problems = try RewindDatabase(path: path).verify().problems
      #expect(problems == [])
    } catch {
      Issue.record("v\(from) → v\(S.number): \(error)")
    }
  }

  @Test func skippingVersions() throws {
    try attempt(from: 1, to: InventoryV3.self)
    try attempt(from: 1, to: InventoryV4.self)
    try attempt(from: 1, to: InventoryV5.self)
    try attempt(from: 1, to: InventoryV6.self)
    try attempt(from: 2, to: InventoryV4.self)
    try attempt(from: 3, to: InventoryV5.self)
    try attempt(from: 4, to: InventoryV6.self)
    try attempt(from: 5, to: InventoryV7.self)
    try attempt(from: 1, to: InventoryV3.self, compact: true)
    try attempt(from: 1, to: InventoryV2.self, compact: true)
  }
}

@MainActor
struct LongLivedToolAcrossUpgradesTests {
  /// A RewindDatabase opened before the app upgrades the file (as `rewind ui` stays open).
  @Test func aToolOpenBeforeTheUpgrade() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("inv.sqlite")
    let v1 = try Store(path: path, initialState: InventoryV1(), reducer: InventoryReducer<InventoryV1>())
    try v1.send(.addItem(id: 1, name: "Bolt", cents: 350, tag: "hw"))
    let tool = try RewindDatabase(path: path)
    _ = try tool.export()
    let v3 = try Store(path: path, initialState: InventoryV3(), reducer: InventoryReducer<InventoryV3>())
    try v3.send(.setQty(id: 1, qty: 4))
    for (name, call) in [
      ("export", { _ = try tool.export() }), ("export(at: 2)", { _ = try tool.export(at: 2) }),
      ("verify", { _ = try tool.verify() }), ("inspect", { _ = try tool.inspect() }),
      ("undo", { _ = try tool.undo() }), ("fresh verify", { _ = try RewindDatabase(path: path).verify() }),
    ] as [(String, () throws -> Void)] {
      do {
        try call()
      } catch {
        Issue.record("\(name) on a RewindDatabase opened before the upgrade: \(error)")
      }
    }
  }

  @Test func integralRealFromTheLog() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("inv.sqlite")
    let store = try Store(path: path, initialState: InventoryV2(), reducer: InventoryReducer<InventoryV2>())
    try store.send(.addItem(id: 1, name: "Bolt", cents: 350, tag: "hw"))
    let seq = try #require(try store.send(.setWeight(id: 1, weight: 2.0)))
    let db = try RewindDatabase(path: path)
    let then = try db.export()
    try store.send(.setWeight(id: 1, weight: 3.5))
    let past = try db.export(at: seq)
    #expect(past == then)
  }
}

struct EvolvingGaugeV1: Entity {
  static let databaseTableName = "gauges"
  var id: Int64
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in t.primaryKey("id", .integer) }
  }
}
struct EvolvingGaugeV2: Entity {
  static let databaseTableName = "gauges"
  var id: Int64
  var a: Double
  var b: Double
  var c: Int64
  var d: Double
  var e: Double?
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("a", .real).notNull()
      t.column("b", .real).notNull()
      t.column("c", .integer).notNull()
      t.column("d", .real).notNull()
      t.column("e", .real)
    }
  }
}
enum EvolvingGaugeAction: LoggedAction, Equatable {
  case add(Int64)
  case touch(Int64)
}
struct EvolvingGaugesV1: PersistentState, Equatable {
  var gauges = EntityTable<EvolvingGaugeV1>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.gauges)) }
}
struct EvolvingGaugesV2: PersistentState, Equatable {
  var gauges = EntityTable<EvolvingGaugeV2>()
  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.gauges)).migrations(
      SchemaMigration(
        "2-readings", .addColumn("a", to: "gauges", .real, notNull: true, default: 0.1),
        .addColumn("b", to: "gauges", .real, notNull: true, default: Double.pi),
        .addColumn("c", to: "gauges", .integer, notNull: true, default: Int64.max),
        .addColumn("d", to: "gauges", .real, notNull: true, default: 0),
        .addColumn("e", to: "gauges", .real, default: 1e-300)))
  }
}
struct EvolvingGaugeReducerV1: Reducer {
  func reduce(into state: inout EvolvingGaugesV1, action: EvolvingGaugeAction) -> Effect<EvolvingGaugeAction> {
    if case .add(let id) = action { state.gauges.insert(EvolvingGaugeV1(id: id)) }
    return .none
  }
}
struct EvolvingGaugeReducerV2: Reducer {
  func reduce(into state: inout EvolvingGaugesV2, action: EvolvingGaugeAction) -> Effect<EvolvingGaugeAction> {
    if case .touch(let id) = action { state.gauges[id]?.e = nil }
    if case .add(let id) = action { state.gauges.insert(EvolvingGaugeV2(id: id, a: 1, b: 1, c: 1, d: 1, e: nil)) }
    return .none
  }
}

@MainActor
struct MigrationDefaultsTests {
  @Test func nonTextDefaults() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("g.sqlite")
    let v1 = try Store(path: path, initialState: EvolvingGaugesV1(), reducer: EvolvingGaugeReducerV1())
    try v1.send(.add(1))
    let seq = v1.lastSeq
    let v2 = try Store(path: path, initialState: EvolvingGaugesV2(), reducer: EvolvingGaugeReducerV2())
    let db = try RewindDatabase(path: path)
    #expect(try db.verify().problems == [])
    #expect(try db.export(at: seq) == db.export())
    for id in 2...6 as ClosedRange<Int64> { try v2.send(.add(id)) }
    let far = try db.export(at: seq).split(separator: "\n").first { $0.contains("\"id\":1}") }!
    #expect(far.contains("\"d\":0.0"), "REAL column default 0 reads back as \(far)")
    for _ in 2...6 { _ = try v2.undo() }
    try v2.send(.touch(1))
    #expect(try v2.undo() != nil)
    #expect(try v2.undo() != nil)  // the add from v1
    #expect(v2.state.gauges.count == 0)
    #expect(try db.verify().problems == [])
    #expect(try v2.redo() != nil)
  }
}
