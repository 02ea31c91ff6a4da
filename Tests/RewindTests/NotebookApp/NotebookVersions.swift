import Foundation
import GRDB

@testable import Rewind

// Version 2 of the notebook: blocks' `text` renamed `body`, pages gain an `icon`, the view's
// `search` renamed `query` (described). Version 3: a page's `pinned` and `wordGoal` move into a
// `pageSettings` table (a 1:1 relation keyed by the page's slug, cascading; a transform), and a
// new fixed list `favorites` of pages.

struct NBPageV2: Entity {
  static let databaseTableName = "pages"
  var id: String
  var title: String
  var createdAt: Double = 0
  var pinned = false
  var wordGoal: Double?
  var revision: Int64 = 0
  var icon: String?

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("title", .text).notNull()
      t.column("createdAt", .double).notNull()
      t.column("pinned", .boolean).notNull()
      t.column("wordGoal", .double)
      t.column("revision", .integer).notNull()
      t.column("icon", .text)
    }
  }
}

struct NBBlockV2: Entity {
  static let databaseTableName = "blocks"
  var id: String
  var pageID: String
  var body: String
  var weight: Double = 0

  enum CodingKeys: String, CodingKey {
    case id, body, weight
    case pageID = "pageId"
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.belongsTo("page", inTable: "pages", onDelete: .cascade).notNull()
      t.column("body", .text).notNull()
      t.column("weight", .double).notNull()
    }
  }
}

struct NBViewV2: Codable, Equatable, Sendable {
  var openPage: String?
  var selection: [String] = []
  var mode: NBView.Mode = .reading
  var query = ""
  var scroll: [String: Double] = [:]
}

let nbMigrationV2 = SchemaMigration(
  "2-body-icon",
  .renameColumn("text", to: "body", in: "blocks"),
  .addColumn("icon", to: "pages", .text, default: nil),
  .renameViewProperty("search", to: "query"))

struct NotebookStateV2: PersistentState, Equatable {
  var pages = EntityTable<NBPageV2>()
  var blocks = EntityTable<NBBlockV2>()
  var tags = EntityTable<NBTag>()
  var pageTags = EntityTable<NBPageTag>()
  var sidebar = OrderedIDList<String>()
  var pageBlocks = OrderedIDLists<String, String>()
  var view = NBViewV2()

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.pages),
      .entities(\.blocks),
      .entities(\.tags),
      .entities(\.pageTags),
      .list(\.sidebar, named: "sidebar", of: NBPageV2.self),
      .lists(\.pageBlocks, named: "pageBlocks", of: NBBlockV2.self, ownedBy: NBPageV2.self),
      .view(\.view)
    )
    .migrations(nbMigrationV2)
  }
}

enum NBActionV2: LoggedAction, Equatable {
  case setIcon(slug: String, icon: String?)
  case typeText(id: String, text: String)
  case setTitle(slug: String, title: String)
  case query(String)
  case setPinned(slug: String, Bool)

  var undoGroup: String? {
    if case .typeText(let id, _) = self { return "text-\(id)" }
    return nil
  }
}

struct NotebookReducerV2: Reducer {
  func reduce(into state: inout NotebookStateV2, action: NBActionV2) -> Effect<NBActionV2> {
    switch action {
    case .setIcon(let slug, let icon): state.pages[slug]?.icon = icon
    case .typeText(let id, let text): state.blocks[id]?.body += text
    case .setTitle(let slug, let title): state.pages[slug]?.title = title
    case .query(let q): state.view.query = q
    case .setPinned(let slug, let p): state.pages[slug]?.pinned = p
    }
    return .none
  }
}

typealias NotebookStoreV2 = Store<NotebookStateV2, NBActionV2>

@MainActor
func openNotebookV2(_ path: String) throws -> NotebookStoreV2 {
  try NotebookStoreV2(path: path, initialState: NotebookStateV2(), reducer: NotebookReducerV2())
}

// MARK: - Version 3

struct NBPageV3: Entity {
  static let databaseTableName = "pages"
  var id: String
  var title: String
  var createdAt: Double = 0
  var revision: Int64 = 0
  var icon: String?

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("title", .text).notNull()
      t.column("createdAt", .double).notNull()
      t.column("revision", .integer).notNull()
      t.column("icon", .text)
    }
  }
}

/// A page's settings, split out of `pages` in version 3: keyed by the page's slug.
struct NBPageSettings: Entity {
  static let databaseTableName = "pageSettings"
  var id: String
  var pinned = false
  var wordGoal: Double?

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text).references("pages", onDelete: .cascade)
      t.column("pinned", .boolean).notNull()
      t.column("wordGoal", .double)
    }
  }
}

