import Foundation
import GRDB

@testable import Rewind

/// A second app on the library: an inventory that evolves through seven versions.
///
/// v1: items(id, name, price TEXT "3.50", tag), bins(id, label) + list binOrder,
///     suppliers(id, name) + list preferred, makers(id, name), list shelf of items;
///     view {selected, query, sortAscending, scroll, zoom}
/// v2: items + qty INTEGER NOT NULL DEFAULT 0, weight REAL NOT NULL DEFAULT 1.5, note TEXT NULL;
///     view query → filter
/// v3: items.id → itemID (key rename), drop items.tag, remove view scroll
/// v4: drop table bins (with its list binOrder)
/// v5: transform: suppliers + makers merged into parties(id, name, role); preferred now of parties
/// v6: transform: items.price TEXT "3.50" → INTEGER cents 350
/// v7: barrier: trim item names
enum Inventory {
  // MARK: Migrations

  static let v2 = SchemaMigration(
    "2-stock",
    .addColumn("qty", to: "items", .integer, notNull: true, default: 0),
    .addColumn("weight", to: "items", .real, notNull: true, default: 1.5),
    .addColumn("note", to: "items", .text, default: nil),
    .renameViewProperty("query", to: "filter"))
  static let v3 = SchemaMigration(
    "3-item-keys",
    .renameColumn("id", to: "itemID", in: "items"),
    .dropColumn("tag", from: "items"),
    .removeViewProperty("scroll"))
  static let v4 = SchemaMigration("4-no-bins", .dropTable("bins"))
  static let v5 = SchemaMigration.transform(
    "5-parties",
    migrate: { db in
      try db.create(table: "parties") { t in
        t.primaryKey("id", .integer)
        t.column("name", .text).notNull()
        t.column("role", .text).notNull()
      }
      try db.execute(sql: "INSERT INTO parties (id, name, role) SELECT id, name, 'supplier' FROM suppliers")
      try db.execute(sql: "INSERT INTO parties (id, name, role) SELECT id, name, 'maker' FROM makers")
      try db.drop(table: "suppliers")
      try db.drop(table: "makers")
    },
    rows: mergeParties)
  @Sendable static func mergeParties(_ row: HistoryRow) throws -> [HistoryRow] {
    switch row.table {
    case "suppliers", "makers":
      return [
        HistoryRow(
          table: "parties",
          columns: [
            "id": row["id"]!, "name": row["name"]!,
            "role": (row.table == "suppliers" ? "supplier" : "maker").databaseValue,
          ])
      ]
    default: return [row]
    }
  }
  static let v6 = SchemaMigration.transform(
    "6-price-cents",
    migrate: { db in
      try db.alter(table: "items") { $0.add(column: "cents", .integer).notNull().defaults(to: 0) }
      try db.execute(
        sql:
          "UPDATE items SET cents = CAST(substr(price, 1, instr(price, '.') - 1) AS INTEGER) * 100 + CAST(substr(price, instr(price, '.') + 1) AS INTEGER)"
      )
      try db.alter(table: "items") { $0.drop(column: "price") }
      try db.alter(table: "items") { $0.rename(column: "cents", to: "price") }
    },
    rows: { row in
      guard row.table == "items", let price = row["price"], let text = String.fromDatabaseValue(price) else {
        return [row]
      }
      var item = row
      item["price"] = Inventory.cents(text).databaseValue
      return [item]
    })
  static let v7 = SchemaMigration.barrier("7-trim-names") { db in
    try db.execute(sql: "UPDATE items SET name = trim(name)")
  }

  static func priceText(_ cents: Int64) -> String {
    "\(cents / 100)." + (cents % 100 < 10 ? "0" : "") + "\(cents % 100)"
  }
  static func cents(_ text: String) -> Int64 {
    let parts = text.split(separator: ".")
    return Int64(parts[0])! * 100 + Int64(parts[1])!
  }

  // MARK: Actions

  enum Action: LoggedAction, Equatable {
    case addItem(id: Int64, name: String, cents: Int64, tag: String)
    case renameItem(id: Int64, name: String)
    case setPrice(id: Int64, cents: Int64)
    case setTag(id: Int64, tag: String)
    case setQty(id: Int64, qty: Int64)
    case setWeight(id: Int64, weight: Double)
    case setNote(id: Int64, note: String?)
    case deleteItem(id: Int64)
    case moveItem(id: Int64, to: Int)
    case addBin(id: Int64, label: String)
    case deleteBin(id: Int64)
    case moveBin(id: Int64, to: Int)
    case addParty(id: Int64, name: String, maker: Bool)
    case renameParty(id: Int64, name: String)
    case deleteParty(id: Int64)
    case prefer(id: Int64)
    case unprefer(id: Int64)
    case select(Int64?)
    case filter(String)
    case toggleSort
    case scroll(Double)
    case zoom(Int64?)
  }

