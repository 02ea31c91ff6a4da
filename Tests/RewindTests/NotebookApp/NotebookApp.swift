import Foundation
import GRDB
import Testing

@testable import Rewind

// A wiki / notebook. Pages are keyed by their slug (a String: non-ASCII, emoji, quotes, very
// long ones), blocks by a String id; a block belongs to one page (ON DELETE CASCADE) and each
// page orders its blocks (a keyed list family page → blocks). Tags are a many-to-many relation
// through a join entity (`pageTags`, cascading from both sides). A fixed list orders the
// sidebar. The view state: the open page, a selection of blocks, an edit mode with a payload,
// search text and a scroll offset per page. Typing is grouped; a `sync` from a server is not
// undoable.

struct NBPage: Entity {
  static let databaseTableName = "pages"
  var id: String
  var title: String
  var createdAt: Double = 0
  var pinned = false
  var wordGoal: Double?
  var revision: Int64 = 0

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("title", .text).notNull()
      t.column("createdAt", .double).notNull()
      t.column("pinned", .boolean).notNull()
      t.column("wordGoal", .double)
      t.column("revision", .integer).notNull()
    }
  }
}

struct NBBlock: Entity {
  static let databaseTableName = "blocks"
  var id: String
  var pageID: String
  var text: String
  var weight: Double = 0

  enum CodingKeys: String, CodingKey {
    case id, text, weight
    case pageID = "pageId"
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.belongsTo("page", inTable: NBPage.databaseTableName, onDelete: .cascade).notNull()
      t.column("text", .text).notNull()
      t.column("weight", .double).notNull()
    }
  }
}

struct NBTag: Entity {
  static let databaseTableName = "tags"
  var id: String
  var color: String?

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("color", .text)
    }
  }
}

/// The join row of the many-to-many relation pages ↔ tags.
struct NBPageTag: Entity {
  static let databaseTableName = "pageTags"
  var id: String
  var pageID: String
  var tagID: String

  enum CodingKeys: String, CodingKey {
    case id
    case pageID = "pageId"
    case tagID = "tagId"
  }

  static func key(page: String, tag: String) -> String { "\(page)\t\(tag)" }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.belongsTo("page", inTable: NBPage.databaseTableName, onDelete: .cascade).notNull()
      t.belongsTo("tag", inTable: NBTag.databaseTableName, onDelete: .cascade).notNull()
    }
  }
}

struct NBView: Codable, Equatable, Sendable {
  var openPage: String?
  var selection: [String] = []
  var mode: Mode = .reading
  var search = ""
  var scroll: [String: Double] = [:]

  enum Mode: Codable, Equatable, Sendable {
    case reading
    case editing(block: String)
    case renaming(page: String, draft: String)
  }
}

struct NotebookState: PersistentState, Equatable {
  var pages = EntityTable<NBPage>()
  var blocks = EntityTable<NBBlock>()
  var tags = EntityTable<NBTag>()
  var pageTags = EntityTable<NBPageTag>()
  var sidebar = OrderedIDList<String>()
  var pageBlocks = OrderedIDLists<String, String>()
  var view = NBView()

  mutating func repairViewState() {
    view.repair(pages: { pages.contains(id: $0) }, blocks: { blocks.contains(id: $0) })
  }

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.pages),
      .entities(\.blocks),
      .entities(\.tags),
      .entities(\.pageTags),
      .list(\.sidebar, named: "sidebar", of: NBPage.self),
      .lists(\.pageBlocks, named: "pageBlocks", of: NBBlock.self, ownedBy: NBPage.self),
      .view(\.view)
    )
  }
}

extension NBView {
  /// View state that names a missing page or block is cleared.
  mutating func repair(pages: (String) -> Bool, blocks: (String) -> Bool) {
    if let p = openPage, !pages(p) { openPage = nil }
    if selection.contains(where: { !blocks($0) }) { selection = selection.filter(blocks) }
    switch mode {
    case .editing(let b) where !blocks(b): mode = .reading
    case .renaming(let p, _) where !pages(p): mode = .reading
    default: break
    }
  }
}

struct NBSyncedBlock: Codable, Equatable, Sendable {
  var id: String
  var text: String
}

enum NBAction: LoggedAction, Equatable {
  case addPage(slug: String, title: String, createdAt: Double)
  case setTitle(slug: String, title: String)
  case typeTitle(slug: String, text: String)
  case deletePage(slug: String)
  case movePage(slug: String, to: Int)
  case setPinned(slug: String, Bool)
  case setGoal(slug: String, Double?)
  case addBlock(id: String, page: String, text: String, at: Int?)
  case setText(id: String, text: String)
  case typeText(id: String, text: String)
  case deleteBlock(id: String)
  case moveBlock(id: String, to: Int)
  case moveBlockToPage(id: String, page: String, at: Int)
  case setWeight(id: String, Double)
  /// Computed in the reducer: 1/0 is an infinity, 0/0 NaN.
  case computeWeight(id: String, numerator: Double, denominator: Double)
  case addTag(name: String, color: String?)
  case deleteTag(name: String)
  case tag(page: String, tag: String)
  case untag(page: String, tag: String)
  // View state only.
  case open(String?)
  case select([String])
  case setMode(NBView.Mode)
  case search(String)
  case scroll(page: String, Double)
  /// Not undoable: what the server says.
  case syncRevision(slug: String, revision: Int64)
  case syncBlocks(page: String, [NBSyncedBlock])