let nbSettingsMigrate: @Sendable (Database) throws -> Void = { db in
  try NBPageSettings.createTable(db)
  try db.execute(sql: "INSERT INTO pageSettings (id, pinned, wordGoal) SELECT id, pinned, wordGoal FROM pages")
  try db.alter(table: "pages") { t in
    t.drop(column: "pinned")
    t.drop(column: "wordGoal")
  }
}

let nbSettingsRows: @Sendable (HistoryRow) throws -> [HistoryRow] = { row in
  guard row.table == "pages", let id = row["id"] else { return [row] }
  var page = row
  let pinned = page["pinned"] ?? false.databaseValue
  let goal = page["wordGoal"] ?? .null
  page["pinned"] = nil
  page["wordGoal"] = nil
  return [page, HistoryRow(table: "pageSettings", columns: ["id": id, "pinned": pinned, "wordGoal": goal])]
}

let nbMigrationV3 = SchemaMigration.transform("3-page-settings", migrate: nbSettingsMigrate, rows: nbSettingsRows)

struct NotebookStateV3: PersistentState, Equatable {
  var pages = EntityTable<NBPageV3>()
  var settings = EntityTable<NBPageSettings>()
  var blocks = EntityTable<NBBlockV2>()
  var tags = EntityTable<NBTag>()
  var pageTags = EntityTable<NBPageTag>()
  var sidebar = OrderedIDList<String>()
  var favorites = OrderedIDList<String>()
  var pageBlocks = OrderedIDLists<String, String>()
  var view = NBViewV2()

  mutating func repairViewState() {
    if let p = view.openPage, !pages.contains(id: p) { view.openPage = nil }
    if view.selection.contains(where: { !blocks.contains(id: $0) }) {
      view.selection = view.selection.filter { blocks.contains(id: $0) }
    }
  }

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.pages),
      .entities(\.settings),
      .entities(\.blocks),
      .entities(\.tags),
      .entities(\.pageTags),
      .list(\.sidebar, named: "sidebar", of: NBPageV3.self),
      .list(\.favorites, named: "favorites", of: NBPageV3.self),
      .lists(\.pageBlocks, named: "pageBlocks", of: NBBlockV2.self, ownedBy: NBPageV3.self),
      .view(\.view)
    )
    .migrations(nbMigrationV2, nbMigrationV3)
  }
}

enum NBActionV3: LoggedAction, Equatable {
  case addPage(slug: String, title: String)
  case deletePage(slug: String)
  case setPinned(slug: String, Bool)
  case setGoal(slug: String, Double?)
  case setIcon(slug: String, icon: String?)
  case typeText(id: String, text: String)
  case favorite(slug: String)
  case unfavorite(slug: String)
  case addBlock(id: String, page: String, body: String)
  case moveBlockToPage(id: String, page: String)

  var undoGroup: String? {
    if case .typeText(let id, _) = self { return "text-\(id)" }
    return nil
  }
}

struct NotebookReducerV3: Reducer {
  func reduce(into state: inout NotebookStateV3, action: NBActionV3) -> Effect<NBActionV3> {
    switch action {
    case .addPage(let slug, let title):
      state.pages.insert(NBPageV3(id: slug, title: title))
      state.settings.insert(NBPageSettings(id: slug))
      state.sidebar.append(slug)
    case .deletePage(let slug):
      state.pages.remove(id: slug)
    case .setPinned(let slug, let p): state.settings[slug]?.pinned = p
    case .setGoal(let slug, let g): state.settings[slug]?.wordGoal = g
    case .setIcon(let slug, let icon): state.pages[slug]?.icon = icon
    case .typeText(let id, let text): state.blocks[id]?.body += text
    case .favorite(let slug):
      if state.pages.contains(id: slug), !state.favorites.contains(slug) { state.favorites.append(slug) }
    case .unfavorite(let slug): state.favorites.remove(slug)
    case .addBlock(let id, let page, let body):
      state.blocks.insert(NBBlockV2(id: id, pageID: page, body: body))
      state.pageBlocks[page].append(id)
    case .moveBlockToPage(let id, let page):
      state.blocks[id]?.pageID = page
      state.pageBlocks[page].append(id)
    }
    return .none
  }
}

typealias NotebookStoreV3 = Store<NotebookStateV3, NBActionV3>

@MainActor
func openNotebookV3(_ path: String, readOnly: Bool = false) throws -> NotebookStoreV3 {
  try NotebookStoreV3(path: path, initialState: NotebookStateV3(), reducer: NotebookReducerV3(), readOnly: readOnly)
}