  /// The state of any version, holding everything any version has.
  struct Final: Equatable, CustomStringConvertible {
    struct Item: Equatable {
      var name: String
      var cents: Int64
      var tag: String?
      var qty: Int64 = 0
      var weight: Double = 1.5
      var note: String?
    }
    struct Party: Equatable {
      var name: String
      var role: String
    }
    var items: [Int64: Item] = [:]
    var bins: [Int64: String] = [:]
    var parties: [Int64: Party] = [:]
    var shelf: [Int64] = []
    var binOrder: [Int64] = []
    var preferred: [Int64] = []
    var selected: Int64?
    var filter = ""
    var ascending = true
    var scroll: Double = 0
    var zoom: Int64?

    var description: String {
      "items \(items.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }), bins \(bins.sorted { $0.key < $1.key }), parties \(parties.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value.name)/\($0.value.role)" }), shelf \(shelf), binOrder \(binOrder), preferred \(preferred), view sel=\(selected as Any) filter=\(filter) asc=\(ascending) scroll=\(scroll) zoom=\(zoom as Any)"
    }

    /// What this state reads as in the shape of `version`.
    func projected(to version: Int) -> Final {
      var copy = self
      if version >= 3 {
        for id in copy.items.keys { copy.items[id]!.tag = nil }
        copy.scroll = 0
      }
      if version >= 4 {
        copy.bins = [:]
        copy.binOrder = []
      }
      if version >= 7 {
        // The barrier trims names, but only in states from the barrier on; callers pass
        // states of their own seq, so nothing to do here.
      }
      return copy
    }

    init() {}

    /// Reads an export in the shape of `version`, strictly.
    init(export: String, version: Int) throws {
      func bad(_ message: String) -> RewindError { RewindError(.corruptData, "v\(version) export: \(message)") }
      guard case .object(let document) = try JSONValue.parse(export),
        case .object(let entities)? = document["entities"], case .object(let lists)? = document["lists"],
        case .object(let view)? = document["view"]
      else { throw bad("not an export") }
      let expectedTables: Set<String> =
        version >= 5
        ? ["items", "parties"]
        : version >= 4 ? ["items", "suppliers", "makers"] : ["items", "bins", "suppliers", "makers"]
      guard Set(entities.keys) == expectedTables else { throw bad("tables \(entities.keys.sorted())") }
      let expectedLists: Set<String> = version >= 4 ? ["shelf", "preferred"] : ["shelf", "binOrder", "preferred"]
      guard Set(lists.keys) == expectedLists else { throw bad("lists \(lists.keys.sorted())") }
      let key = version >= 3 ? "itemID" : "id"
      var itemColumns: Set<String> = [key, "name", "price"]
      if version <= 2 { itemColumns.insert("tag") }
      if version >= 2 { itemColumns.formUnion(["qty", "weight", "note"]) }
      guard case .array(let itemRows)? = entities["items"] else { throw bad("items") }
      for case .object(let row) in itemRows {
        guard Set(row.keys) == itemColumns else { throw bad("item columns \(row.keys.sorted()) in \(row)") }
        guard case .integer(let id)? = row[key], case .string(let name)? = row["name"] else { throw bad("item \(row)") }
        var item: Item
        switch row["price"] {
        case .string(let text)? where version < 6: item = Item(name: name, cents: Inventory.cents(text))
        case .integer(let cents)? where version >= 6: item = Item(name: name, cents: cents)
        default: throw bad("price in \(row)")
        }
        if version <= 2 {
          guard case .string(let tag)? = row["tag"] else { throw bad("tag in \(row)") }
          item.tag = tag
        }
        if version >= 2 {
          guard case .integer(let qty)? = row["qty"] else { throw bad("qty in \(row)") }
          let weight: Double
          switch row["weight"] {
          case .real(let value)?: weight = value
          case .integer(let value)?: weight = Double(value)  // integral reals parse as integers
          default: throw bad("weight in \(row)")
          }
          item.qty = qty
          item.weight = weight
          switch row["note"] {
          case .null?: item.note = nil
          case .string(let note)?: item.note = note
          default: throw bad("note in \(row)")
          }
        }
        items[id] = item
      }
      func ids(_ list: String) throws -> [Int64] {
        guard case .array(let values)? = lists[list] else { return [] }
        return try values.map {
          guard case .integer(let id) = $0 else { throw bad("list \(list)") }
          return id
        }
      }
      shelf = try ids("shelf")
      preferred = try ids("preferred")
      if version < 4 {
        binOrder = try ids("binOrder")
        guard case .array(let binRows)? = entities["bins"] else { throw bad("bins") }
        for case .object(let row) in binRows {
          guard Set(row.keys) == ["id", "label"], case .integer(let id)? = row["id"],
            case .string(let label)? = row["label"]
          else { throw bad("bin \(row)") }
          bins[id] = label
        }
      }
      if version >= 5 {
        guard case .array(let partyRows)? = entities["parties"] else { throw bad("parties") }
        for case .object(let row) in partyRows {
          guard Set(row.keys) == ["id", "name", "role"], case .integer(let id)? = row["id"],
            case .string(let name)? = row["name"], case .string(let role)? = row["role"]
          else { throw bad("party \(row)") }
          parties[id] = Party(name: name, role: role)
        }
      } else {
        for table in ["suppliers", "makers"] {
          guard case .array(let partyRows)? = entities[table] else { throw bad(table) }
          for case .object(let row) in partyRows {
            guard Set(row.keys) == ["id", "name"], case .integer(let id)? = row["id"],
              case .string(let name)? = row["name"]
            else { throw bad("\(table) \(row)") }
            parties[id] = Party(name: name, role: table == "suppliers" ? "supplier" : "maker")
          }
        }
      }
      var allowedView: Set<String> = ["selected", "sortAscending", "zoom"]
      allowedView.insert(version >= 2 ? "filter" : "query")
      if version <= 2 { allowedView.insert("scroll") }
      guard Set(view.keys).isSubset(of: allowedView) else { throw bad("view paths \(view.keys.sorted())") }
      for (path, value) in view {
        switch (path, value) {
        case ("selected", .integer(let id)): selected = id
        case ("selected", .null): selected = nil
        case ("filter", .string(let text)), ("query", .string(let text)): filter = text
        case ("sortAscending", .bool(let flag)): ascending = flag
        case ("scroll", .real(let offset)): scroll = offset
        case ("scroll", .integer(let offset)): scroll = Double(offset)
        case ("zoom", .integer(let zoom)): self.zoom = zoom
        case ("zoom", .null): zoom = nil
        default: throw bad("view \(path) = \(value)")
        }
      }
    }
  }
}

