import Foundation
import GRDB

@testable import Rewind

/// A second app on the library, unlike the tasks example where it matters for history: sync
/// actions that undo must not revert (`isUndoable == false`), a view property whose default is
/// not `nil`, a modal that points at an entity, and a second list of the same entities.
struct Entry: Entity {
  static let databaseTableName = "entries"
  var id: Int64
  var title: String
  var body = ""
  var pinned = false

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("title", .text).notNull()
      t.column("body", .text).notNull()
      t.column("pinned", .boolean).notNull()
    }
  }
}

enum EntryModal: Codable, Equatable, Sendable {
  case edit(id: Int64)
  case about
}

struct JournalView: Codable, Equatable, Sendable {
  var selection: Int64?
  var search = ""
  var scroll = 0.0
  var modal: EntryModal?
  /// Not `nil` by default: setting it to `nil` must survive reopening.
  var sort: String? = "title"
}

struct JournalState: PersistentState, Equatable {
  var entries = EntityTable<Entry>()
  var all = OrderedIDList<Int64>()
  var pinned = OrderedIDList<Int64>()
  var view = JournalView()

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.entries),
      .list(\.all, named: "all", of: Entry.self),
      .list(\.pinned, named: "pinned", of: Entry.self),
      .view(\.view))
  }

  mutating func repairViewState() {
    if let id = view.selection, !entries.contains(id: id) { view.selection = nil }
    if case .edit(let id)? = view.modal, !entries.contains(id: id) { view.modal = nil }
  }
}

enum JournalAction: LoggedAction, Equatable {
  case add(title: String)
  case rename(id: Int64, title: String)
  /// Typing into a note's body: one undo step per note, however many keystrokes.
  case type(id: Int64, text: String)
  case delete(id: Int64)
  case move(id: Int64, to: Int)
  case pin(id: Int64)
  case select(id: Int64?)
  case search(String)
  case scroll(Double)
  case present(EntryModal?)
  case setSort(String?)
  /// Changes that arrive from elsewhere: logged, jumped over, never undone.
  case syncRename(id: Int64, title: String)
  case syncDelete(id: Int64)
  case syncPin(id: Int64)

  var undoGroup: String? {
    if case .type(let id, _) = self { return "typing-\(id)" }
    return nil
  }

  var isUndoable: Bool {
    switch self {
    case .syncRename, .syncDelete, .syncPin: false
    default: true
    }
  }
}

struct JournalReducer: Reducer {
  func reduce(into state: inout JournalState, action: JournalAction) -> Effect<JournalAction> {
    switch action {
    case .add(let title):
      let id = state.entries.nextID
      state.entries.insert(Entry(id: id, title: title))
      state.all.append(id)
    case .rename(let id, let title), .syncRename(let id, let title):
      state.entries[id]?.title = title
    case .type(let id, let text):
      state.entries[id]?.body += text
    case .delete(let id), .syncDelete(let id):
      guard state.entries.remove(id: id) != nil else { break }
      state.all.remove(id)
      state.pinned.remove(id)
    case .move(let id, let offset):
      state.all.move(id, to: offset)
    case .pin(let id), .syncPin(let id):
      guard let entry = state.entries[id] else { break }
      state.entries[id]?.pinned = !entry.pinned
      if entry.pinned { state.pinned.remove(id) } else { state.pinned.append(id) }
    case .select(let id):
      state.view.selection = id.flatMap { state.entries.contains(id: $0) ? $0 : nil }
    case .search(let text):
      state.view.search = text
    case .scroll(let offset):
      state.view.scroll = offset
    case .present(let modal):
      if case .edit(let id)? = modal, !state.entries.contains(id: id) { break }
      state.view.modal = modal
    case .setSort(let sort):
      state.view.sort = sort
    }
    return .none
  }
}

typealias JournalStore = Store<JournalState, JournalAction>

extension Store where State == JournalState, Action == JournalAction {
  static func journal(path: String) throws -> JournalStore {
    try JournalStore(path: path, initialState: JournalState(), reducer: JournalReducer())
  }
}

/// The state as the file holds it now, read the way opening reads it, without writing.
@MainActor
func fileState(_ path: String) throws -> JournalState {
  try JournalStore.journal(path: path).state
}
