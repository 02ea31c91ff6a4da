import Foundation
import GRDB
import Testing

@testable import Rewind

// An entity that gained a property in an app update that forgot the migration adding its
// column (found by helper-28's inbox app): a table with rows was refused as damaged data, and
// an empty one opened and then failed every write as a failed commit. Both are the schema's
// mismatch, naming the column, and the file is left as it was.

private struct NoteV1: Entity, Equatable {
  static let databaseTableName = "notes"
  var id: Int64
  var title: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("title", .text).notNull()
    }
  }
}

/// Version 2 of the note: a preview, with no migration that adds its column.
private struct NoteV2: Entity, Equatable {
  static let databaseTableName = "notes"
  var id: Int64
  var title: String
  var preview: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("title", .text).notNull()
      t.column("preview", .text).notNull()
    }
  }
}

/// Version 2 with an optional property instead: GRDB decodes a column the row lacks as `nil`
/// for it, so reading a row does not fail (found by helper-29's playlist app).
private struct NoteOptional: Entity, Equatable {
  static let databaseTableName = "notes"
  var id: Int64
  var title: String
  var pinnedAt: Double?
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("title", .text).notNull()
      t.column("pinnedAt", .double)
    }
  }
}

private struct NotesOptional: PersistentState, Equatable {
  var notes = EntityTable<NoteOptional>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.notes)) }
}

private struct NotesOptionalReducer: Reducer {
  func reduce(into state: inout NotesOptional, action: NoteAction) -> Effect<NoteAction> {
    if case .add(let id, let title) = action { state.notes.insert(NoteOptional(id: id, title: title, pinnedAt: 1.5)) }
    return .none
  }
}

private struct NotesV1: PersistentState, Equatable {
  var notes = EntityTable<NoteV1>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.notes)) }
}

private struct NotesV2: PersistentState, Equatable {
  var notes = EntityTable<NoteV2>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.notes)) }
}

private enum NoteAction: LoggedAction, Equatable {
  case add(id: Int64, title: String)
}

private struct NotesV1Reducer: Reducer {
  func reduce(into state: inout NotesV1, action: NoteAction) -> Effect<NoteAction> {
    if case .add(let id, let title) = action { state.notes.insert(NoteV1(id: id, title: title)) }
    return .none
  }
}

private struct NotesV2Reducer: Reducer {
  func reduce(into state: inout NotesV2, action: NoteAction) -> Effect<NoteAction> {
    if case .add(let id, let title) = action {
      state.notes.insert(NoteV2(id: id, title: title, preview: String(title.prefix(3))))
    }
    return .none
  }
}

@MainActor
struct ForgottenMigrationTests {
  let directory: TemporaryDirectory
  let path: String

  init() throws {
    directory = try TemporaryDirectory()
    path = directory.path("notes.sqlite")
  }

  fileprivate func openVersion2() throws -> Store<NotesV2, NoteAction> {
    try Store(path: path, initialState: NotesV2(), reducer: NotesV2Reducer())
  }

