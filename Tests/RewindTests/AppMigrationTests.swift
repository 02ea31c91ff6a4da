import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// What opening a file of another version of the app does: refuses a newer one, refuses a
/// migration that would lose or bend history, keeps history readable behind a barrier, and
/// shares the file with the app's own GRDB migrator.
@MainActor
struct AppMigrationTests {
  typealias ContactsStore<State: ContactsVersion> = Store<State, Contacts.Action>

  func open<State: ContactsVersion>(_ type: State.Type, _ path: String) throws -> ContactsStore<State> {
    try Store(path: path, initialState: State(), reducer: ContactsReducer<State>())
  }

  /// A file written by version 3 of the contacts app, with some history.
  func version3File(in directory: TemporaryDirectory) throws -> String {
    let path = directory.path("contacts.sqlite")
    let v1 = try open(ContactsV1.self, path)
    try v1.send(.add(id: 1, name: "Ada", street: "1 Main St"))
    try v1.send(.add(id: 2, name: "Grace", street: "2 Elm St"))
    try v1.send(.search("a"))
    let v3 = try open(ContactsV3.self, path)
    try v3.send(.setPhone(id: 1, phone: "555-0100"))
    try v3.send(.rename(id: 2, name: "Grace Hopper"))
    return path
  }

  /// Everything the file holds, to check that a refused open changed nothing.
  func contents(_ path: String) throws -> String {
    try RewindDatabase(path: path, readOnly: true).export()
      + (try DatabaseQueue(path: path).read { db in
        try String.fetchAll(db, sql: "SELECT identifier || ':' || seq FROM rewind_app_migrations ORDER BY version")
          .joined(separator: ",")
          + "|" + String(try Int.fetchOne(db, sql: "SELECT max(seq) FROM action_log") ?? 0)
      })
  }

  @Test func aFileOfANewerAppIsRefusedAndTheToolStillReadsIt() throws {
    let directory = try TemporaryDirectory()
    let path = try version3File(in: directory)
    let before = try contents(path)
    for open in [{ _ = try self.open(ContactsV2.self, path) }, { _ = try self.open(ContactsV1.self, path) }] {
      do {
        try open()
        Issue.record("an older app opened a file of app schema version 3")
      } catch let error as RewindError {
        #expect(error.code == .newerAppSchema)
        #expect(error.message.contains("app schema version 3") && error.message.contains("update the app"))
      }
    }
    #expect(try contents(path) == before)
    let tool = try RewindDatabase(path: path, readOnly: true)
    #expect(try tool.verify().problems == [])
    #expect(try tool.export(at: 2).contains(#""fullName":"Ada""#))
  }

