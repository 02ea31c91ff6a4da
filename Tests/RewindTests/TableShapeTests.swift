import Foundation
import GRDB
import Testing

@testable import Rewind

// Tables whose shape made the log record other rows than the table held (found by a new
// app's tests, a recipe book): a column the entity does not write (a DEFAULT, a generated
// column), a column spelled in another case, a key column that compares without case. Each
// was committed, and left a file `verify` refused, undo could not read, or memory apart
// from the table. Each is now refused with its reason, nothing written, or carried out as
// SQLite does.

struct ShapeRecipe: Entity {
  static let databaseTableName = "recipe"
  var id: String
  var title: String

  nonisolated(unsafe) static var tableSQL = ""
  static func createTable(_ db: Database) throws { try db.execute(sql: tableSQL) }
}

struct ShapeAisle: Entity {
  static let databaseTableName = "aisle"
  var id: String
  var position: Int

  static func createTable(_ db: Database) throws {
    try db.execute(sql: "CREATE TABLE aisle (id TEXT PRIMARY KEY COLLATE NOCASE NOT NULL, position INTEGER NOT NULL)")
  }
}

struct ShapeItem: Entity {
  static let databaseTableName = "item"
  var id: Int64
  var aisleId: String?

  nonisolated(unsafe) static var onDelete = "SET NULL"
  nonisolated(unsafe) static var reference = "aisleId TEXT REFERENCES aisle(id)"
  static func createTable(_ db: Database) throws {
    try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, \(reference) ON DELETE \(onDelete))")
  }
}

struct ShopState: PersistentState, Equatable {
  var recipes = EntityTable<ShapeRecipe>()
  var aisles = EntityTable<ShapeAisle>()
  var items = EntityTable<ShapeItem>()

  static var schema: StateSchema<Self> { StateSchema(.entities(\.recipes), .entities(\.aisles), .entities(\.items)) }
}

enum ShopAction: LoggedAction, Equatable {
  case recipe(String)
  case aisle(String, Int)
  case aisles([String])
  case deleteAisle(String)
  case deleteRecipe(String)
  case item(Int64, aisle: String?)
  /// A sync from elsewhere: not undoable.
  case syncAisle(String, Int)

  var isUndoable: Bool {
    if case .syncAisle = self { return false }
    return true
  }
}

struct ShopReducer: Reducer {
  func reduce(into state: inout ShopState, action: ShopAction) -> Effect<ShopAction> {
    switch action {
    case .recipe(let id): state.recipes.insert(ShapeRecipe(id: id, title: "Soup"))
    case .aisle(let id, let position), .syncAisle(let id, let position):
      state.aisles.insert(ShapeAisle(id: id, position: position))
    case .aisles(let ids):
      for (position, id) in ids.enumerated() { state.aisles.insert(ShapeAisle(id: id, position: position)) }
    case .deleteAisle(let id): state.aisles.remove(id: id)
    case .deleteRecipe(let id): state.recipes.remove(id: id)
    case .item(let id, let aisle): state.items.insert(ShapeItem(id: id, aisleId: aisle))
    }
    return .none
  }
}