/// A version of the inventory app.
protocol InventoryVersion: PersistentState, Equatable {
  init()
  static var number: Int { get }
  var final: Inventory.Final { get }
  var itemIDs: [Int64] { get }
  var binIDs: [Int64] { get }
  var partyIDs: [Int64] { get }
  mutating func apply(_ action: Inventory.Action)
}

struct InventoryReducer<State: InventoryVersion>: Reducer {
  func reduce(into state: inout State, action: Inventory.Action) -> Effect<Inventory.Action> {
    state.apply(action)
    return .none
  }
}

// MARK: - Entities

struct InvItemV1: Entity {
  static let databaseTableName = "items"
  var id: Int64
  var name: String
  var price: String
  var tag: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
      t.column("price", .text).notNull()
      t.column("tag", .text).notNull()
    }
  }
}

struct InvItemV2: Entity {
  static let databaseTableName = "items"
  var id: Int64
  var name: String
  var price: String
  var tag: String
  var qty: Int64
  var weight: Double
  var note: String?
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
      t.column("price", .text).notNull()
      t.column("tag", .text).notNull()
      t.column("qty", .integer).notNull().defaults(to: 0)
      t.column("weight", .real).notNull().defaults(to: 1.5)
      t.column("note", .text)
    }
  }
}

struct InvItemV3: Entity {
  static let databaseTableName = "items"
  static let keyColumn = "itemID"
  var id: Int64
  var name: String
  var price: String
  var qty: Int64
  var weight: Double
  var note: String?
  enum CodingKeys: String, CodingKey {
    case id = "itemID"
    case name, price, qty, weight, note
  }
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("itemID", .integer)
      t.column("name", .text).notNull()
      t.column("price", .text).notNull()
      t.column("qty", .integer).notNull().defaults(to: 0)
      t.column("weight", .real).notNull().defaults(to: 1.5)
      t.column("note", .text)
    }
  }
}

struct InvItemV6: Entity {
  static let databaseTableName = "items"
  static let keyColumn = "itemID"
  var id: Int64
  var name: String
  var price: Int64
  var qty: Int64
  var weight: Double
  var note: String?
  enum CodingKeys: String, CodingKey {
    case id = "itemID"
    case name, price, qty, weight, note
  }
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("itemID", .integer)
      t.column("name", .text).notNull()
      t.column("price", .integer).notNull()
      t.column("qty", .integer).notNull().defaults(to: 0)
      t.column("weight", .real).notNull().defaults(to: 1.5)
      t.column("note", .text)
    }
  }
}