  @Test func aMigrationTheAppNamesDifferentlyIsRefused() throws {
    struct Renamed: ContactsVersion {
      var inner = ContactsV2()
      static var schema: StateSchema<Self> {
        StateSchema(
          .entities(\.inner.people), .list(\.inner.order, named: "everyone", of: PersonV2.self), .view(\.inner.view)
        )
        .migrations(
          SchemaMigration("2-telephone", .addColumn("phone", to: "people", .text, notNull: true, default: "")))
      }
      var final: Contacts.Final { inner.final }
      var ids: [Int64] { inner.ids }
      mutating func apply(_ action: Contacts.Action) { inner.apply(action) }
    }
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    _ = try open(ContactsV2.self, path)
    #expect {
      _ = try open(Renamed.self, path)
    } throws: { error in
      (error as? RewindError)?.code == .newerAppSchema
        && (error as? RewindError)?.message.contains("records app migration 2 as 2-phone") == true
    }
  }

  @Test func anOlderVersionStillOpenStopsWritingOnceANewerOneMigratedTheFile() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    let old = try open(ContactsV2.self, path)
    try old.send(.add(id: 1, name: "Ada", street: "1 Main St"))
    let new = try open(ContactsV3.self, path)
    do {
      try old.send(.rename(id: 1, name: "Ada Lovelace"))
      Issue.record("a store of app schema version 2 wrote to a file migrated to version 3")
    } catch let error as RewindError {
      #expect(error.code == .newerAppSchema)
      #expect(error.message.contains("by a newer version of the app while this one (version 2) had it open"))
    }
    try new.send(.rename(id: 1, name: "Ada Lovelace"))
    #expect(try RewindDatabase(path: path).verify().problems == [])
    #expect(try RewindDatabase(path: path).export().contains(#""fullName":"Ada Lovelace""#))
  }

  @Test func aTransformThatDisagreesWithItsMigrationCodeIsRefusedAndChangesNothing() throws {
    struct Careless: ContactsVersion {
      var inner = ContactsV4()
      static var schema: StateSchema<Self> {
        StateSchema(
          .entities(\.inner.people), .entities(\.inner.addresses),
          .list(\.inner.order, named: "everyone", of: PersonV4.self), .view(\.inner.view)
        )
        .migrations(
          Contacts.addPhone, Contacts.renameName,
          .transform(
            "4-addresses",
            migrate: { db in
              try Address.createTable(db)
              try db.execute(sql: "INSERT INTO addresses (id, street) SELECT id, upper(street) FROM people")
              try db.alter(table: "people") { $0.drop(column: "street") }
            },
            rows: { row in
              guard row.table == "people", let street = row["street"], let id = row["id"] else { return [row] }
              var person = row
              person["street"] = nil
              return [person, HistoryRow(table: "addresses", columns: ["id": id, "street": street])]
            }))
      }
      var final: Contacts.Final { inner.final }
      var ids: [Int64] { inner.ids }
      mutating func apply(_ action: Contacts.Action) { inner.apply(action) }
    }
    let directory = try TemporaryDirectory()
    let path = try version3File(in: directory)
    let before = try contents(path)
    do {
      _ = try open(Careless.self, path)
      Issue.record("a transform that disagrees with its migration code ran")
    } catch let error as RewindError {
      #expect(error.code == .migrationFailed)
      #expect(
        error.message.contains(
          #"app migration 4-addresses: its row transform and its migration code disagree on 2 rows: addresses {"id":1} is {"id":1,"street":"1 MAIN ST"} after the migration, the row transform gives {"id":1,"street":"1 Main St"}"#
        ))
      #expect(error.message.hasSuffix("nothing was changed"))
    }
    #expect(try contents(path) == before)
    // The right version then opens it.
    _ = try open(ContactsV4.self, path)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  @Test func aDescribedChangeOfSomethingThatIsNotThereIsRefusedAndChangesNothing() throws {
    struct Mistaken: ContactsVersion {
      var inner = ContactsV1()
      static var schema: StateSchema<Self> {
        StateSchema(
          .entities(\.inner.people), .list(\.inner.order, named: "everyone", of: PersonV1.self), .view(\.inner.view)
        )
        .migrations(
          SchemaMigration("2-nickname", .addColumn("nickname", to: "persons", .text, default: nil)),
        )
      }
      var final: Contacts.Final { inner.final }
      var ids: [Int64] { inner.ids }
      mutating func apply(_ action: Contacts.Action) { inner.apply(action) }
    }
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    try open(ContactsV1.self, path).send(.add(id: 1, name: "Ada", street: "1 Main St"))
    let before = try contents(path)
    #expect {
      _ = try open(Mistaken.self, path)
    } throws: { error in
      (error as? RewindError)?.code == .migrationFailed
        && (error as? RewindError)?.message
          == "app migration 2-nickname: persons is not an entity table of this file (it has people); nothing was changed"
    }
    #expect(try contents(path) == before)
  }

  // MARK: - Barriers

  /// Version 1 of the contacts app, then a version whose migration rewrites names with SQL
  /// it does not describe for history: a barrier.
  struct Shouting: ContactsVersion {
    var inner = ContactsV1()
    static var schema: StateSchema<Self> {
      StateSchema(
        .entities(\.inner.people), .list(\.inner.order, named: "everyone", of: PersonV1.self), .view(\.inner.view)
      )
      .migrations(.barrier("2-upper-case-names") { db in try db.execute(sql: "UPDATE people SET name = upper(name)") })
    }
    var final: Contacts.Final { inner.final }
    var ids: [Int64] { inner.ids }
    mutating func apply(_ action: Contacts.Action) { inner.apply(action) }
  }

  /// A barrier whose code deletes a person, and, if `tidy`, the person's list entry.
  struct Pruning<Tidy: TidyFlag>: ContactsVersion {
    var inner = ContactsV1()
    static var schema: StateSchema<Self> {
      let tidies = Tidy.isOn
      return StateSchema(
        .entities(\.inner.people), .list(\.inner.order, named: "everyone", of: PersonV1.self), .view(\.inner.view)
      )
      .migrations(
        .barrier("2-prune") { db in
          try db.execute(sql: "DELETE FROM people WHERE id = 2")
          if tidies { try db.execute(sql: "DELETE FROM list_entries WHERE list = 'everyone' AND id = 2") }
        })
    }
    var final: Contacts.Final { inner.final }
    var ids: [Int64] { inner.ids }
    mutating func apply(_ action: Contacts.Action) { inner.apply(action) }
  }
  protocol TidyFlag { static var isOn: Bool { get } }
  enum Tidy: TidyFlag { static let isOn = true }
  enum Untidy: TidyFlag { static let isOn = false }

  @Test func aMigrationWhoseCodeLeavesAListNamingADeletedRowIsRefusedByName() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    let v1 = try open(ContactsV1.self, path)
    try v1.send(.add(id: 1, name: "Ada", street: "1 Main St"))
    try v1.send(.add(id: 2, name: "Grace", street: "2 Elm St"))
    let before = try contents(path)
    #expect {
      _ = try open(Pruning<Untidy>.self, path)
    } throws: { error in
      (error as? RewindError)?.code == .migrationFailed
        && (error as? RewindError)?.message
          == "app migration 2-prune: its code leaves list_entries: list everyone names people 2, which does not exist; remove the rows' list entries in the migration too; nothing was changed"
    }
    #expect(try contents(path) == before)
    // The same migration, tidying the list, opens and verifies.
    let store = try open(Pruning<Tidy>.self, path)
    #expect(store.state.inner.ids == [1])
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  @Test func historyBeforeABarrierIsReadableButNeverReturnedTo() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    let v1 = try open(ContactsV1.self, path)
    try v1.send(.add(id: 1, name: "Ada", street: "1 Main St"))
    try v1.send(.add(id: 2, name: "Grace", street: "2 Elm St"))
    let oldSeq = v1.lastSeq
    let store = try open(Shouting.self, path)
    let barrier = store.lastSeq
    #expect(store.state.inner.people[1]?.name == "ADA")
    try store.send(.rename(id: 2, name: "GRACE HOPPER"))

    let database = try RewindDatabase(path: path)
    #expect(try database.verify().problems == [])
    // Readable in its old shape...
    #expect(try database.export(at: oldSeq).contains(#""name":"Grace""#))
    #expect(try database.log(LogQuery(kinds: ["migration"])).map(\.seq) == [barrier])
    // ... and after the barrier, exact.
    #expect(try database.export(at: barrier).contains(#""name":"GRACE""#))
    // Undo reaches the barrier and stops there, with a reason.
    #expect(try store.undo() != nil)
    #expect(store.state.inner.people[2]?.name == "GRACE")
    // Nothing is offered to undo (the steps before the barrier stay on the stack, refused):
    // the store, the tool's position (the timeline UI's Undo button) and `inspect` agree.
    #expect(!store.canUndo)
    #expect(try database.position().canUndo == false)
    #expect(try database.inspect().undoSteps == 0)
    #expect(try database.position().redoSteps.count == 1)
    for attempt in [{ _ = try store.undo() }, { _ = try database.undo() }] {
      #expect {
        try attempt()
      } throws: { error in
        (error as? RewindError)?.code == .historyBarrier
          && (error as? RewindError)?.message.contains("which history does not cross") == true
      }
    }
    for attempt in [
      { _ = try database.restore(to: oldSeq) }, { _ = try store.jump(to: oldSeq) },
      { _ = try database.restore(to: 1, timeline: .document) },
    ] {
      #expect(throws: RewindError.self) { try attempt() }
    }
    #expect(store.state.inner.people[2]?.name == "GRACE")
    #expect(try database.restore(to: barrier + 1) != nil)
    #expect(try database.verify().problems == [])
    let compacted = try database.compact(keep: 0)
    #expect(compacted.baseSeq > barrier)
    #expect(try database.verify().problems == [])
  }

  // MARK: - Next to GRDB's DatabaseMigrator

  /// The app's own table, managed by GRDB's migrator in the same file.
  static func appMigrator(upTo version: Int) -> DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1-settings") { db in
      try db.create(table: "app_settings") { t in
        t.primaryKey("key", .text)
        t.column("value", .text)
      }
    }
    if version >= 2 {
      migrator.registerMigration("v2-settings-updated") { db in
        try db.alter(table: "app_settings") { $0.add(column: "updated", .integer) }
      }
    }
    return migrator
  }

  @Test(arguments: [true, false])
  func anAppsOwnMigratorSharesTheFile(migratorFirst: Bool) throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    func runMigrator(upTo version: Int) throws {
      let queue = try DatabaseQueue(path: path)
      try Self.appMigrator(upTo: version).migrate(queue)
      try queue.write {
        try $0.execute(sql: "INSERT OR REPLACE INTO app_settings (key, value) VALUES ('theme', 'dark')")
      }
    }
    if migratorFirst { try runMigrator(upTo: 1) }
    do {
      let store = try TasksStore.tasks(path: path)
      try store.send(.add(title: "Buy milk"))
    }
    try runMigrator(upTo: 1)
    try runMigrator(upTo: 2)
    let store = try TasksStore.tasks(path: path)
    try store.send(.add(title: "Write report"))
    #expect(store.state.tasks.count == 2)
    #expect(try RewindDatabase(path: path).verify().problems == [])
    let (grdb, engine) = try DatabaseQueue(path: path).read { db in
      (
        try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier"),
        try String.fetchAll(db, sql: "SELECT identifier FROM rewind_engine_migrations ORDER BY identifier")
      )
    }
    #expect(grdb == ["v1-settings", "v2-settings-updated"])
    #expect(engine == EngineMigrations.embedded.map(\.identifier))
  }

  @Test func anAppsMigratorRunsOnAReleaseFileRewindUpgraded() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("release-0.1.sqlite")
    try FileManager.default.copyItem(
      atPath: ReleaseFixtureTests.fixtures.appendingPathComponent("release-0.1.sqlite").path, toPath: path)
    _ = try TasksStore.tasks(path: path)
    // Rewind took its identifiers out of grdb_migrations and dropped it: the app's migrator
    // finds a file with none of its migrations applied, as it should.
    let queue = try DatabaseQueue(path: path)
    #expect(try queue.read { try $0.tableExists("grdb_migrations") } == false)
    try Self.appMigrator(upTo: 2).migrate(queue)
    #expect(try queue.read { try $0.tableExists("app_settings") })
    let store = try TasksStore.tasks(path: path)
    try store.send(.add(title: "after both upgrades"))
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  @Test func aSharedFileWhoseEntityTableAlreadyHasRowsIsRefused() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let queue = try DatabaseQueue(path: path)
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      try Project.createTable(db)  // tasks refer to projects
      try TaskItem.createTable(db)
      try db.execute(sql: "INSERT INTO tasks (id, title, done, notes) VALUES (1, 'mine', 0, '')")
    }
    try migrator.migrate(queue)
    #expect {
      _ = try TasksStore.tasks(path: path)
    } throws: { error in
      (error as? RewindError)?.message.contains("table tasks exists already, with rows Rewind's log does not hold")
        == true
    }
    #expect(try queue.read { try $0.tableExists("rewind_meta") } == false)
  }

  // MARK: - View state across versions

  @Test func aViewPropertyAddedInANewVersionLoadsItsDefaultAndLogsNoPhantomRow() throws {
    struct ViewV1Plus: Codable, Equatable, Sendable {
      var selected: Int64?
      var query = ""
      var sortAscending = true
    }
    struct Sorted: ContactsVersion {
      var people = EntityTable<PersonV1>()
      var order = OrderedIDList<Int64>()
      var view = ViewV1Plus()
      static var schema: StateSchema<Self> {
        StateSchema(.entities(\.people), .list(\.order, named: "everyone", of: PersonV1.self), .view(\.view))
      }
      var final: Contacts.Final { Contacts.Final() }
      var ids: [Int64] { Array(order) }
      mutating func apply(_ action: Contacts.Action) {
        switch action {
        case .search(let text): view.query = text
        case .select(let id): view.sortAscending = id == nil
        default: break
        }
      }
    }
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    let v1 = try open(ContactsV1.self, path)
    try v1.send(.search("a"))
    let store = try open(Sorted.self, path)
    #expect(store.state.view.sortAscending == true && store.state.view.query == "a")
    // A change of another property logs that property only: no row for the default.
    let seq = try #require(try store.send(.search("b")))
    let changes = try RowChange.decodeJSON(try RewindDatabase(path: path).entry(seq).changes)
    #expect(changes.count == 1 && changes.first?.key["path"] == "query".databaseValue)
    // Setting it writes its row, with no before; undo-free view changes jump back cleanly.
    let set = try #require(try store.send(.select(1)))
    let setChanges = try RowChange.decodeJSON(try RewindDatabase(path: path).entry(set).changes)
    #expect(setChanges.map(\.before) == [nil] && setChanges.first?.key["path"] == "sortAscending".databaseValue)
    try store.jump(to: 1)
    #expect(store.state.view == ViewV1Plus())
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  @Test func aViewPropertyWhoseTypeChangedLoadsItsDefaultAndTheFileFollows() throws {
    struct LabelledView: Codable, Equatable, Sendable {
      var selected: String?
      var query = ""
    }
    struct Labelled: ContactsVersion {
      var people = EntityTable<PersonV1>()
      var order = OrderedIDList<Int64>()
      var view = LabelledView()
      static var schema: StateSchema<Self> {
        StateSchema(.entities(\.people), .list(\.order, named: "everyone", of: PersonV1.self), .view(\.view))
      }
      var final: Contacts.Final { Contacts.Final() }
      var ids: [Int64] { Array(order) }
      mutating func apply(_ action: Contacts.Action) {
        if case .search(let text) = action { view.selected = text }
      }
    }
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    let v1 = try open(ContactsV1.self, path)
    try v1.send(.add(id: 1, name: "Ada", street: "1 Main St"))
    try v1.send(.select(1))
    try v1.send(.search("a"))
    let selectedAt = v1.lastSeq
    // `selected` was an id and is now a label: the old row no longer decodes.
    let store = try open(Labelled.self, path)
    #expect(store.state.view == LabelledView(selected: nil, query: "a"))
    let database = try RewindDatabase(path: path)
    func fileView() throws -> LabelledView {
      let reader = try Store(path: path, initialState: Labelled(), reducer: ContactsReducer<Labelled>(), readOnly: true)
      return reader.state.view
    }
    #expect(try fileView() == store.state.view)
    #expect(try database.log(LogQuery(kinds: ["repair"])).count == 1)
    try store.send(.search("friend"))
    #expect(store.state.view.selected == "friend")
    // An old jump brings the id back, which loads as the default, and the file follows.
    try store.jump(to: selectedAt)
    #expect(store.state.view == LabelledView(selected: nil, query: "a"))
    #expect(try fileView() == store.state.view)
    #expect(try database.verify().problems == [])
  }

  @Test func aChangeToATableTheFileDoesNotHaveYetWaitsForItsCreation() throws {
    struct Tag: Entity {
      static let databaseTableName = "tags"
      var id: Int64
      var name: String
      var color: String?
      static func createTable(_ db: Database) throws {
        try db.create(table: databaseTableName) { t in
          t.primaryKey("id", .integer)
          t.column("name", .text).notNull()
          t.column("color", .text)
        }
      }
    }
    struct Tagged: ContactsVersion {
      var inner = ContactsV1()
      var tags = EntityTable<Tag>()
      static var schema: StateSchema<Self> {
        StateSchema(
          .entities(\.inner.people), .entities(\.tags), .list(\.inner.order, named: "everyone", of: PersonV1.self),
          .view(\.inner.view)
        )
        // Version 2 declared the tags table; version 3 gave tags a color.
        .migrations(SchemaMigration("3-tag-colors", .addColumn("color", to: "tags", .text, default: nil)))
      }
      var final: Contacts.Final { inner.final }
      var ids: [Int64] { inner.ids }
      mutating func apply(_ action: Contacts.Action) {
        inner.apply(action)
        if case .add(let id, let name, _) = action { tags.insert(Tag(id: id, name: name, color: "red")) }
      }
    }
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    try open(ContactsV1.self, path).send(.add(id: 1, name: "Ada", street: "1 Main St"))
    let store = try open(Tagged.self, path)
    try store.send(.add(id: 2, name: "Grace", street: "2 Elm St"))
    #expect(store.state.tags[2]?.color == "red")
    let database = try RewindDatabase(path: path)
    #expect(try database.verify().problems == [])
    #expect(try database.log(LogQuery(kinds: ["migration"])).map(\.action) == ["3-tag-colors"])
  }
}
