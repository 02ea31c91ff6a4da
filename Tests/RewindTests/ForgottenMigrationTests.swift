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
}