struct InvBin: Entity {
  static let databaseTableName = "bins"
  var id: Int64
  var label: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("label", .text).notNull()
    }
  }
}

struct InvSupplier: Entity {
  static let databaseTableName = "suppliers"
  var id: Int64
  var name: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
    }
  }
}

struct InvMaker: Entity {
  static let databaseTableName = "makers"
  var id: Int64
  var name: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
    }
  }
}

struct InvParty: Entity {
  static let databaseTableName = "parties"
  var id: Int64
  var name: String
  var role: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
      t.column("role", .text).notNull()
    }
  }
}

struct InvViewV1: Codable, Equatable, Sendable {
  var selected: Int64?
  var query = ""
  var sortAscending = true
  var scroll: Double = 0
  var zoom: Int64?
}

struct InvViewV2: Codable, Equatable, Sendable {
  var selected: Int64?
  var filter = ""
  var sortAscending = true
  var scroll: Double = 0
  var zoom: Int64?
}

struct InvViewV3: Codable, Equatable, Sendable {
  var selected: Int64?
  var filter = ""
  var sortAscending = true
  var zoom: Int64?
}

// MARK: - Shared pieces of the reducers

extension OrderedIDList where ID == Int64 {
  mutating func moveClamped(_ id: Int64, to index: Int) {
    if contains(id) { _ = move(id, to: Swift.min(index, count - 1)) }
  }
}

// MARK: - v1

struct InventoryV1: InventoryVersion {
  static let number = 1
  var items = EntityTable<InvItemV1>()
  var bins = EntityTable<InvBin>()
  var suppliers = EntityTable<InvSupplier>()
  var makers = EntityTable<InvMaker>()
  var shelf = OrderedIDList<Int64>()
  var binOrder = OrderedIDList<Int64>()
  var preferred = OrderedIDList<Int64>()
  var view = InvViewV1()
  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.items), .entities(\.bins), .entities(\.suppliers), .entities(\.makers),
      .list(\.shelf, named: "shelf", of: InvItemV1.self), .list(\.binOrder, named: "binOrder", of: InvBin.self),
      .list(\.preferred, named: "preferred", of: InvSupplier.self), .view(\.view))
  }
  var itemIDs: [Int64] { shelf.ids }
  var binIDs: [Int64] { binOrder.ids }
  var partyIDs: [Int64] { Array(suppliers.ids) + Array(makers.ids) }
  var final: Inventory.Final {
    var f = Inventory.Final()
    for i in items.values { f.items[i.id] = .init(name: i.name, cents: Inventory.cents(i.price), tag: i.tag) }
    for b in bins.values { f.bins[b.id] = b.label }
    for s in suppliers.values { f.parties[s.id] = .init(name: s.name, role: "supplier") }
    for m in makers.values { f.parties[m.id] = .init(name: m.name, role: "maker") }
    f.shelf = shelf.ids
    f.binOrder = binOrder.ids
    f.preferred = preferred.ids
    f.selected = view.selected
    f.filter = view.query
    f.ascending = view.sortAscending
    f.scroll = view.scroll
    f.zoom = view.zoom
    return f
  }
  mutating func apply(_ action: Inventory.Action) {
    switch action {
    case .addItem(let id, let name, let cents, let tag):
      guard items[id] == nil else { return }
      items.insert(InvItemV1(id: id, name: name, price: Inventory.priceText(cents), tag: tag))
      shelf.append(id)
    case .renameItem(let id, let name): items[id]?.name = name
    case .setPrice(let id, let cents): items[id]?.price = Inventory.priceText(cents)
    case .setTag(let id, let tag): items[id]?.tag = tag
    case .setQty, .setWeight, .setNote: break
    case .deleteItem(let id):
      guard items.remove(id: id) != nil else { return }
      _ = shelf.remove(id)
    case .moveItem(let id, let to): shelf.moveClamped(id, to: to)
    case .addBin(let id, let label):
      guard bins[id] == nil else { return }
      bins.insert(InvBin(id: id, label: label))
      binOrder.append(id)
    case .deleteBin(let id):
      guard bins.remove(id: id) != nil else { return }
      _ = binOrder.remove(id)
    case .moveBin(let id, let to): binOrder.moveClamped(id, to: to)
    case .addParty(let id, let name, let maker):
      guard suppliers[id] == nil, makers[id] == nil else { return }
      if maker {
        makers.insert(InvMaker(id: id, name: name))
      } else {
        suppliers.insert(InvSupplier(id: id, name: name))
      }
    case .renameParty(let id, let name):
      suppliers[id]?.name = name
      makers[id]?.name = name
    case .deleteParty(let id):
      _ = suppliers.remove(id: id)
      _ = makers.remove(id: id)
      _ = preferred.remove(id)
    case .prefer(let id): if suppliers[id] != nil, !preferred.contains(id) { preferred.append(id) }
    case .unprefer(let id): _ = preferred.remove(id)
    case .select(let id): view.selected = id
    case .filter(let text): view.query = text
    case .toggleSort: view.sortAscending.toggle()
    case .scroll(let offset): view.scroll = offset
    case .zoom(let zoom): view.zoom = zoom
    }
  }
}

