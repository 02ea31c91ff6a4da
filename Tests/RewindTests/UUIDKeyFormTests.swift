import Foundation
import GRDB
import Testing

@testable import Rewind

// A UUID key must have one form in a file: the engine names rows in the log, in order lists and
// in deletes by the form the entity writes. Two ways an app ends up with two forms, each
// refused with the fix named rather than written.

/// A note as release 62fd705 stored it with no strategy declared: GRDB's 16-byte blob.
struct LegacyBlobNote: Entity {
  static let databaseTableName = "notes"
  var id: UUID
  var text: String

  static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .deferredToUUID }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .blob)
      t.column("text", .text).notNull()
    }
  }
}

/// The same app code now: no strategy declared, so Rewind's default, uppercase text.
struct DefaultFormNote: Entity {
  static let databaseTableName = "notes"
  var id: UUID
  var text: String

  static func createTable(_ db: Database) throws { try LegacyBlobNote.createTable(db) }
}

/// A note that writes its own row, as the tasks example does for speed: `container["id"] = id`
/// stores GRDB's blob whatever the strategy says.
struct HandEncodedNote: Entity {
  static let databaseTableName = "notes"
  var id: UUID
  var text: String

  init(id: UUID, text: String) {
    self.id = id
    self.text = text
  }

  init(row: Row) throws {
    id = try row.decode(forColumn: "id")
    text = try row.decode(forColumn: "text")
  }

  func encode(to container: inout PersistenceContainer) throws {
    container["id"] = id
    container["text"] = text
  }

  static func createTable(_ db: Database) throws { try LegacyBlobNote.createTable(db) }
}

/// The same, writing the key in the strategy's form.
struct HandEncodedTextNote: Entity {
  static let databaseTableName = "notes"
  var id: UUID
  var text: String

  init(id: UUID, text: String) {
    self.id = id
    self.text = text
  }

  init(row: Row) throws {
    id = try row.decode(forColumn: "id")
    text = try row.decode(forColumn: "text")
  }

  func encode(to container: inout PersistenceContainer) throws {
    container["id"] = id.uuidString
    container["text"] = text
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("text", .text).notNull()
    }
  }
}

protocol FormNote: Entity where ID == UUID {
  init(id: UUID, text: String)
  var text: String { get set }
}

extension LegacyBlobNote: FormNote {}
extension DefaultFormNote: FormNote {}
extension HandEncodedNote: FormNote {}
extension HandEncodedTextNote: FormNote {}

struct FormNotesState<Note: FormNote>: PersistentState, Equatable {
  var notes = EntityTable<Note>()
  var order = OrderedIDList<UUID>()

  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.notes), .list(\.order, named: "order", of: Note.self))
  }
}

enum FormNotesAction: LoggedAction, Equatable {
  case add(id: UUID, text: String)
  case edit(id: UUID, text: String)
  case delete(id: UUID)
}

struct FormNotesReducer<Note: FormNote>: Reducer {
  func reduce(into state: inout FormNotesState<Note>, action: FormNotesAction) -> Effect<FormNotesAction> {
    switch action {
    case .add(let id, let text):
      state.notes.insert(Note(id: id, text: text))
      state.order.append(id)
    case .edit(let id, let text):
      state.notes[id]?.text = text
    case .delete(let id):
      guard state.notes.remove(id: id) != nil else { break }
      state.order.remove(id)
    }
    return .none
  }
}

@MainActor
struct UUIDKeyFormTests {
  static let a = UUID(uuidString: "5C1D0E3F-7A2B-4C8D-9E6F-102132435465")!
  static let b = UUID(uuidString: "A0B1C2D3-E4F5-4A6B-8C7D-8E9FA0B1C2D3")!

  static func store<Note: FormNote>(_ note: Note.Type, _ path: String) throws
    -> Store<FormNotesState<Note>, FormNotesAction>
  {
    try Store(path: path, initialState: FormNotesState<Note>(), reducer: FormNotesReducer<Note>())
  }

  /// Edits, deletes, undoes and redoes, then checks the file: memory is what it holds, the log
  /// replays to its tables, and its export imports back to the byte.
  static func checkHistory<Note: FormNote>(_ note: Note.Type, _ path: String) throws {
    let store = try store(Note.self, path)
    try store.send(.edit(id: a, text: "a, edited"))
    try store.send(.delete(id: b))
    try store.undo()
    try store.undo()
    try store.redo()
    #expect(store.state.notes.values.map(\.text).sorted() == ["a, edited", "b"])
    #expect(try Self.store(Note.self, path).state == store.state)
    let count = try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM notes") }
    #expect(count == 2)
    let tool = try RewindDatabase(path: path)
    #expect(try tool.verify().problems == [])
    let json = try tool.export()
    try store.send(.delete(id: a))
    try tool.importState(json)
    #expect(try tool.export() == json)
  }