  func expectMissingColumn(_ error: RewindError?, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(error?.code == .schemaMismatch, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.message.contains("preview") == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
    #expect(error?.message.contains("migration") == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
  }

  @Test func aTableWithRowsIsRefusedOnOpenNamingTheColumn() throws {
    do {
      let store = try Store(path: path, initialState: NotesV1(), reducer: NotesV1Reducer())
      try store.send(.add(id: 1, title: "Groceries"))
    }
    let file = try dump(path)
    let error = #expect(throws: RewindError.self) { _ = try openVersion2() }
    expectMissingColumn(error)
    #expect(try dump(path) == file)
  }

  @Test func anEmptyTableRefusesTheFirstWriteNamingTheColumn() throws {
    _ = try Store(path: path, initialState: NotesV1(), reducer: NotesV1Reducer())
    let file = try dump(path)
    // An empty table decodes as any entity: nothing tells the missing column until a row is
    // written.
    let store = try openVersion2()
    let error = #expect(throws: RewindError.self) { try store.send(.add(id: 1, title: "Groceries")) }
    expectMissingColumn(error)
    #expect(store.state == NotesV2())
    #expect(try dump(path) == file)
  }

  /// An optional property's column is missing too, whether a migration was forgotten or the
  /// column was dropped from the file: refused on open, naming it, rather than read as `nil`
  /// and then failing every write of the table.
  @Test func aMissingColumnOfAnOptionalPropertyIsRefusedOnOpen() throws {
    do {
      let store = try Store(path: path, initialState: NotesV1(), reducer: NotesV1Reducer())
      try store.send(.add(id: 1, title: "Groceries"))
    }
    var file = try dump(path)
    let openOptional = { try Store(path: path, initialState: NotesOptional(), reducer: NotesOptionalReducer()) }
    var error = #expect(throws: RewindError.self) { _ = try openOptional() }
    #expect(error?.code == .schemaMismatch, "\(String(describing: error))")
    #expect(error?.message.contains("pinnedAt") == true, "\(error?.message ?? "")")
    #expect(error?.message.contains("migration") == true, "\(error?.message ?? "")")
    #expect(try dump(path) == file)

    // A file the optional version made, whose column was dropped behind its back.
    let other = directory.path("dropped.sqlite")
    do {
      let store = try Store(path: other, initialState: NotesOptional(), reducer: NotesOptionalReducer())
      try store.send(.add(id: 1, title: "Groceries"))
    }
    try DatabaseQueue(path: other).write { try $0.execute(sql: "ALTER TABLE notes DROP COLUMN pinnedAt") }
    file = try dump(other)
    error = #expect(throws: RewindError.self) {
      _ = try Store(path: other, initialState: NotesOptional(), reducer: NotesOptionalReducer())
    }
    #expect(error?.code == .schemaMismatch, "\(String(describing: error))")
    #expect(error?.message.contains("pinnedAt") == true, "\(error?.message ?? "")")
    #expect(try dump(other) == file)
  }
}

// A migration that ran but left the table unreadable as the app's entity (found by a ledger
// app: its migration renamed other columns and forgot the one its entity now reads): the
// migrations were committed before the state was read, so the file was left at the new app
// schema in a shape no version of the app could open, though the error said nothing was
// changed; a corrected migration under the same version never ran again. The state is now read
// inside the migrations' transaction, and a failure rolls them back.

/// Version 2, whose migration adds a column under the wrong name.
private struct NotesMistaken: PersistentState, Equatable {
  var notes = EntityTable<NoteV2>()
  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.notes))
      .migrations(SchemaMigration("2-preview", .addColumn("previw", to: "notes", .text, notNull: true, default: "")))
  }
}

/// Version 2, corrected.
private struct NotesCorrected: PersistentState, Equatable {
  var notes = EntityTable<NoteV2>()
  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.notes))
      .migrations(SchemaMigration("2-preview", .addColumn("preview", to: "notes", .text, notNull: true, default: "")))
  }
}

private struct NotesMigratingReducer<State: PersistentState>: Reducer {
  func reduce(into state: inout State, action: NoteAction) -> Effect<NoteAction> { .none }
}

@MainActor
struct MistakenMigrationTests {
  @Test func aMigrationThatLeavesTheStateUnreadableIsRolledBack() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("notes.sqlite")
    do {
      let store = try Store(path: path, initialState: NotesV1(), reducer: NotesV1Reducer())
      try store.send(.add(id: 1, title: "Groceries"))
    }
    let file = try dump(path)
    let error = #expect(throws: RewindError.self) {
      _ = try Store(path: path, initialState: NotesMistaken(), reducer: NotesMigratingReducer<NotesMistaken>())
    }
    #expect(error?.code == .schemaMismatch, "\(String(describing: error))")
    #expect(error?.message.contains("preview") == true, "\(String(describing: error))")
    #expect(error?.message.contains("nothing was changed") == true, "\(String(describing: error))")
    #expect(try dump(path) == file)
    // Version 1 still opens it, and the corrected version 2 migrates it.
    #expect(try Store(path: path, initialState: NotesV1(), reducer: NotesV1Reducer()).state.notes.count == 1)
    let store = try Store(path: path, initialState: NotesCorrected(), reducer: NotesMigratingReducer<NotesCorrected>())
    #expect(store.state.notes[1] == NoteV2(id: 1, title: "Groceries", preview: ""))
    _ = try expectHealthy(path)
  }
}