  var undoGroup: String? {
    switch self {
    case .typeText(let id, _): "text-\(id)"
    case .typeTitle(let slug, _): "title-\(slug)"
    default: nil
    }
  }

  var isUndoable: Bool {
    switch self {
    case .syncRevision, .syncBlocks: false
    default: true
    }
  }
}

struct NotebookReducer: Reducer {
  func reduce(into state: inout NotebookState, action: NBAction) -> Effect<NBAction> {
    switch action {
    case .addPage(let slug, let title, let createdAt):
      guard !state.pages.contains(id: slug) else { break }
      state.pages.insert(NBPage(id: slug, title: title, createdAt: createdAt))
      state.sidebar.append(slug)
      state.view.openPage = slug
    case .setTitle(let slug, let title):
      state.pages[slug]?.title = title
    case .typeTitle(let slug, let text):
      state.pages[slug]?.title += text
    case .deletePage(let slug):
      state.pages.remove(id: slug)  // the engine cascades to blocks, page tags, lists
    case .movePage(let slug, let offset):
      guard state.sidebar.contains(slug) else { break }
      state.sidebar.move(slug, to: min(max(offset, 0), state.sidebar.count - 1))
    case .setPinned(let slug, let pinned):
      state.pages[slug]?.pinned = pinned
    case .setGoal(let slug, let goal):
      state.pages[slug]?.wordGoal = goal
    case .addBlock(let id, let page, let text, let at):
      guard state.pages.contains(id: page), !state.blocks.contains(id: id) else { break }
      state.blocks.insert(NBBlock(id: id, pageID: page, text: text))
      let count = state.pageBlocks[page].count
      state.pageBlocks[page].insert(id, at: min(max(at ?? count, 0), count))
    case .setText(let id, let text):
      state.blocks[id]?.text = text
    case .typeText(let id, let text):
      state.blocks[id]?.text += text
    case .deleteBlock(let id):
      state.blocks.remove(id: id)
    case .moveBlock(let id, let offset):
      guard let page = state.pageBlocks.owner(of: id) else { break }
      let count = state.pageBlocks[page].count
      state.pageBlocks[page].move(id, to: min(max(offset, 0), count - 1))
    case .moveBlockToPage(let id, let page, let at):
      guard state.blocks.contains(id: id), state.pages.contains(id: page) else { break }
      state.blocks[id]?.pageID = page
      let count = state.pageBlocks[page].count
      if state.pageBlocks.owner(of: id) == page {
        state.pageBlocks[page].move(id, to: min(max(at, 0), count - 1))
      } else {
        state.pageBlocks[page].insert(id, at: min(max(at, 0), count))
      }
    case .setWeight(let id, let w):
      state.blocks[id]?.weight = w
    case .computeWeight(let id, let n, let d):
      state.blocks[id]?.weight = n / d
    case .addTag(let name, let color):
      state.tags.insert(NBTag(id: name, color: color))
    case .deleteTag(let name):
      state.tags.remove(id: name)
    case .tag(let page, let tag):
      guard state.pages.contains(id: page), state.tags.contains(id: tag) else { break }
      let key = NBPageTag.key(page: page, tag: tag)
      state.pageTags.insert(NBPageTag(id: key, pageID: page, tagID: tag))
    case .untag(let page, let tag):
      state.pageTags.remove(id: NBPageTag.key(page: page, tag: tag))
    case .open(let slug):
      state.view.openPage = slug
    case .select(let ids):
      state.view.selection = ids
    case .setMode(let mode):
      state.view.mode = mode
    case .search(let text):
      state.view.search = text
    case .scroll(let page, let offset):
      state.view.scroll[page] = offset
    case .syncRevision(let slug, let revision):
      state.pages[slug]?.revision = revision
    case .syncBlocks(let page, let synced):
      guard state.pages.contains(id: page) else { break }
      for b in synced {
        if state.blocks.contains(id: b.id) {
          state.blocks[b.id]?.text = b.text
        } else {
          state.blocks.insert(NBBlock(id: b.id, pageID: page, text: b.text))
          state.pageBlocks[page].append(b.id)
        }
      }
    }
    // Deletes clear the view state that named what they took (blocks go with their page).
    let pages = state.pages
    let blocks = state.blocks
    state.view.repair(
      pages: { pages.contains(id: $0) },
      blocks: { id in blocks[id].map { pages.contains(id: $0.pageID) } ?? false })
    return .none
  }
}

typealias NotebookStore = Store<NotebookState, NBAction>

@MainActor
func openNotebook(_ path: String, readOnly: Bool = false) throws -> NotebookStore {
  try NotebookStore(path: path, initialState: NotebookState(), reducer: NotebookReducer(), readOnly: readOnly)
}