  /// A file written by 62fd705 holds its UUID keys as blobs (GRDB's default, which that
  /// release kept). The same entity code now writes uppercase text (Rewind's default): an edit
  /// would insert a second row, a delete would miss. Opening is refused, naming the strategy to
  /// declare; declaring it, everything works.
  @Test func aFileWhoseUUIDKeysAreBlobsIsRefusedByAnEntityThatWritesText() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("legacy.sqlite")
    do {
      let legacy = try Self.store(LegacyBlobNote.self, path)
      try legacy.send(.add(id: Self.a, text: "a"))
      try legacy.send(.add(id: Self.b, text: "b"))
    }
    let before = try dump(path)
    let error = #expect(throws: RewindError.self) { try Self.store(DefaultFormNote.self, path) }
    #expect(error?.code == .schemaMismatch)
    #expect(error?.message.contains("deferredToUUID") == true, "\(error?.message ?? "")")
    #expect(error?.message.contains("files of release 0.3 hold GRDB's default") == true, "\(error?.message ?? "")")
    #expect(try dump(path) == before, "the refused open wrote to the file")

    try Self.checkHistory(LegacyBlobNote.self, path)
  }

  /// An entity that encodes its own row may write its key in another form than its strategy
  /// (here GRDB's blob where the strategy says text): the lists and the log would name a row
  /// the table does not hold, so undo is refused and imports fail. The first write is refused,
  /// naming the fix; writing `id.uuidString` works.
  @Test func anEntityThatEncodesItsKeyInAnotherFormIsRefusedAtTheFirstWrite() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("hand.sqlite")
    let store = try Self.store(HandEncodedNote.self, path)
    let error = #expect(throws: RewindError.self) { try store.send(.add(id: Self.a, text: "a")) }
    #expect(error?.code == .invalidValue)
    #expect(error?.message.contains("databaseUUIDEncodingStrategy") == true, "\(error?.message ?? "")")
    #expect(store.state.notes.isEmpty)
    let count = try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM notes") }
    #expect(count == 0)

    let textPath = directory.path("text.sqlite")
    let text = try Self.store(HandEncodedTextNote.self, textPath)
    try text.send(.add(id: Self.a, text: "a"))
    try text.send(.add(id: Self.b, text: "b"))
    try Self.checkHistory(HandEncodedTextNote.self, textPath)
  }

  /// A key edited by hand into text that is no UUID at all is named as such: not as a UUID of
  /// another form, with a strategy to declare that would not help.
  @Test func aKeyThatIsNoUUIDIsNamedAsSuch() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("edited.sqlite")
    do {
      let store = try Self.store(DefaultFormNote.self, path)
      try store.send(.add(id: Self.a, text: "a"))
    }
    try DatabaseQueue(path: path).write { db in try db.execute(sql: "UPDATE notes SET id = 'not-a-uuid'") }
    let before = try dump(path)
    let error = #expect(throws: RewindError.self) { try Self.store(DefaultFormNote.self, path) }
    #expect(error?.code == .corruptData)
    #expect(
      error?.message.contains(#"a key that is not a UUID, {"id":"not-a-uuid"}"#) == true, "\(error?.message ?? "")")
    #expect(error?.message.contains("Strategy") == false)
    #expect(try dump(path) == before)
  }

  /// An import whose keys are in another form than the app's (an export edited by hand): the
  /// open that refuses it says to revert the import, not only to change the app, and undoing
  /// the import with the tool lets the app open the file as before.
  @Test func keysAnImportChangedPointToUndoingIt() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("imported.sqlite")
    let state: FormNotesState<DefaultFormNote>
    do {
      let store = try Self.store(DefaultFormNote.self, path)
      try store.send(.add(id: Self.a, text: "a"))
      state = store.state
    }
    let tool = try RewindDatabase(path: path)
    let export = try tool.export()
    try tool.importState(export.replacingOccurrences(of: Self.a.uuidString, with: Self.a.uuidString.lowercased()))
    let error = #expect(throws: RewindError.self) { try Self.store(DefaultFormNote.self, path) }
    #expect(error?.code == .schemaMismatch)
    #expect(error?.message.contains("`rewind undo` reverts an import") == true, "\(error?.message ?? "")")
    try RewindDatabase(path: path).undo()
    #expect(try Self.store(DefaultFormNote.self, path).state == state)
  }
}