// MARK: - v2

struct InventoryV2: InventoryVersion {
  static let number = 2
  var items = EntityTable<InvItemV2>()
  var bins = EntityTable<InvBin>()
  var suppliers = EntityTable<InvSupplier>()
  var makers = EntityTable<InvMaker>()
  var shelf = OrderedIDList<Int64>()
  var binOrder = OrderedIDList<Int64>()
  var preferred = OrderedIDList<Int64>()
  var view = InvViewV2()
  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.items), .entities(\.bins), .entities(\.suppliers), .entities(\.makers),
      .list(\.shelf, named: "shelf", of: InvItemV2.self), .list(\.binOrder, named: "binOrder", of: InvBin.self),
      .list(\.preferred, named: "preferred", of: InvSupplier.self), .view(\.view)
    ).migrations(Inventory.v2)
  }
  var itemIDs: [Int64] { shelf.ids }
  var binIDs: [Int64] { binOrder.ids }
  var partyIDs: [Int64] { Array(suppliers.ids) + Array(makers.ids) }
  var final: Inventory.Final {
    var f = Inventory.Final()
    for i in items.values {
      f.items[i.id] = .init(
        name: i.name, cents: Inventory.cents(i.price), tag: i.tag, qty: i.qty, weight: i.weight, note: i.note)
    }
    for b in bins.values { f.bins[b.id] = b.label }
    for s in suppliers.values { f.parties[s.id] = .init(name: s.name, role: "supplier") }
    for m in makers.values { f.parties[m.id] = .init(name: m.name, role: "maker") }
    f.shelf = shelf.ids
    f.binOrder = binOrder.ids
    f.preferred = preferred.ids
    f.selected = view.selected
    f.filter = view.filter
    f.ascending = view.sortAscending
    f.scroll = view.scroll
    f.zoom = view.zoom
    return f
  }
  mutating func apply(_ action: Inventory.Action) {
    switch action {
    case .addItem(let id, let name, let cents, let tag):
      guard items[id] == nil else { return }
      items.insert(
        InvItemV2(id: id, name: name, price: Inventory.priceText(cents), tag: tag, qty: 0, weight: 1.5, note: nil))
      shelf.append(id)
    case .renameItem(let id, let name): items[id]?.name = name
    case .setPrice(let id, let cents): items[id]?.price = Inventory.priceText(cents)
    case .setTag(let id, let tag): items[id]?.tag = tag
    case .setQty(let id, let qty): items[id]?.qty = qty
    case .setWeight(let id, let weight): items[id]?.weight = weight
    case .setNote(let id, let note): items[id]?.note = note
    case .deleteItem(let id):
      guard items.remove(id: id) != nil else { return }
      _ = shelf.remove(id)
    case .moveItem(let id, let to): shelf.moveClamped(id, to: to)
    case .addBin(let id, let label):
      guard bins[id] == nil else { return }
      bins.insert(InvBin(id: id, label: label))
      binOrder.append(id)
    case .deleteBin(let id):
      guard bins.remove(id: id) != nil else { return }
      _ = binOrder.remove(id)
    case .moveBin(let id, let to): binOrder.moveClamped(id, to: to)
    case .addParty(let id, let name, let maker):
      guard suppliers[id] == nil, makers[id] == nil else { return }
      if maker {
        makers.insert(InvMaker(id: id, name: name))
      } else {
        suppliers.insert(InvSupplier(id: id, name: name))
      }
    case .renameParty(let id, let name):
      suppliers[id]?.name = name
      makers[id]?.name = name
    case .deleteParty(let id):
      _ = suppliers.remove(id: id)
      _ = makers.remove(id: id)
      _ = preferred.remove(id)
    case .prefer(let id): if suppliers[id] != nil, !preferred.contains(id) { preferred.append(id) }
    case .unprefer(let id): _ = preferred.remove(id)
    case .select(let id): view.selected = id
    case .filter(let text): view.filter = text
    case .toggleSort: view.sortAscending.toggle()
    case .scroll(let offset): view.scroll = offset
    case .zoom(let zoom): view.zoom = zoom
    }
  }
}

// MARK: - v3 (and v4, which has no bins)

