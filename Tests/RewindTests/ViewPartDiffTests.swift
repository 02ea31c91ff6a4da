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

/// A view state's properties, for a test that runs on a view state walked through its
/// `encode(to:)` (``Screen``) and on one that lists its properties (``ListedScreen``).
private protocol ScreenValue: Codable, Equatable, Sendable {
  init()
  var selection: Int64? { get set }
  var search: String { get set }
  var expanded: [Int]? { get set }
  var isEditing: Bool { get set }
  var note: String? { get set }
  /// The properties the type lists, if it lists them: generic code such as `DotsState<S>`
  /// does not know whether `S` conforms to `ViewStateProperties`, so its schema passes them.
  static var listed: [ViewProperty<Self>]? { get }
}

extension ScreenValue {
  static var listed: [ViewProperty<Self>]? { nil }
}

private struct Screen: ScreenValue {
  /// `nil` at first: no row until it is set.
  var selection: Int64?
  var search = ""
  /// Not `nil` at first: `nil` is written as `null`.
  var expanded: [Int]? = [1]
  var isEditing = false
  /// Encoded with `encodeIfPresent`, and no default: its row goes when it is `nil`.
  var note: String?
}

/// The same properties, listed: the same rows must change, found without the walk.
private struct ListedScreen: ScreenValue, ViewStateProperties {
  var selection: Int64?
  var search = ""
  var expanded: [Int]? = [1]
  var isEditing = false
  var note: String?

  static let viewProperties: [ViewProperty<Self>] = [
    ViewProperty("selection", \.selection),
    ViewProperty("search", \.search),
    ViewProperty("expanded", \.expanded),
    ViewProperty("isEditing", \.isEditing),
    ViewProperty("note", \.note),
  ]
  static var listed: [ViewProperty<Self>]? { viewProperties }
}

private struct DotsState<S: ScreenValue>: PersistentState, Equatable {
  var dots = EntityTable<Dot>()
  var screen = S()
  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.dots), StateSchema(ViewPart(keyPath: \.screen, prefix: "", listed: S.listed)))
  }
}

private enum DotsAction<S: ScreenValue>: LoggedAction {
  case set(S)
}

private struct DotsReducer<S: ScreenValue>: Reducer {
  func reduce(into state: inout DotsState<S>, action: DotsAction<S>) -> Effect<DotsAction<S>> {
    if case .set(let screen) = action { state.screen = screen }
    return .none
  }
}

@MainActor
struct ViewPartDiffTests {
  @Test func theFileHoldsTheViewInMemoryAndEachEntryChangesTheRowsThatDiffer() async {
    await check(Screen.self)
  }

  @Test func aViewStateListingItsPropertiesChangesTheRowsAWalkWould() async {
    await check(ListedScreen.self)
  }

  private func check<S: ScreenValue>(_: S.Type) async {
    await checkProperty(count: 60, input: Gen.int(in: 0...1_000_000).array(of: 1...30)) { codes in
      let directory = try TemporaryDirectory()
      let path = directory.path("dots.sqlite")
      let store = try Store(path: path, initialState: DotsState<S>(), reducer: DotsReducer<S>())
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
        let reopened = try Store(path: path, initialState: DotsState<S>(), reducer: DotsReducer<S>(), readOnly: true)
        #expect(reopened.state.screen == store.state.screen)
      }
      // The before images are right too: the log checks out, and walking it back from the end
      // gives the first state.
      #expect(try RewindDatabase(path: path).verify().problems == [])
      _ = try store.jump(to: created)
      #expect(store.state.screen == S())
      let reopened = try Store(path: path, initialState: DotsState<S>(), reducer: DotsReducer<S>(), readOnly: true)
      #expect(reopened.state.screen == S())
    }
  }

  /// Makes every insert into the log on the store's connection fail, as a full disk would.
  private static func failLogInserts<S>(_ store: Store<DotsState<S>, DotsAction<S>>, _ on: Bool) throws {
    try store.repository.database.writeWithoutTransaction { db in
      try db.execute(
        sql: on
          ? "CREATE TEMP TRIGGER fail BEFORE INSERT ON action_log BEGIN SELECT RAISE(ABORT, 'injected failure'); END"
          : "DROP TRIGGER IF EXISTS temp.fail")
    }
  }

  /// The properties of `after` whose JSON differs from `before`'s, a property that encodes to
  /// nothing counted as absent (with no default, its row goes).
  private static func changedProperties<S: ScreenValue>(_ before: S, _ after: S) throws -> [String] {
    func members(_ screen: S) throws -> [String: String] {
      var members = try #require(try CompactJSONEncoder.encodeMembers(screen))
      // `expanded` has a default that is not nil: nil is written as null.
      if members["expanded"] == nil { members["expanded"] = "null" }
      return members
    }
    let (old, new) = (try members(before), try members(after))
    return Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }
  }
}
