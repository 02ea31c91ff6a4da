import Foundation
import GRDB
import TasksExample
import Testing

@testable import Rewind

// An entity may build its own row (`databaseRow()`) rather than go through GRDB's record
// encoding. The engine reads every row it writes back through `init(row:)`, the way a reload
// reads the table: a row that reads back otherwise is what memory then holds, and one that does
// not read back at all is refused, with nothing written.

/// A label whose row builder shouts its text, which `init(row:)` reads as written.
struct ShoutedLabel: Entity {
  static let databaseTableName = "labels"
  var id: Int64
  var text: String

  func databaseRow() -> [String: DatabaseValue] {
    ["id": id.databaseValue, "text": text.uppercased().databaseValue]
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("text", .text).notNull()
    }
  }
}

/// A label whose row builder forgets its text column.
struct ForgetfulLabel: Entity {
  static let databaseTableName = "labels"
  var id: Int64
  var text: String

  func databaseRow() -> [String: DatabaseValue] { ["id": id.databaseValue] }

  static func createTable(_ db: Database) throws { try ShoutedLabel.createTable(db) }
}

/// A label whose row builder writes its text as bytes no text reads from.
struct GarbledLabel: Entity {
  static let databaseTableName = "labels"
  var id: Int64
  var text: String

  func databaseRow() -> [String: DatabaseValue] { ["id": id.databaseValue, "text": Data([0xFF, 0xFE]).databaseValue] }

  static func createTable(_ db: Database) throws { try ShoutedLabel.createTable(db) }
}

/// A label whose row builder writes another key than its id.
struct MiskeyedLabel: Entity {
  static let databaseTableName = "labels"
  var id: Int64
  var text: String

  func databaseRow() -> [String: DatabaseValue] { ["id": (id + 100).databaseValue, "text": text.databaseValue] }

  static func createTable(_ db: Database) throws { try ShoutedLabel.createTable(db) }
}

/// A shouting label that claims its rows read back exactly, which they do not.
struct OverconfidentLabel: Entity {
  static let databaseTableName = "labels"
  static var databaseRowRoundTripsExactly: Bool { true }
  var id: Int64
  var text: String

  func databaseRow() -> [String: DatabaseValue] {
    ["id": id.databaseValue, "text": text.uppercased().databaseValue]
  }

  static func createTable(_ db: Database) throws { try ShoutedLabel.createTable(db) }
}

protocol TestLabel: Entity where ID == Int64 {
  init(id: Int64, text: String)
}
extension ShoutedLabel: TestLabel {}
extension ForgetfulLabel: TestLabel {}
extension GarbledLabel: TestLabel {}
extension MiskeyedLabel: TestLabel {}
extension OverconfidentLabel: TestLabel {}

struct LabelsState<Label: TestLabel>: PersistentState, Equatable {
  var labels = EntityTable<Label>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.labels)) }
}

enum LabelsAction: LoggedAction, Equatable {
  case add(id: Int64, text: String)
}

struct LabelsReducer<Label: TestLabel>: Reducer {
  func reduce(into state: inout LabelsState<Label>, action: LabelsAction) -> Effect<LabelsAction> {
    if case .add(let id, let text) = action { state.labels.insert(Label(id: id, text: text)) }
    return .none
  }
}

@MainActor
struct EntityRowTests {
  static func store<Label: TestLabel>(_ label: Label.Type, _ path: String) throws
    -> Store<LabelsState<Label>, LabelsAction>
  {
    try Store(path: path, initialState: LabelsState<Label>(), reducer: LabelsReducer<Label>())
  }

  @Test func theDefaultRowIsGRDBsEncodingOfTheRecord() throws {
    struct Plain: Entity {
      static let databaseTableName = "plain"
      var id: UUID
      var when: Date
      var tags: [String]
      static func createTable(_ db: Database) throws {}
    }
    let plain = Plain(id: UUID(), when: Date(timeIntervalSince1970: 1_700_000_000.25), tags: ["a", "b"])
    #expect(try plain.databaseRow() == (try plain.databaseDictionary))
    #expect(try plain.databaseRow()["id"] == plain.id.uuidString.databaseValue)  // Rewind's key form
  }

