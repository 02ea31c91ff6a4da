import Foundation
import GRDB
import Testing

@testable import Rewind

// An entity that names its columns (`databaseColumnOrder`) is read by position when a store
// opens (`init(orderedRow:)`): the engine selects exactly those columns, in that order. A
// column the table lacks is refused by name; an order that does not match the initializer is
// refused in debug builds; a row that does not decode is named by its key.

/// A label of these tests: a row of `ShoutedLabel`'s table, read by position or not. Each
/// keeps its memberwise `init(id:text:)`: its own initializers are in extensions.
protocol LabelsTableLabel: TestLabel {}

extension LabelsTableLabel {
  static func createTable(_ db: Database) throws { try ShoutedLabel.createTable(db) }
}

/// A label read by position, its columns named in an order that is not the table's.
struct PositionalLabel: LabelsTableLabel {
  static let databaseTableName = "labels"
  nonisolated(unsafe) static var orderedDecodes = 0
  static var databaseColumnOrder: [String]? { ["text", "id"] }
  var id: Int64
  var text: String
}

extension PositionalLabel {
  init(orderedRow row: Row) throws {
    text = try row.decode(atIndex: 0)
    id = try row.decode(atIndex: 1)
    Self.orderedDecodes += 1
  }
}

/// A label whose column order does not match its initializer: it reads `id` where `text` is.
struct SwappedLabel: LabelsTableLabel {
  static let databaseTableName = "labels"
  static var databaseColumnOrder: [String]? { ["id", "text"] }
  var id: Int64
  var text: String
}

extension SwappedLabel {
  init(orderedRow row: Row) throws {
    text = try row.decode(atIndex: 0)
    id = try row.decode(atIndex: 1)
  }
}

/// A label whose order names a column the table does not have.
struct MisnamedLabel: LabelsTableLabel {
  static let databaseTableName = "labels"
  static var databaseColumnOrder: [String]? { ["id", "words"] }
  var id: Int64
  var text: String
}

/// A label whose order leaves out a column of its table.
struct ShortLabel: LabelsTableLabel {
  static let databaseTableName = "labels"
  static var databaseColumnOrder: [String]? { ["id"] }
  var id: Int64
  var text: String
}

/// A label whose order spells its columns as SQLite does not care to: in capitals.
struct ShoutedOrderLabel: LabelsTableLabel {
  static let databaseTableName = "labels"
  static var databaseColumnOrder: [String]? { ["TEXT", "ID"] }
  var id: Int64
  var text: String
}

extension ShoutedOrderLabel {
  init(orderedRow row: Row) throws {
    text = try row.decode(atIndex: 0)
    id = try row.decode(atIndex: 1)
  }
}

/// A label read by position whose `init(row:)` looks for a column the table does not have.
struct HalfReadLabel: LabelsTableLabel {
  static let databaseTableName = "labels"
  static var databaseColumnOrder: [String]? { ["id", "text"] }
  var id: Int64
  var text: String
}

extension HalfReadLabel {
  init(row: Row) throws {
    id = try row.decode(forColumn: "id")
    text = try row.decode(forColumn: "words")
  }

  init(orderedRow row: Row) throws {
    id = try row.decode(atIndex: 0)
    text = try row.decode(atIndex: 1)
  }
}

/// A label read by position whose text must be a date: a row whose text is not one does not
/// decode.
struct DatedLabel: LabelsTableLabel {
  static let databaseTableName = "labels"
  static var databaseColumnOrder: [String]? { ["id", "text"] }
  var id: Int64
  var text: String
}

extension DatedLabel {
  init(orderedRow row: Row) throws {
    id = try row.decode(atIndex: 0)
    let date: Date = try row.decode(atIndex: 1)
    text = "\(date)"
  }
}

@MainActor
@Suite(.serialized)
struct OrderedRowDecodingTests {
  func makeFile(_ path: String, _ texts: [Int64: String]) throws {
    let store = try EntityRowTests.store(PositionalLabel.self, path)
    for (id, text) in texts.sorted(by: { $0.key < $1.key }) { try store.send(.add(id: id, text: text)) }
  }

