import Foundation
import GRDB
import Testing

@testable import Rewind

// A model-based test of an app whose key column compares without case (`COLLATE NOCASE`):
// aisles keyed by name, and items that refer to an aisle (`ON DELETE SET NULL`) in any case
// SQLite's foreign key takes. A plain-Swift model says what each step does (an aisle whose
// name another holds in another case is refused, an item must name an aisle in some case,
// deleting an aisle clears the items that name it in any case); random sessions of adds,
// deletes, undo, redo and reopening compare the store, the file read again, and `verify`
// with it after every step.

struct FoldAisle: Entity {
  static let databaseTableName = "fold_aisle"
  var id: String
  var position: Int

  static func createTable(_ db: Database) throws {
    try db.execute(
      sql: "CREATE TABLE fold_aisle (id TEXT PRIMARY KEY COLLATE NOCASE NOT NULL, position INTEGER NOT NULL)")
  }
}

struct FoldItem: Entity {
  static let databaseTableName = "fold_item"
  var id: Int64
  var aisleId: String?

  static func createTable(_ db: Database) throws {
    try db.execute(
      sql: "CREATE TABLE fold_item (id INTEGER PRIMARY KEY, aisleId TEXT REFERENCES fold_aisle(id) ON DELETE SET NULL)")
  }
}

struct FoldState: PersistentState, Equatable {
  var aisles = EntityTable<FoldAisle>()
  var items = EntityTable<FoldItem>()

  static var schema: StateSchema<Self> { StateSchema(.entities(\.aisles), .entities(\.items)) }
}

enum FoldAction: LoggedAction, Equatable {
  case addAisle(String, position: Int)
  case addItem(Int64, aisle: String?)
  case deleteAisle(String)
}

struct FoldReducer: Reducer {
  func reduce(into state: inout FoldState, action: FoldAction) -> Effect<FoldAction> {
    switch action {
    case .addAisle(let id, let position): state.aisles.insert(FoldAisle(id: id, position: position))
    case .addItem(let id, let aisle): state.items.insert(FoldItem(id: id, aisleId: aisle))
    case .deleteAisle(let id): state.aisles.remove(id: id)
    }
    return .none
  }
}

/// What the app's state should be: aisles by name, items by id.
struct FoldModel: Equatable {
  var aisles: [String: Int] = [:]
  var items: [Int64: String?] = [:]

  /// SQLite's `NOCASE`: ASCII letters alone.
  static func folded(_ text: String) -> String {
    String(decoding: text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
  }

  func holds(_ name: String) -> Bool { aisles.keys.contains { Self.folded($0) == Self.folded(name) } }

  /// Applies `action`: `nil` when it is refused, otherwise whether it changed anything.
  mutating func apply(_ action: FoldAction) -> Bool? {
    switch action {
    case .addAisle(let id, let position):
      if aisles[id] != nil {
        guard aisles[id] != position else { return false }
        aisles[id] = position
        return true
      }
      guard !holds(id) else { return nil }
      aisles[id] = position
      return true
    case .addItem(let id, let aisle):
      if let aisle, !holds(aisle) { return nil }
      if items[id] == .some(aisle) { return false }
      items[id] = .some(aisle)
      return true
    case .deleteAisle(let id):
      guard aisles.removeValue(forKey: id) != nil else { return false }
      for (item, aisle) in items where aisle.map({ Self.folded($0) == Self.folded(id) }) == true {
        items[item] = .some(nil)
      }
      return true
    }
  }

  init() {}

  init(_ state: FoldState) {
    for aisle in state.aisles.values { aisles[aisle.id] = aisle.position }
    for item in state.items.values { items[item.id] = .some(item.aisleId) }
  }
}

@MainActor
@Suite struct FoldedKeysModelTests {
  static let count = ProcessInfo.processInfo.environment["REWIND_MODEL_COUNT"].flatMap(Int.init).map { $0 / 5 } ?? 20
  static let names = ["Dairy", "dairy", "DAIRY", "Bakery", "bakery", "Fruit", "fruit ", "Café", "CAFé", "café"]

  @Test func randomSessionsAgreeWithTheModel() throws {
    let base = UInt64.random(in: 0..<1_000_000)
    for session in 0..<UInt64(max(Self.count, 1)) {
      try run(seed: base + session)
    }
  }

  func run(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let directory = try TemporaryDirectory()
    let path = directory.path("fold.sqlite")
    func open() throws -> Store<FoldState, FoldAction> {
      try Store(path: path, initialState: FoldState(), reducer: FoldReducer())
    }
    var store = try open()
    var model = FoldModel()
    var undo: [FoldModel] = []
    var redo: [FoldModel] = []
    func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
    for step in 0..<40 {
      let context = "seed \(seed), step \(step)"
      switch random.next() % 10 {
      case 0...6:
        let action: FoldAction
        switch random.next() % 3 {
        case 0: action = .addAisle(pick(Self.names), position: Int(random.next() % 3))
        case 1: action = .addItem(Int64(random.next() % 6), aisle: random.next() % 4 == 0 ? nil : pick(Self.names))
        default:
          action = .deleteAisle(
            model.aisles.isEmpty || random.next() % 4 == 0 ? pick(Self.names) : pick(model.aisles.keys.sorted()))
        }
        var next = model
        let outcome = next.apply(action)
        do {
          try store.send(action)
          #expect(outcome != nil, "\(context): \(action) was committed, the model refuses it")
          if outcome == true {
            undo.append(model)
            redo = []
          }
          model = next
        } catch let error as RewindError {
          #expect(outcome == nil, "\(context): \(action) was refused: \(error)")
          #expect([.invalidValue, .relationViolation].contains(error.code), "\(context): \(error)")
        }
      case 7:
        let moved = try store.undo()
        #expect((moved != nil) == !undo.isEmpty, "\(context)")
        if let previous = undo.popLast() {
          redo.append(model)
          model = previous
        }
      case 8:
        let moved = try store.redo()
        #expect((moved != nil) == !redo.isEmpty, "\(context)")
        if let next = redo.popLast() {
          undo.append(model)
          model = next
        }
      default:
        store = try open()
      }
      #expect(FoldModel(store.state) == model, "\(context): the store")
      #expect(FoldModel(try open().state) == model, "\(context): the file")
      if step % 8 == 7 {
        #expect(try RewindDatabase(path: path, readOnly: true).verify().problems == [], "\(context)")
      }
    }
    #expect(try RewindDatabase(path: path, readOnly: true).verify().problems == [], "seed \(seed)")
  }
}
