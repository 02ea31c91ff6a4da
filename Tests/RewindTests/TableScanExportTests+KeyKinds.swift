import Foundation
import GRDB
import Testing

@testable import Rewind

/// Exports read from the tables against exports built from an image, at every seq, on keys
/// other than integers: text ids (in a table of binary order and one whose key collates
/// NOCASE), UUIDs stored as blobs (`BlobCity`, the regression tests' city), a fixed list of
/// text ids and a keyed family owned by the blob-keyed table, with inserts anywhere, moves
/// within and between owners, deletes of rows and owners, undo and redo.
extension TableScanExportTests {
  @Test(arguments: 0..<4)
  func textAndBlobKeysExportAtEverySeqAsTheImageDoes(seed: Int) async throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("mix.sqlite")
    let store = try Store(path: path, initialState: MixState(), reducer: MixReducer())
    var random = SplitMix64(seed: UInt64(seed) &+ 7)
    let names = ["a", "B", "b", "\u{E9}", "Z", "0", "10", "9", "aa", "\u{DF}", "m", "x", "A", "\u{4E2D}"]
    // Distinct under NOCASE, in another order than the binary one.
    let tags = ["c", "a", "B", "d", "E", "f", "G"]
    let bins = (0..<4).map { UUID(uuidString: "0000000\($0)-0000-0000-0000-00000000000\($0)")! }
    for step in 0..<240 {
      let items = store.state.items.ids.sorted()
      let present = store.state.bins.ids.sorted()
      switch Int.random(in: 0..<13, using: &random) {
      case 0, 1: try store.send(.add(names.randomElement(using: &random)!, at: Int.random(in: 0..<20, using: &random)))
      case 2 where !items.isEmpty && step % 2 == 0: try store.send(.delete(items.randomElement(using: &random)!))
      case 3 where !items.isEmpty: try store.send(.note(items.randomElement(using: &random)!, "n\(step)"))
      case 4 where !items.isEmpty:
        try store.send(.move(items.randomElement(using: &random)!, to: Int.random(in: 0..<20, using: &random)))
      case 5: try store.send(.addBin(bins.randomElement(using: &random)!))
      case 6 where !present.isEmpty && step % 4 == 0: try store.send(.deleteBin(present.randomElement(using: &random)!))
      case 7 where !present.isEmpty && !items.isEmpty:
        try store.send(
          .put(
            items.randomElement(using: &random)!, in: present.randomElement(using: &random)!,
            at: Int.random(in: 0..<6, using: &random)))
      case 8 where !items.isEmpty: try store.send(.takeOut(items.randomElement(using: &random)!))
      case 9: try store.send(.tag(tags.randomElement(using: &random)!))
      case 10: try store.send(.untag(tags.randomElement(using: &random)!))
      case 11 where store.canUndo: try store.undo()
      default: if store.canRedo { try store.redo() }
      }
    }
    let database = try RewindDatabase(path: path, readOnly: true)
    let last = try database.position().lastSeq
    var scannedSeqs = 0
    for seq in 1...last {
      // Other tests on the main actor get their turn.
      await Task.yield()
      let (image, scanned) = try exports(database, at: seq, viewAt: seq)
      if let scanned {
        if let scanned { #expect(scanned == image, "seed \(seed): export at \(seq)") }
        scannedSeqs += 1
      }
      #expect(try database.export(at: seq) == image, "seed \(seed): export at \(seq)")
    }
    #expect(scannedSeqs > 4)
  }
}

private struct Item: Entity {
  static let databaseTableName = "items"
  var id: String
  var note: String

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("note", .text).notNull()
    }
  }
}

private struct Tag: Entity {
  static let databaseTableName = "tags"
  var id: String

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in t.primaryKey("id", .text).collate(.nocase) }
  }
}

private struct MixState: PersistentState, Equatable {
  var items = EntityTable<Item>()
  var tags = EntityTable<Tag>()
  var bins = EntityTable<BlobCity>()
  var order = OrderedIDList<String>()
  var byBin = OrderedIDLists<UUID, String>()

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.items), .entities(\.tags), .entities(\.bins),
      .list(\.order, named: "order", of: Item.self),
      .lists(\.byBin, named: "byBin", of: Item.self, ownedBy: BlobCity.self))
  }
}

private enum MixAction: LoggedAction, Equatable {
  case add(String, at: Int)
  case delete(String)
  case note(String, String)
  case move(String, to: Int)
  case addBin(UUID)
  case deleteBin(UUID)
  case put(String, in: UUID, at: Int)
  case takeOut(String)
  case tag(String)
  case untag(String)
}

private struct MixReducer: Reducer {
  func reduce(into state: inout MixState, action: MixAction) -> Effect<MixAction> {
    switch action {
    case .add(let id, let at):
      guard state.items[id] == nil else { return .none }
      state.items.insert(Item(id: id, note: ""))
      state.order.insert(id, at: min(at, state.order.count))
    case .delete(let id):
      guard state.items.remove(id: id) != nil else { return .none }
      state.order.remove(id)
      state.byBin.remove(id)
    case .note(let id, let note): state.items[id]?.note = note
    case .move(let id, let to): state.order.move(id, to: min(to, max(0, state.order.count - 1)))
    case .addBin(let id): state.bins.insert(BlobCity(id: id, name: "b"))
    case .deleteBin(let id):
      guard state.bins.remove(id: id) != nil else { return .none }
      state.byBin.removeList(of: id)
    case .put(let id, let bin, let at):
      guard state.items[id] != nil, state.bins[bin] != nil else { return .none }
      state.byBin[bin].insert(id, at: min(at, state.byBin[bin].count))
    case .takeOut(let id): state.byBin.remove(id)
    case .tag(let id): state.tags.insert(Tag(id: id))
    case .untag(let id): _ = state.tags.remove(id: id)
    }
    return .none
  }
}