  @Test func anEntityThatNamesItsColumnsIsReadByPositionInThatOrder() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("labels.sqlite")
    let store = try EntityRowTests.store(PositionalLabel.self, path)
    for (id, text) in [(1, "one"), (2, "two"), (3, "three")] { try store.send(.add(id: Int64(id), text: text)) }
    let before = PositionalLabel.orderedDecodes
    let reopened = try EntityRowTests.store(PositionalLabel.self, path)
    #expect(reopened.state == store.state)
    #expect(PositionalLabel.orderedDecodes - before >= 3, "the open read the rows by position")
  }

  @Test func anOrderNamingAColumnTheTableLacksIsRefusedByName() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("labels.sqlite")
    try makeFile(path, [1: "one"])
    let before = try RewindDatabase(path: path).export()
    let error = try #require(throws: RewindError.self) { try EntityRowTests.store(MisnamedLabel.self, path) }
    #expect(error.code == .schemaMismatch)
    #expect(
      error.message.contains("MisnamedLabel.databaseColumnOrder names words, which labels does not have"),
      "\(error)")
    #expect(try RewindDatabase(path: path).export() == before)
  }

  /// A column the order leaves out would not be read: a lenient `init(row:)` would take its
  /// default, and the next change would write it over the stored value.
  @Test func anOrderLeavingOutAColumnIsRefusedByName() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("labels.sqlite")
    try makeFile(path, [1: "one"])
    let before = try RewindDatabase(path: path).export()
    let error = try #require(throws: RewindError.self) { try EntityRowTests.store(ShortLabel.self, path) }
    #expect(error.code == .schemaMismatch)
    #expect(error.message.contains("ShortLabel.databaseColumnOrder leaves out text of labels"), "\(error)")
    #expect(try RewindDatabase(path: path).export() == before)
  }

  @Test func columnNamesInAnOrderAreComparedAsSQLiteComparesThem() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("labels.sqlite")
    try makeFile(path, [1: "one", 2: "two"])
    let store = try EntityRowTests.store(ShoutedOrderLabel.self, path)
    #expect(store.state.labels[2]?.text == "two")
    #expect(store.state.labels.count == 2)
  }

  @Test func aRowThatDoesNotDecodeByPositionIsNamedByItsKey() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("labels.sqlite")
    try makeFile(path, [1: "2024-01-02 03:04:05", 2: "not a date", 3: "2024-01-02"])
    let before = try RewindDatabase(path: path).export()
    let error = try #require(throws: RewindError.self) { try EntityRowTests.store(DatedLabel.self, path) }
    #expect(error.code == .corruptData)
    #expect(
      error.message.contains(#"a row of labels does not decode as DatedLabel: the row keyed {"id":2}"#), "\(error)")
    #expect(try RewindDatabase(path: path).export() == before)
  }

  #if DEBUG
    @Test func debugBuildsRefuseAnOrderTheInitializerDoesNotReadIn() throws {
      let directory = try TemporaryDirectory()
      let path = directory.path("labels.sqlite")
      try makeFile(path, [1: "one", 2: "two"])
      let before = try RewindDatabase(path: path).export()
      let error = try #require(throws: RewindError.self) { try EntityRowTests.store(SwappedLabel.self, path) }
      #expect(error.code == .invalidValue)
      #expect(error.message.contains("SwappedLabel 1 reads as another value by position"), "\(error)")
      #expect(error.message.contains("databaseColumnOrder"), "\(error)")
      #expect(try RewindDatabase(path: path).export() == before)
    }

    /// Undo and other writers' changes read rows by name: an entity that reads only by
    /// position would fail there, later.
    @Test func debugBuildsRefuseAnEntityThatReadsByPositionButNotByName() throws {
      let directory = try TemporaryDirectory()
      let path = directory.path("labels.sqlite")
      try makeFile(path, [1: "one"])
      let before = try RewindDatabase(path: path).export()
      let error = try #require(throws: RewindError.self) { try EntityRowTests.store(HalfReadLabel.self, path) }
      #expect(error.code == .invalidValue)
      #expect(
        error.message.contains(#"a row of labels reads by position (init(orderedRow:)) but not by name (init(row:))"#),
        "\(error)")
      #expect(error.message.contains(#"{"id":1,"text":"one"}"#), "\(error)")
      #expect(try RewindDatabase(path: path).export() == before)
    }
  #endif
}