  @Test func memoryHoldsWhatTheRowReadsBackAs() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("labels.sqlite")
    let store = try Self.store(ShoutedLabel.self, path)
    try store.send(.add(id: 1, text: "quiet"))
    #expect(store.state.labels[1]?.text == "QUIET")
    #expect(try Self.store(ShoutedLabel.self, path).state == store.state)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  /// A change to an entity whose row comes out as it was (a value that reads back as the one
  /// stored, like `.some(nil)` and `nil` in an `Int??` column) changes nothing in the file: it
  /// is not logged, as an action that changes nothing is not, where it made an undo step that
  /// undid nothing. Memory holds what the row reads back as.
  @Test func aChangeWhoseRowComesOutUnchangedIsNotLogged() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("labels.sqlite")
    let store = try Self.store(ShoutedLabel.self, path)
    try store.send(.add(id: 1, text: "quiet"))
    let (before, lastSeq) = (try dump(path), store.lastSeq)
    #expect(try store.send(.add(id: 1, text: "Quiet")) == nil)
    #expect(store.lastSeq == lastSeq)
    #expect(store.state.labels[1]?.text == "QUIET")
    #expect(try dump(path) == before)
    // The one step on the stack is the add.
    try store.undo()
    #expect(store.state.labels.isEmpty)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  /// Text changed into its other Unicode form (`é` composed, then decomposed) is equal as
  /// Swift compares strings, and apart as SQLite stores them: the change is logged, so the
  /// table holds memory's bytes, and the next change's before-image is the table's row.
  /// (Unlogged, the file failed `verify` once the row changed again, which then refused
  /// compaction and rebuild-tables: helper-39.)
  @Test func textChangedIntoItsOtherUnicodeFormIsLogged() throws {
    let (composed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
    #expect(composed == decomposed)
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    try store.send(.add(title: composed))
    #expect(try store.send(.rename(id: 1, title: decomposed)) != nil)
    let stored = try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "SELECT title FROM tasks") }
    #expect(stored.map { Array($0.utf8) } == Array(decomposed.utf8))
    try store.send(.rename(id: 1, title: "x"))
    try store.undo()
    try store.undo()
    let undone = try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "SELECT title FROM tasks") }
    #expect(undone.map { Array($0.utf8) } == Array(composed.utf8))
    try store.send(.delete(id: 1))
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(report.isHealthy, "\(report.problems)")
    #expect(try RewindDatabase(path: path).compact(keep: 0).entriesRemoved > 0)
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
  }

  /// A row that leaves out a column of its table (which reads back without its text) is
  /// refused for the column it leaves out, the cause, before its read-back is tried.
  @Test func aRowThatDoesNotDecodeIsRefusedAndNothingIsWritten() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("labels.sqlite")
    let store = try Self.store(GarbledLabel.self, path)
    let before = try dump(path)
    let error = #expect(throws: RewindError.self) { try store.send(.add(id: 1, text: "lost")) }
    #expect(error?.code == .invalidValue)
    #expect(error?.message.contains("cannot be read back") == true, "\(error?.message ?? "")")
    #expect(store.state.labels.isEmpty)
    #expect(try dump(path) == before)
  }

  @Test func aRowThatDoesNotReadBackIsRefusedAndNothingIsWritten() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("labels.sqlite")
    let store = try Self.store(ForgetfulLabel.self, path)
    let before = try dump(path)
    let error = #expect(throws: RewindError.self) { try store.send(.add(id: 1, text: "lost")) }
    #expect(error?.code == .schemaMismatch)
    #expect(
      error?.message.contains("labels has the column text, which ForgetfulLabel does not write") == true,
      "\(error?.message ?? "")")
    #expect(store.state.labels.isEmpty)
    #expect(try dump(path) == before)
  }

  // Tests run debug builds, where the read-back an exact entity skips in release is checked.
  @Test func anEntityWhoseRowsDoNotReadBackAsItClaimsIsRefusedAndNothingIsWritten() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("labels.sqlite")
    let store = try Self.store(OverconfidentLabel.self, path)
    let before = try dump(path)
    let error = #expect(throws: RewindError.self) { try store.send(.add(id: 1, text: "quiet")) }
    #expect(error?.code == .invalidValue)
    #expect(
      error?.message.contains(
        #"OverconfidentLabel says its rows read back exactly (databaseRowRoundTripsExactly), but OverconfidentLabel 1 reads back from its row {"id":1,"text":"QUIET"} as another value"#
      ) == true, "\(error?.message ?? "")")
    #expect(store.state.labels.isEmpty)
    #expect(try dump(path) == before)
  }

  @Test func theExampleTaskReadsBackExactlyAsItClaims() throws {
    // The claim release builds rely on, over values a row could bend: escapes, Unicode in
    // both normalization forms, an empty string, Int64's extremes.
    for title in ["", "tab\tquote\"", "café", "cafe\u{301}", "🦆", String(repeating: "x", count: 1000)] {
      for id in [Int64.min, -1, 0, Int64.max] {
        for projectID in [nil, Int64.min, 7] {
          let task = TaskItem(id: id, title: title, isDone: id == 0, notes: title, projectID: projectID)
          let back = try TaskItem(row: Row(image: task.databaseRowImage()))
          #expect(back == task)
          #expect(back.databaseRowImage() == task.databaseRowImage())
        }
      }
    }
    #expect(TaskItem.databaseRowRoundTripsExactly)
  }

  @Test func aRowKeyedByAnotherIdIsRefused() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("labels.sqlite")
    let store = try Self.store(MiskeyedLabel.self, path)
    let before = try dump(path)
    let error = #expect(throws: RewindError.self) { try store.send(.add(id: 1, text: "one")) }
    #expect(error?.code == .invalidValue)
    #expect(error?.message.contains(#"writes its key as {"id":101}, which does not read back as its id"#) == true)
    #expect(store.state.labels.isEmpty)
    #expect(try dump(path) == before)
  }
}