@MainActor
@Suite(.serialized) struct TableShapeTests {
  let directory: TemporaryDirectory
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("shop.sqlite")
    ShapeRecipe.tableSQL = "CREATE TABLE recipe (id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL)"
    ShapeItem.onDelete = "SET NULL"
    ShapeItem.reference = "aisleId TEXT REFERENCES aisle(id)"
  }

  func open() throws -> Store<ShopState, ShopAction> {
    try Store(path: path, initialState: ShopState(), reducer: ShopReducer())
  }

  func lastSeq() throws -> Int64? {
    try DatabaseQueue(path: path).read { try Int64.fetchOne($0, sql: "SELECT max(seq) FROM action_log") }
  }

  func expectHealthy() throws {
    #expect(try RewindDatabase(path: path, readOnly: true).verify().problems == [])
  }

  /// Refuses `action` with `code` and a message holding `words`; the file and memory are as
  /// they were.
  func expectRefused(
    _ action: ShopAction, by store: Store<ShopState, ShopAction>, _ code: RewindError.Code, naming words: [String]
  ) throws {
    let (state, seq) = (store.state, try lastSeq())
    do {
      try store.send(action)
      Issue.record("\(action) was committed")
    } catch let error as RewindError {
      #expect(error.code == code)
      for word in words { #expect(error.message.contains(word), "\(error.message) should name \(word)") }
    }
    #expect(store.state == state)
    #expect(try lastSeq() == seq)
    #expect(try open().state == store.state)
  }

  // MARK: - Columns the entity does not write

  @Test(arguments: [
    "addedAt TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP", "shout TEXT GENERATED ALWAYS AS (upper(title)) VIRTUAL",
    "length INTEGER GENERATED ALWAYS AS (length(title)) STORED", "note TEXT",
  ])
  func aColumnTheEntityDoesNotWriteIsRefusedAtItsFirstWrite(column: String) throws {
    ShapeRecipe.tableSQL = "CREATE TABLE recipe (id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL, \(column))"
    let store = try open()
    let name = String(column.prefix { $0 != " " })
    try expectRefused(.recipe("soup"), by: store, .schemaMismatch, naming: [name, "does not write", "Recipe"])
    try expectHealthy()
    #expect(try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM recipe") } == 0)
    // The rest of the state still takes changes.
    try store.send(.aisle("Dairy", 1))
    try expectHealthy()
  }

  // MARK: - Columns spelled in another case

  @Test func aColumnSpelledInAnotherCaseIsRefusedNamingBothSpellings() throws {
    ShapeRecipe.tableSQL = "CREATE TABLE recipe (id TEXT PRIMARY KEY NOT NULL, Title TEXT NOT NULL)"
    let store = try open()
    try expectRefused(.recipe("soup"), by: store, .schemaMismatch, naming: ["title", "Title", "RENAME COLUMN"])
    try expectHealthy()
  }

  @Test func aKeyColumnSpelledInAnotherCaseIsRefusedWhenTheStoreOpens() throws {
    ShapeRecipe.tableSQL = "CREATE TABLE recipe (ID TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL)"
    do {
      _ = try open()
      Issue.record("the store opened")
    } catch let error as RewindError {
      #expect(error.code == .schemaMismatch)
      #expect(error.message.contains("has no key column id (it has ID"))
    }
    // The refused creation left no table behind: with the table fixed, the file opens.
    ShapeRecipe.tableSQL = "CREATE TABLE recipe (id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL)"
    let store = try open()
    try store.send(.recipe("soup"))
    try expectHealthy()
  }

  @Test func aTableWhoseColumnsAreSpelledAsTheEntityWritesThemTakesItsRows() throws {
    let store = try open()
    try store.send(.recipe("soup"))
    try store.undo()
    try store.redo()
    try expectHealthy()
    #expect(try open().state.recipes["soup"]?.title == "Soup")
  }

  // MARK: - A key column that compares without case

  @Test func aKeyThatDiffersInCaseFromOneHeldIsRefused() throws {
    let store = try open()
    try store.send(.aisle("Dairy", 1))
    try expectRefused(.aisle("dairy", 2), by: store, .invalidValue, naming: [#""dairy""#, #""Dairy""#, "NOCASE"])
    try expectRefused(.aisle("DAIRY", 3), by: store, .invalidValue, naming: [#""DAIRY""#, #""Dairy""#])
    // Another key, and the same key once the other is gone, are taken.
    try store.send(.aisle("Bakery", 2))
    try store.send(.deleteAisle("Dairy"))
    try store.send(.aisle("dairy", 3))
    try expectHealthy()
    #expect(try open().state == store.state)
    #expect(store.state.aisles.ids.sorted() == ["Bakery", "dairy"])
  }

  @Test func twoKeysOneActionAddsThatDifferInCaseAreRefused() throws {
    let store = try open()
    try expectRefused(
      .aisles(["Dairy", "Bakery", "dAIRY"]), by: store, .invalidValue, naming: [#""dAIRY""#, #""Dairy""#])
    try store.send(.aisles(["Dairy", "Bakery"]))
    try expectHealthy()
  }

  @Test func anUndoThatWouldBringBackAKeyHeldInAnotherCaseConflicts() throws {
    let store = try open()
    try store.send(.aisle("Dairy", 1))
    try store.send(.deleteAisle("Dairy"))
    try store.send(.syncAisle("dairy", 2))  // not undoable: undo steps over it
    let (state, seq) = (store.state, try lastSeq())
    do {
      try store.undo()
      Issue.record("the undo was done")
    } catch let error as RewindError {
      #expect(error.code == .conflict)
      #expect(error.message.contains(#"add aisle {"id":"Dairy"}"#) && error.message.contains(#"{"id":"dairy"}"#))
    }
    #expect(store.state == state)
    #expect(try lastSeq() == seq)
    try expectHealthy()
    #expect(try open().state == store.state)
  }

  @Test(arguments: ["SET NULL", "CASCADE"])
  func aChildReferringToAKeyInAnotherCaseGoesWithItsParentAsSQLiteTakesIt(onDelete: String) throws {
    ShapeItem.onDelete = onDelete
    let store = try open()
    try store.send(.aisle("Dairy", 1))
    try store.send(.item(1, aisle: "DAIRY"))  // SQLite's foreign key compares with the parent's NOCASE
    try store.send(.item(2, aisle: "Dairy"))
    try store.send(.item(3, aisle: nil))
    try store.send(.deleteAisle("Dairy"))
    if onDelete == "SET NULL" {
      #expect(store.state.items[1]?.aisleId == nil)
      #expect(store.state.items[2]?.aisleId == nil)
    } else {
      #expect(store.state.items.ids.sorted() == [3])
    }
    try expectHealthy()
    #expect(try open().state == store.state)
    try store.undo()
    #expect(store.state.items[1]?.aisleId == "DAIRY")
    #expect(store.state.items[2]?.aisleId == "Dairy")
    try expectHealthy()
    #expect(try open().state == store.state)
  }

  @Test(arguments: [
    "CREATE TABLE recipe (id TEXT NOT NULL, title TEXT NOT NULL, PRIMARY KEY (id COLLATE NOCASE))",
    """
    CREATE TABLE recipe (id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL);
    CREATE UNIQUE INDEX recipe_folded ON recipe (id COLLATE NOCASE)
    """,
  ])
  func aCollationInThePrimaryKeyOrAUniqueIndexBesideItRefusesTheSecondKey(table: String) throws {
    ShapeRecipe.tableSQL = table
    let store = try open()
    try store.send(.recipe("soup"))
    try expectRefused(.recipe("Soup"), by: store, .invalidValue, naming: [#""Soup""#, #""soup""#, "NOCASE"])
    try expectHealthy()
  }

  @Test(arguments: ["SET NULL", "CASCADE"])
  func aChildColumnThatComparesWithoutCaseKeepsItsRowWhileItsOwnParentStays(onDelete: String) throws {
    // The parent's key compares bytes, so `DAIRY` is the child of `DAIRY` alone, whatever
    // the child column's own collation (SQLite's foreign key compares as the parent key does).
    ShapeItem.onDelete = onDelete
    ShapeItem.reference = "aisleId TEXT COLLATE NOCASE REFERENCES recipe(id)"
    let store = try open()
    try store.send(.recipe("Dairy"))
    try store.send(.recipe("DAIRY"))
    try store.send(.item(1, aisle: "DAIRY"))
    try store.send(.item(2, aisle: "Dairy"))
    try store.send(.deleteRecipe("Dairy"))
    #expect(store.state.items[1]?.aisleId == "DAIRY")
    #expect(onDelete == "CASCADE" ? store.state.items[2] == nil : store.state.items[2]?.aisleId == nil)
    try expectHealthy()
    #expect(try open().state == store.state)
  }

  @Test func aJumpOrAGroupedUndoThatWouldBringBackAKeyHeldInAnotherCaseIsRefused() throws {
    let store = try open()
    let added = try #require(try store.send(.aisle("Dairy", 1)))
    try store.send(.deleteAisle("Dairy"))
    try store.send(.aisle("dairy", 2))
    let (state, seq) = (store.state, try lastSeq())
    do {
      try store.jump(to: added)
      Issue.record("the jump was done")
    } catch let error as RewindError {
      #expect(error.message.contains(#""Dairy""#) && error.message.contains(#""dairy""#), "\(error.message)")
      #expect(error.message.contains("delete it in one step"), "\(error.message)")
    }
    #expect(store.state == state)
    #expect(try lastSeq() == seq)
    #expect(try open().state == store.state)
    try expectHealthy()
    // The tool's restore refuses alike.
    #expect(throws: RewindError.self) { try RewindDatabase(path: path).restore(to: added) }
    #expect(try lastSeq() == seq)
    try expectHealthy()
  }

  @Test func keyCollationsAreReadFromTheKeysUniqueIndex() throws {
    try DatabaseQueue().write { db in
      try db.execute(
        sql: """
          CREATE TABLE a (id TEXT PRIMARY KEY COLLATE NOCASE);
          CREATE TABLE b (id TEXT PRIMARY KEY COLLATE RTRIM) WITHOUT ROWID;
          CREATE TABLE c (id INTEGER PRIMARY KEY);
          CREATE TABLE d (id TEXT PRIMARY KEY, name TEXT COLLATE NOCASE UNIQUE);
          CREATE TABLE e (x TEXT, y TEXT COLLATE NOCASE, PRIMARY KEY (y, x));
          """)
      #expect(try KeyCollation.of(key: ["id"], in: "a", db) == [.nocase])
      #expect(try KeyCollation.of(key: ["ID"], in: "b", db) == [.rtrim])
      #expect(try KeyCollation.of(key: ["id"], in: "c", db) == [.binary])
      #expect(try KeyCollation.of(key: ["id"], in: "d", db) == [.binary])
      #expect(try KeyCollation.of(key: ["name"], in: "d", db) == [.nocase])
      #expect(try KeyCollation.of(key: ["x", "y"], in: "e", db) == [.binary, .nocase])
      #expect(try KeyCollation.folding(key: "id", in: "a", db) == .nocase)
      #expect(try KeyCollation.folding(key: "id", in: "c", db) == nil)
      #expect(try KeyCollation.folding(key: "id", in: "d", db) == nil)
      try db.execute(sql: "CREATE UNIQUE INDEX d_folded ON d (id COLLATE NOCASE)")
      #expect(try KeyCollation.of(key: ["id"], in: "d", db) == [.binary])  // what a foreign key compares with
      #expect(try KeyCollation.folding(key: "id", in: "d", db) == .nocase)
    }
    #expect(KeyCollation.nocase.equal("Dairy".databaseValue, "dAIRY".databaseValue))
    #expect(!KeyCollation.nocase.equal("Dairy".databaseValue, "Dairy ".databaseValue))
    #expect(!KeyCollation.nocase.equal("É".databaseValue, "é".databaseValue))  // ASCII letters alone
    #expect(KeyCollation.rtrim.equal("a  ".databaseValue, "a".databaseValue))
    #expect(!KeyCollation.rtrim.equal(" a".databaseValue, "a".databaseValue))
    #expect(!KeyCollation.binary.equal("a".databaseValue, "A".databaseValue))
    #expect(KeyCollation.binary.equal(1.databaseValue, 1.databaseValue))
    #expect(KeyCollation.nocase.equal(nil, nil))
    #expect(!KeyCollation.nocase.equal(nil, "a".databaseValue))
  }
}