struct InventoryV3: InventoryVersion {
  static let number = 3
  var items = EntityTable<InvItemV3>()
  var bins = EntityTable<InvBin>()
  var suppliers = EntityTable<InvSupplier>()
  var makers = EntityTable<InvMaker>()
  var shelf = OrderedIDList<Int64>()
  var binOrder = OrderedIDList<Int64>()
  var preferred = OrderedIDList<Int64>()
  var view = InvViewV3()
  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.items), .entities(\.bins), .entities(\.suppliers), .entities(\.makers),
      .list(\.shelf, named: "shelf", of: InvItemV3.self), .list(\.binOrder, named: "binOrder", of: InvBin.self),
      .list(\.preferred, named: "preferred", of: InvSupplier.self), .view(\.view)
    ).migrations(Inventory.v2, Inventory.v3)
  }
  var itemIDs: [Int64] { shelf.ids }
  var binIDs: [Int64] { binOrder.ids }
  var partyIDs: [Int64] { Array(suppliers.ids) + Array(makers.ids) }
  var final: Inventory.Final {
    var f = Inventory.Final()
    for i in items.values {
      f.items[i.id] = .init(
        name: i.name, cents: Inventory.cents(i.price), tag: nil, qty: i.qty, weight: i.weight, note: i.note)
    }
    for b in bins.values { f.bins[b.id] = b.label }
    for s in suppliers.values { f.parties[s.id] = .init(name: s.name, role: "supplier") }
    for m in makers.values { f.parties[m.id] = .init(name: m.name, role: "maker") }
    f.shelf = shelf.ids
    f.binOrder = binOrder.ids
    f.preferred = preferred.ids
    f.selected = view.selected
    f.filter = view.filter
    f.ascending = view.sortAscending
    f.zoom = view.zoom
    return f
  }
  mutating func apply(_ action: Inventory.Action) {
    switch action {
    case .addItem(let id, let name, let cents, _):
      guard items[id] == nil else { return }
      items.insert(InvItemV3(id: id, name: name, price: Inventory.priceText(cents), qty: 0, weight: 1.5, note: nil))
      shelf.append(id)
    case .renameItem(let id, let name): items[id]?.name = name
    case .setPrice(let id, let cents): items[id]?.price = Inventory.priceText(cents)
    case .setTag, .scroll: break
    case .setQty(let id, let qty): items[id]?.qty = qty
    case .setWeight(let id, let weight): items[id]?.weight = weight
    case .setNote(let id, let note): items[id]?.note = note
    case .deleteItem(let id):
      guard items.remove(id: id) != nil else { return }
      _ = shelf.remove(id)
    case .moveItem(let id, let to): shelf.moveClamped(id, to: to)
    case .addBin(let id, let label):
      guard bins[id] == nil else { return }
      bins.insert(InvBin(id: id, label: label))
      binOrder.append(id)
    case .deleteBin(let id):
      guard bins.remove(id: id) != nil else { return }
      _ = binOrder.remove(id)
    case .moveBin(let id, let to): binOrder.moveClamped(id, to: to)
    case .addParty(let id, let name, let maker):
      guard suppliers[id] == nil, makers[id] == nil else { return }
      if maker {
        makers.insert(InvMaker(id: id, name: name))
      } else {
        suppliers.insert(InvSupplier(id: id, name: name))
      }
    case .renameParty(let id, let name):
      suppliers[id]?.name = name
      makers[id]?.name = name
    case .deleteParty(let id):
      _ = suppliers.remove(id: id)
      _ = makers.remove(id: id)
      _ = preferred.remove(id)
    case .prefer(let id): if suppliers[id] != nil, !preferred.contains(id) { preferred.append(id) }
    case .unprefer(let id): _ = preferred.remove(id)
    case .select(let id): view.selected = id
    case .filter(let text): view.filter = text
    case .toggleSort: view.sortAscending.toggle()
    case .zoom(let zoom): view.zoom = zoom
    }
  }
}