/// Hostile slugs: non-ASCII, emoji, quotes, SQL and JSON look-alikes, control characters.
let nbSlugCafe = "café-✨"
let nbSlugEmoji = "👩🏽‍💻🧪"
let nbSlugSQL = "x'); DROP TABLE pages; --"
let nbSlugJSON = #"{"id":1,"$real":"inf"}"#
let nbSlugQuote = #"O'Brien "quoted" \ back"#
let nbSlugControl = "tab\there\nnewline\u{1}\u{7F}"
let nbSlugLong = String(repeating: "long-slug-ü-", count: 2000)
let nbSlugEmpty = ""

/// A small notebook: three pages, blocks, two tags.
@MainActor
func seedNotebook(_ store: NotebookStore) throws {
  try store.send(.addPage(slug: nbSlugCafe, title: "Café notes", createdAt: 1))
  try store.send(.addPage(slug: nbSlugEmoji, title: "Lab 🧪", createdAt: 2))
  try store.send(.addPage(slug: nbSlugSQL, title: "Robert'); --", createdAt: 3))
  try store.send(.addBlock(id: "b1", page: nbSlugCafe, text: "first", at: nil))
  try store.send(.addBlock(id: "b2", page: nbSlugCafe, text: "second", at: nil))
  try store.send(.addBlock(id: "b3", page: nbSlugEmoji, text: "🧫 culture", at: nil))
  try store.send(.addBlock(id: "b4", page: nbSlugCafe, text: "zeroth", at: 0))
  try store.send(.addTag(name: "todo", color: "red"))
  try store.send(.addTag(name: "日本語", color: nil))
  try store.send(.tag(page: nbSlugCafe, tag: "todo"))
  try store.send(.tag(page: nbSlugEmoji, tag: "todo"))
  try store.send(.tag(page: nbSlugCafe, tag: "日本語"))
}

/// The state as plain values, for comparisons and readable failures.
struct NotebookPlain: Equatable, CustomStringConvertible {
  var pages: [String: NBPage]
  var blocks: [String: NBBlock]
  var tags: [String: NBTag]
  var pageTags: [String: NBPageTag]
  var sidebar: [String]
  var pageBlocks: [String: [String]]
  var view: NBView

  init(_ s: NotebookState) {
    pages = Dictionary(uniqueKeysWithValues: s.pages.values.map { ($0.id, $0) })
    blocks = Dictionary(uniqueKeysWithValues: s.blocks.values.map { ($0.id, $0) })
    tags = Dictionary(uniqueKeysWithValues: s.tags.values.map { ($0.id, $0) })
    pageTags = Dictionary(uniqueKeysWithValues: s.pageTags.values.map { ($0.id, $0) })
    sidebar = s.sidebar.ids
    pageBlocks = Dictionary(
      uniqueKeysWithValues: s.pageBlocks.ownersWithLists.map { ($0, s.pageBlocks[$0].ids) })
    view = s.view
  }

  init(
    pages: [String: NBPage] = [:], blocks: [String: NBBlock] = [:], tags: [String: NBTag] = [:],
    pageTags: [String: NBPageTag] = [:], sidebar: [String] = [], pageBlocks: [String: [String]] = [:],
    view: NBView = NBView()
  ) {
    self.pages = pages
    self.blocks = blocks
    self.tags = tags
    self.pageTags = pageTags
    self.sidebar = sidebar
    self.pageBlocks = pageBlocks
    self.view = view
  }

  var description: String {
    func short(_ s: String) -> String { s.count > 24 ? "\(s.prefix(20))…(\(s.count))" : s }
    let p = pages.values.sorted { $0.id < $1.id }.map {
      "\(short($0.id).debugDescription):'\(short($0.title))' pin=\($0.pinned) goal=\($0.wordGoal.map { "\($0)" } ?? "-") rev=\($0.revision)"
    }
    let b = blocks.values.sorted { $0.id < $1.id }.map {
      "\($0.id)@\(short($0.pageID).debugDescription):'\(short($0.text))' w=\($0.weight)"
    }
    return """
      pages: \(p)
      blocks: \(b)
      tags: \(tags.values.sorted { $0.id < $1.id }.map { "\($0.id):\($0.color ?? "-")" })
      pageTags: \(pageTags.keys.sorted().map(\.debugDescription))
      sidebar: \(sidebar.map { short($0).debugDescription })
      pageBlocks: \(pageBlocks.sorted { $0.key < $1.key }.map { "\(short($0.key).debugDescription): \($0.value)" })
      view: \(view)
      """
  }
}

@MainActor
func expectNotebookReopenMatches(
  _ store: NotebookStore, _ path: String, _ context: String = "",
  sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let memory = NotebookPlain(store.state)
  let readOnly = NotebookPlain(try openNotebook(path, readOnly: true).state)
  #expect(
    readOnly == memory, "read-only reopen differs \(context)\nmemory:\n\(memory)\nfile:\n\(readOnly)",
    sourceLocation: sourceLocation)
  let reopened = NotebookPlain(try openNotebook(path).state)
  #expect(
    reopened == memory, "reopen differs \(context)\nmemory:\n\(memory)\nfile:\n\(reopened)",
    sourceLocation: sourceLocation)
}
