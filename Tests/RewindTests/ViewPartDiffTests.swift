import Foundation
import GRDB
import PropertyBased
import Testing

@testable import Rewind

// A view part finds what changed by comparing each property's JSON with the rows it wrote:
// whatever the properties do (an optional going to nil and back, one whose default is not
// nil, several at once), the file must hold exactly the value in memory, and each entry
// must change exactly the rows of the properties whose JSON changed, after undo, redo, jumps and
// failed sends as after sends.

private struct Dot: Entity {
  static let databaseTableName = "dots"
  var id: Int64
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in t.primaryKey("id", .integer) }
  }
}

private struct Screen: Codable, Equatable, Sendable {
  /// `nil` at first: no row until it is set.
  var selection: Int64?
  var search = ""
  /// Not `nil` at first: `nil` is written as `null`.
  var expanded: [Int]? = [1]
  var isEditing = false
  /// Encoded with `encodeIfPresent`, and no default: its row goes when it is `nil`.
  var note: String?
}

private struct DotsState: PersistentState, Equatable {
  var dots = EntityTable<Dot>()
  var screen = Screen()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.dots), .view(\.screen)) }
}

private enum DotsAction: LoggedAction {
  case set(Screen)
}

private struct DotsReducer: Reducer {
  func reduce(into state: inout DotsState, action: DotsAction) -> Effect<DotsAction> {
    if case .set(let screen) = action { state.screen = screen }
    return .none
  }
}

@MainActor
struct ViewPartDiffTests {
  @Test func theFileHoldsTheViewInMemoryAndEachEntryChangesTheRowsThatDiffer() async {
    await checkProperty(count: 60, input: Gen.int(in: 0...1_000_000).array(of: 1...30)) { codes in
      let directory = try TemporaryDirectory()
      let path = directory.path("dots.sqlite")
      let store = try Store(path: path, initialState: DotsState(), reducer: DotsReducer())
      let created = store.lastSeq
      for code in codes {
        var random = SplitMix64(seed: UInt64(code))
        // Undo, redo and jumps replace the rows from the log: the next send must diff against
        // them, not against what the part remembered of its own last write.
        switch random.next() % 8 {
        case 0: _ = try store.undo()
        case 1: _ = try store.redo()
        case 2: _ = try store.jump(to: created + Int64(random.next() % UInt64(store.lastSeq - created + 1)))
        default:
          var screen = store.state.screen
          // One to all properties at a time, each to one of a few values (so some repeat).
          if random.next() % 2 == 0 { screen.selection = random.next() % 3 == 0 ? nil : Int64(random.next() % 3) }
          if random.next() % 2 == 0 { screen.search = ["", "a", "ab"][Int(random.next() % 3)] }
          if random.next() % 2 == 0 { screen.expanded = random.next() % 3 == 0 ? nil : [Int(random.next() % 2)] }
          if random.next() % 2 == 0 { screen.isEditing.toggle() }
          if random.next() % 2 == 0 { screen.note = random.next() % 2 == 0 ? nil : "n\(random.next() % 2)" }
          let before = store.state.screen
          let changed = try Self.changedProperties(before, screen)
          if random.next() % 6 == 0, !changed.isEmpty {
            // A send whose commit fails leaves memory as the file holds it.
            try Self.failLogInserts(store, true)
            #expect(throws: RewindError.self) { try store.send(.set(screen)) }
            try Self.failLogInserts(store, false)
            #expect(store.state.screen == before)
            break
          }
          let seq = try store.send(.set(screen))
          #expect(store.state.screen == screen)
          // The rows the entry changed: the properties whose JSON changed, no other.
          if changed.isEmpty {
            #expect(seq == nil)
          } else {
            let logged = try store.repository.database.read { db in
              try String.fetchOne(db, sql: "SELECT changes FROM action_log WHERE seq = ?", arguments: [seq])
            }
            let paths = try RowChange.decodeJSON(try #require(logged)).compactMap {
              $0.table == "view_state" ? $0.key["path"].flatMap(String.fromDatabaseValue) : nil
            }
            #expect(paths == changed.sorted(), "\(before) → \(screen)")
          }
        }
        // The file reads back as memory.
        let reopened = try Store(path: path, initialState: DotsState(), reducer: DotsReducer(), readOnly: true)
        #expect(reopened.state.screen == store.state.screen)
      }
      // The before images are right too: the log checks out, and walking it back from the end
      // gives the first state.
      #expect(try RewindDatabase(path: path).verify().problems == [])
      _ = try store.jump(to: created)
      #expect(store.state.screen == Screen())
      let reopened = try Store(path: path, initialState: DotsState(), reducer: DotsReducer(), readOnly: true)
      #expect(reopened.state.screen == Screen())
    }
  }

  /// Makes every insert into the log on the store's connection fail, as a full disk would.
  private static func failLogInserts(_ store: Store<DotsState, DotsAction>, _ on: Bool) throws {
    try store.repository.database.writeWithoutTransaction { db in
      try db.execute(
        sql: on
          ? "CREATE TEMP TRIGGER fail BEFORE INSERT ON action_log BEGIN SELECT RAISE(ABORT, 'injected failure'); END"
          : "DROP TRIGGER IF EXISTS temp.fail")
    }
  }

  /// The properties of `after` whose JSON differs from `before`'s, a property that encodes to
  /// nothing counted as absent (with no default, its row goes).
  private static func changedProperties(_ before: Screen, _ after: Screen) throws -> [String] {
    func members(_ screen: Screen) throws -> [String: String] {
      var members = try #require(try CompactJSONEncoder.encodeMembers(screen))
      // `expanded` has a default that is not nil: nil is written as null.
      if members["expanded"] == nil { members["expanded"] = "null" }
      return members
    }
    let (old, new) = (try members(before), try members(after))
    return Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }
  }
}