struct InventoryV4: InventoryVersion {
  static let number = 4
  var items = EntityTable<InvItemV3>()
  var suppliers = EntityTable<InvSupplier>()
  var makers = EntityTable<InvMaker>()
  var shelf = OrderedIDList<Int64>()
  var preferred = OrderedIDList<Int64>()
  var view = InvViewV3()
  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.items), .entities(\.suppliers), .entities(\.makers),
      .list(\.shelf, named: "shelf", of: InvItemV3.self),
      .list(\.preferred, named: "preferred", of: InvSupplier.self), .view(\.view)
    ).migrations(Inventory.v2, Inventory.v3, Inventory.v4)
  }
  var itemIDs: [Int64] { shelf.ids }
  var binIDs: [Int64] { [] }
  var partyIDs: [Int64] { Array(suppliers.ids) + Array(makers.ids) }
  var final: Inventory.Final {
    var f = Inventory.Final()
    for i in items.values {
      f.items[i.id] = .init(
        name: i.name, cents: Inventory.cents(i.price), tag: nil, qty: i.qty, weight: i.weight, note: i.note)
    }
    for s in suppliers.values { f.parties[s.id] = .init(name: s.name, role: "supplier") }
    for m in makers.values { f.parties[m.id] = .init(name: m.name, role: "maker") }
    f.shelf = shelf.ids
    f.preferred = preferred.ids
    f.selected = view.selected
    f.filter = view.filter
    f.ascending = view.sortAscending
    f.zoom = view.zoom
    return f
  }
  mutating func apply(_ action: Inventory.Action) {
    switch action {
    case .addItem(let id, let name, let cents, _):
      guard items[id] == nil else { return }
      items.insert(InvItemV3(id: id, name: name, price: Inventory.priceText(cents), qty: 0, weight: 1.5, note: nil))
      shelf.append(id)
    case .renameItem(let id, let name): items[id]?.name = name
    case .setPrice(let id, let cents): items[id]?.price = Inventory.priceText(cents)
    case .setTag, .scroll, .addBin, .deleteBin, .moveBin: break
    case .setQty(let id, let qty): items[id]?.qty = qty
    case .setWeight(let id, let weight): items[id]?.weight = weight
    case .setNote(let id, let note): items[id]?.note = note
    case .deleteItem(let id):
      guard items.remove(id: id) != nil else { return }
      _ = shelf.remove(id)
    case .moveItem(let id, let to): shelf.moveClamped(id, to: to)
    case .addParty(let id, let name, let maker):
      guard suppliers[id] == nil, makers[id] == nil else { return }
      if maker {
        makers.insert(InvMaker(id: id, name: name))
      } else {
        suppliers.insert(InvSupplier(id: id, name: name))
      }
    case .renameParty(let id, let name):
      suppliers[id]?.name = name
      makers[id]?.name = name
    case .deleteParty(let id):
      _ = suppliers.remove(id: id)
      _ = makers.remove(id: id)
      _ = preferred.remove(id)
    case .prefer(let id): if suppliers[id] != nil, !preferred.contains(id) { preferred.append(id) }
    case .unprefer(let id): _ = preferred.remove(id)
    case .select(let id): view.selected = id
    case .filter(let text): view.filter = text
    case .toggleSort: view.sortAscending.toggle()
    case .zoom(let zoom): view.zoom = zoom
    }
  }
}

// MARK: - v5 (parties), v6 (price cents), v7 (barrier)

struct InventoryV5: InventoryVersion {
  static let number = 5
  var items = EntityTable<InvItemV3>()
  var parties = EntityTable<InvParty>()
  var shelf = OrderedIDList<Int64>()
  var preferred = OrderedIDList<Int64>()
  var view = InvViewV3()
  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.items), .entities(\.parties),
      .list(\.shelf, named: "shelf", of: InvItemV3.self),
      .list(\.preferred, named: "preferred", of: InvParty.self), .view(\.view)
    ).migrations(Inventory.v2, Inventory.v3, Inventory.v4, Inventory.v5)
  }
  var itemIDs: [Int64] { shelf.ids }
  var binIDs: [Int64] { [] }
  var partyIDs: [Int64] { Array(parties.ids) }
  var final: Inventory.Final {
    var f = Inventory.Final()
    for i in items.values {
      f.items[i.id] = .init(
        name: i.name, cents: Inventory.cents(i.price), tag: nil, qty: i.qty, weight: i.weight, note: i.note)
    }
    for p in parties.values { f.parties[p.id] = .init(name: p.name, role: p.role) }
    f.shelf = shelf.ids
    f.preferred = preferred.ids
    f.selected = view.selected
    f.filter = view.filter
    f.ascending = view.sortAscending
    f.zoom = view.zoom
    return f
  }
  mutating func apply(_ action: Inventory.Action) {
    switch action {
    case .addItem(let id, let name, let cents, _):
      guard items[id] == nil else { return }
      items.insert(InvItemV3(id: id, name: name, price: Inventory.priceText(cents), qty: 0, weight: 1.5, note: nil))
      shelf.append(id)
    case .renameItem(let id, let name): items[id]?.name = name
    case .setPrice(let id, let cents): items[id]?.price = Inventory.priceText(cents)
    case .setTag, .scroll, .addBin, .deleteBin, .moveBin: break
    case .setQty(let id, let qty): items[id]?.qty = qty
    case .setWeight(let id, let weight): items[id]?.weight = weight
    case .setNote(let id, let note): items[id]?.note = note
    case .deleteItem(let id):
      guard items.remove(id: id) != nil else { return }
      _ = shelf.remove(id)
    case .moveItem(let id, let to): shelf.moveClamped(id, to: to)
    case .addParty(let id, let name, let maker):
      guard parties[id] == nil else { return }
      parties.insert(InvParty(id: id, name: name, role: maker ? "maker" : "supplier"))
    case .renameParty(let id, let name): parties[id]?.name = name
    case .deleteParty(let id):
      _ = parties.remove(id: id)
      _ = preferred.remove(id)
    case .prefer(let id): if parties[id] != nil, !preferred.contains(id) { preferred.append(id) }
    case .unprefer(let id): _ = preferred.remove(id)
    case .select(let id): view.selected = id
    case .filter(let text): view.filter = text
    case .toggleSort: view.sortAscending.toggle()
    case .zoom(let zoom): view.zoom = zoom
    }
  }
}

