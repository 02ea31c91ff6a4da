import Foundation
import GRDB

@testable import Rewind

// A kanban app whose tables refer to each other in every way SQLite allows, declared in an
// order that puts children first: cards belong to a column (ON DELETE CASCADE) and may have a
// parent card (a self-reference, cascading), labels are optional on cards (SET NULL), and a
// pinned note refuses the deletion of its card (RESTRICT). Each column orders its cards in a
// keyed list family.

struct BoardCard: Entity {
  static let databaseTableName = "cards"
  var id: Int64
  var title: String
  var columnID: Int64
  var parentID: Int64?
  var labelID: Int64?

  enum CodingKeys: String, CodingKey {
    case id, title
    case columnID = "columnId"
    case parentID = "parentId"
    case labelID = "labelId"
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("title", .text).notNull()
      t.column("columnId", .integer).notNull().indexed()
        .references("columns", column: "id", onDelete: .cascade)
      t.column("parentId", .integer).indexed().references("cards", column: "id", onDelete: .cascade)
      t.column("labelId", .integer).indexed().references("labels", column: "id", onDelete: .setNull)
    }
  }
}

struct PinnedNote: Entity {
  static let databaseTableName = "pinnedNotes"
  var id: Int64
  var cardID: Int64
  var text: String

  enum CodingKeys: String, CodingKey {
    case id, text
    case cardID = "cardId"
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("cardId", .integer).notNull().indexed().references("cards", column: "id", onDelete: .restrict)
      t.column("text", .text).notNull()
    }
  }
}

struct BoardColumn: Entity {
  static let databaseTableName = "columns"
  var id: Int64
  var name: String

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
    }
  }
}

struct CardLabel: Entity {
  static let databaseTableName = "labels"
  var id: Int64
  var name: String

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
    }
  }
}

struct BoardState: PersistentState, Equatable {
  // Children before parents, on purpose.
  var notes = EntityTable<PinnedNote>()
  var cards = EntityTable<BoardCard>()
  var columns = EntityTable<BoardColumn>()
  var labels = EntityTable<CardLabel>()
  var columnCards = OrderedIDLists<Int64, Int64>()
  var starred = OrderedIDList<Int64>()
  var view = BoardView()

  struct BoardView: Codable, Equatable, Sendable {
    var selection: Int64?
  }

  mutating func repairViewState() {
    if let card = view.selection, !cards.contains(id: card) { view.selection = nil }
  }

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.notes),
      .entities(\.cards),
      .lists(\.columnCards, named: "columnCards", of: BoardCard.self, ownedBy: BoardColumn.self),
      .list(\.starred, named: "starred", of: BoardCard.self),
      .entities(\.columns),
      .entities(\.labels),
      .view(\.view))
  }
}

enum BoardAction: LoggedAction, Equatable {
  /// A column and its first card in one action: the card's row refers to the column's.
  case addColumn(id: Int64, name: String, firstCard: Int64?)
  case addCard(id: Int64, title: String, column: Int64, parent: Int64?, label: Int64?)
  case addLabel(id: Int64, name: String)
  case pin(note: Int64, card: Int64, text: String)
  case unpin(note: Int64)
  case moveCard(id: Int64, column: Int64, to: Int)
  case star(id: Int64)
  /// Removes only the named row: the engine carries out what its relations say.
  case deleteColumn(id: Int64)
  case deleteCard(id: Int64)
  case deleteLabel(id: Int64)
  /// Not undoable, as a sync from elsewhere.
  case syncAddCard(id: Int64, column: Int64)
  /// Bugs a reducer could have: a card filed in a column's list without moving it, an id
  /// starred that names no card, and a card selected.
  case fileInList(card: Int64, column: Int64)
  case starAnyway(id: Int64)
  case select(card: Int64?)
  /// Gives a card a label, or none.
  case labelCard(id: Int64, label: Int64?)
  /// Several actions as one entry (a paste, an import).
  indirect case all([BoardAction])

  var isUndoable: Bool {
    if case .syncAddCard = self { return false }
    return true
  }
}

struct BoardReducer: Reducer {
  func reduce(into state: inout BoardState, action: BoardAction) -> Effect<BoardAction> {
    switch action {
    case .addColumn(let id, let name, let firstCard):
      state.columns.insert(BoardColumn(id: id, name: name))
      if let card = firstCard {
        state.cards.insert(BoardCard(id: card, title: "First", columnID: id))
        state.columnCards[id].append(card)
      }
    case .addCard(let id, let title, let column, let parent, let label):
      state.cards.insert(BoardCard(id: id, title: title, columnID: column, parentID: parent, labelID: label))
      state.columnCards[column].append(id)
    case .syncAddCard(let id, let column):
      state.cards.insert(BoardCard(id: id, title: "Synced", columnID: column))
      state.columnCards[column].append(id)
    case .addLabel(let id, let name):
      state.labels.insert(CardLabel(id: id, name: name))
    case .pin(let note, let card, let text):
      state.notes.insert(PinnedNote(id: note, cardID: card, text: text))
    case .unpin(let note):
      state.notes.remove(id: note)
    case .moveCard(let id, let column, let offset):
      // Moving to another column: the card's row and its one list entry change.
      state.cards[id]?.columnID = column
      state.columnCards[column].insert(id, at: offset)
      state.columnCards[column].move(id, to: offset)
    case .star(let id):
      if !state.starred.remove(id) { state.starred.append(id) }
    case .deleteColumn(let id):
      state.columns.remove(id: id)
    case .deleteCard(let id):
      state.cards.remove(id: id)
    case .deleteLabel(let id):
      state.labels.remove(id: id)
    case .fileInList(let card, let column):
      state.columnCards[column].append(card)
    case .starAnyway(let id):
      state.starred.append(id)
    case .select(let card):
      state.view.selection = card
    case .labelCard(let id, let label):
      state.cards[id]?.labelID = label
    case .all(let actions):
      for action in actions { _ = reduce(into: &state, action: action) }
    }
    return .none
  }
}