struct InventoryV6: InventoryVersion {
  static let number = 6
  var items = EntityTable<InvItemV6>()
  var parties = EntityTable<InvParty>()
  var shelf = OrderedIDList<Int64>()
  var preferred = OrderedIDList<Int64>()
  var view = InvViewV3()
  static var migrations: [SchemaMigration] {
    [Inventory.v2, Inventory.v3, Inventory.v4, Inventory.v5, Inventory.v6]
  }
  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.items), .entities(\.parties),
      .list(\.shelf, named: "shelf", of: InvItemV6.self),
      .list(\.preferred, named: "preferred", of: InvParty.self), .view(\.view)
    ).migrations(migrations)
  }
  var itemIDs: [Int64] { shelf.ids }
  var binIDs: [Int64] { [] }
  var partyIDs: [Int64] { Array(parties.ids) }
  var final: Inventory.Final {
    var f = Inventory.Final()
    for i in items.values {
      f.items[i.id] = .init(name: i.name, cents: i.price, tag: nil, qty: i.qty, weight: i.weight, note: i.note)
    }
    for p in parties.values { f.parties[p.id] = .init(name: p.name, role: p.role) }
    f.shelf = shelf.ids
    f.preferred = preferred.ids
    f.selected = view.selected
    f.filter = view.filter
    f.ascending = view.sortAscending
    f.zoom = view.zoom
    return f
  }
  mutating func apply(_ action: Inventory.Action) {
    switch action {
    case .addItem(let id, let name, let cents, _):
      guard items[id] == nil else { return }
      items.insert(InvItemV6(id: id, name: name, price: cents, qty: 0, weight: 1.5, note: nil))
      shelf.append(id)
    case .renameItem(let id, let name): items[id]?.name = name
    case .setPrice(let id, let cents): items[id]?.price = cents
    case .setTag, .scroll, .addBin, .deleteBin, .moveBin: break
    case .setQty(let id, let qty): items[id]?.qty = qty
    case .setWeight(let id, let weight): items[id]?.weight = weight
    case .setNote(let id, let note): items[id]?.note = note
    case .deleteItem(let id):
      guard items.remove(id: id) != nil else { return }
      _ = shelf.remove(id)
    case .moveItem(let id, let to): shelf.moveClamped(id, to: to)
    case .addParty(let id, let name, let maker):
      guard parties[id] == nil else { return }
      parties.insert(InvParty(id: id, name: name, role: maker ? "maker" : "supplier"))
    case .renameParty(let id, let name): parties[id]?.name = name
    case .deleteParty(let id):
      _ = parties.remove(id: id)
      _ = preferred.remove(id)
    case .prefer(let id): if parties[id] != nil, !preferred.contains(id) { preferred.append(id) }
    case .unprefer(let id): _ = preferred.remove(id)
    case .select(let id): view.selected = id
    case .filter(let text): view.filter = text
    case .toggleSort: view.sortAscending.toggle()
    case .zoom(let zoom): view.zoom = zoom
    }
  }
}

struct InventoryV7: InventoryVersion {
  static let number = 7
  var inner = InventoryV6()
  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.inner.items), .entities(\.inner.parties),
      .list(\.inner.shelf, named: "shelf", of: InvItemV6.self),
      .list(\.inner.preferred, named: "preferred", of: InvParty.self), .view(\.inner.view)
    ).migrations(InventoryV6.migrations + [Inventory.v7])
  }
  var itemIDs: [Int64] { inner.itemIDs }
  var binIDs: [Int64] { [] }
  var partyIDs: [Int64] { inner.partyIDs }
  var final: Inventory.Final { inner.final }
  mutating func apply(_ action: Inventory.Action) { inner.apply(action) }
}
