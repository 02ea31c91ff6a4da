import Foundation
import GRDB
import Testing

@testable import Rewind
@testable import TasksExample

/// App migrations off the common path: concurrent opens, skipped versions, barriers and stacks,
/// compaction between versions, the engine record shared with an app's migrator.
struct MigrationEdgeTests {
  final class Box<T>: @unchecked Sendable {
    let lock = NSLock()
    var values: [T] = []
    func append(_ value: T) {
      lock.lock()
      values.append(value)
      lock.unlock()
    }
  }

  /// Opens `path` with `open` on two threads at once, as two processes of the same new version
  /// of the app would (an app and its extension), while a third connection holds the write
  /// lock: both inspect the old file, then both wait to migrate it. Returns each open's error.
  static func openTwiceAtOnce(_ path: String, _ open: @escaping @Sendable () throws -> Void) throws -> [String?] {
    // The file is in WAL mode already (as any file the engine opened once).
    try DatabaseQueue(path: path).writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
    let blocker = try DatabaseQueue(path: path)
    let locked = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    let results = Box<String?>()
    done.enter()
    Thread.detachNewThread {
      try! blocker.inTransaction(.immediate) { _ in
        locked.signal()
        release.wait()
        return .commit
      }
      done.leave()
    }
    locked.wait()
    for _ in 0..<2 {
      done.enter()
      Thread.detachNewThread {
        do {
          try open()
          results.append(nil)
        } catch {
          results.append("\(error)")
        }
        done.leave()
      }
    }
    Thread.sleep(forTimeInterval: 1)  // both have inspected the file and wait for the lock
    release.signal()
    done.wait()
    return results.values
  }

  /// A file of release 0.1 opened at once by two processes of the new app: one upgrades it,
  /// the other must then open the upgraded file.
  @Test func twoProcessesOfTheNewAppOpenAReleaseFileAtOnce() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("release-0.1.sqlite")
    try FileManager.default.copyItem(
      atPath: ReleaseFixtureTests.fixtures.appendingPathComponent("release-0.1.sqlite").path, toPath: path)
    let errors = try Self.openTwiceAtOnce(path) {
      _ = try Repository<TasksState>(path: path, initialState: TasksState())
    }
    #expect(errors.compactMap { $0 } == [])
  }

  /// Control: two processes creating a new file at once (worked before the change).
  @Test func twoProcessesCreateANewFileAtOnce() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    let errors = try Self.openTwiceAtOnce(path) {
      _ = try Repository<ContactsV4>(path: path, initialState: ContactsV4())
    }
    #expect(errors.compactMap { $0 } == [])
  }

  /// The same with a file of app version 3 opened by two processes of version 4 (a transform
  /// that creates a table).
  @Test func twoProcessesOfTheNewAppMigrateAnOldFileAtOnce() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    do {
      let v3 = try Repository<ContactsV3>(path: path, initialState: ContactsV3())
      _ = v3
    }
    let errors = try Self.openTwiceAtOnce(path) {
      _ = try Repository<ContactsV4>(path: path, initialState: ContactsV4())
    }
    #expect(errors.compactMap { $0 } == [])
  }
}

// MARK: - Probes with stores

struct PersonNoStreet: Entity {
  static let databaseTableName = "people"
  var id: Int64
  var name: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
    }
  }
}

/// Version 1 of the contacts app, then a barrier that drops `street`.
struct StreetlessV2: ContactsVersion {
  var people = EntityTable<PersonNoStreet>()
  var order = OrderedIDList<Int64>()
  var view = ViewV1()
  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.people), .list(\.order, named: "everyone", of: PersonNoStreet.self), .view(\.view))
      .migrations(.barrier("2-no-street") { db in try db.alter(table: "people") { $0.drop(column: "street") } })
  }
  var ids: [Int64] { Array(order) }
  var final: Contacts.Final { Contacts.Final() }
  mutating func apply(_ action: Contacts.Action) {
    switch action {
    case .add(let id, let name, _):
      guard people[id] == nil else { return }
      people.insert(PersonNoStreet(id: id, name: name))
      order.append(id)
    case .rename(let id, let name): people[id]?.name = name
    case .select(let id): view.selected = id
    case .search(let text): view.query = text
    default: break
    }
  }
}

@MainActor
struct MigrationEdgeStoreTests {
  typealias ContactsStore<State: ContactsVersion> = Store<State, Contacts.Action>

  func open<State: ContactsVersion>(_ type: State.Type, _ path: String, readOnly: Bool = false) throws
    -> ContactsStore<State>
  {
    try Store(path: path, initialState: State(), reducer: ContactsReducer<State>(), readOnly: readOnly)
  }

  /// After a barrier, the store says it can undo (and lists the step) though every undo is
  /// refused: an app's Undo button stays enabled and always fails.
  @Test func canUndoIsFalseWhenTheOnlyStepsAreBeforeABarrier() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    let v1 = try open(ContactsV1.self, path)
    try v1.send(.add(id: 1, name: "Ada", street: "1 Main St"))
    try v1.send(.add(id: 2, name: "Grace", street: "2 Elm St"))
    try v1.undo()
    let store = try open(StreetlessV2.self, path)
    #expect(throws: RewindError.self) { try store.undo() }
    #expect(throws: RewindError.self) { try store.redo() }
    #expect(store.canUndo == false)
    #expect(store.canRedo == false)
  }

  /// A version-2 store still open on a file a version-3 store migrated: `reload()` must say
  /// the file is newer, not that a table is missing.
  @Test func anOlderStoreReloadingAMigratedFileSaysWhy() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    let old = try open(ContactsV3.self, path)
    try old.send(.add(id: 1, name: "Ada", street: "1 Main St"))
    _ = try open(ContactsV4.self, path)
    #expect {
      try old.reload()
    } throws: { error in
      (error as? RewindError)?.code == .newerAppSchema
    }
  }

  /// A read-only store of version 3 on a file of version 1 shows it migrated, in memory.
  @Test func aReadOnlyStoreOfANewerVersionShowsAnOldFileMigrated() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    do {
      let v1 = try open(ContactsV1.self, path)
      try v1.send(.add(id: 1, name: "Ada", street: "1 Main St"))
      try v1.send(.search("a"))
    }
    let before = contents(of: path)
    let reader = try open(ContactsV4.self, path, readOnly: true)
    #expect(reader.state.people[1]?.fullName == "Ada")
    #expect(reader.state.addresses[1]?.street == "1 Main St")
    #expect(reader.state.view.search == "a")
    try reader.reload()
    #expect(reader.state.addresses[1]?.street == "1 Main St")
    #expect(contents(of: path) == before)
  }

  /// Steps undone in version 1 are redone in version 4, through a rename and a transform.
  @Test func redoAcrossMigrations() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    do {
      let v1 = try open(ContactsV1.self, path)
      try v1.send(.add(id: 1, name: "Ada", street: "1 Main St"))
      try v1.send(.add(id: 2, name: "Grace", street: "2 Elm St"))
      try v1.send(.relocate(id: 1, street: "9 Oak St"))
      try v1.send(.search("x"))
      try v1.undo()
      try v1.undo()
      try v1.undo()
    }
    let store = try open(ContactsV4.self, path)
    #expect(store.state.people.count == 0)
    try store.redo()
    try store.redo()
    try store.redo()
    #expect(store.state.addresses[1]?.street == "9 Oak St")
    #expect(store.state.people[2]?.fullName == "Grace")
    #expect(store.state.view.search == "x")
    #expect(try RewindDatabase(path: path).verify().problems == [])
    try store.undo()
    try store.undo()
    try store.undo()
    #expect(store.state.people.count == 0 && store.state.addresses.count == 0)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  /// Compaction with its base before, on and after a barrier that dropped a column.
  @Test(arguments: [0, 1, 2, 3, 4])
  func compactionAroundABarrier(keep: Int) throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    do {
      let v1 = try open(ContactsV1.self, path)
      try v1.send(.add(id: 1, name: "Ada", street: "1 Main St"))
      try v1.send(.add(id: 2, name: "Grace", street: "2 Elm St"))
      try v1.send(.rename(id: 1, name: "Ada L"))
    }
    let store = try open(StreetlessV2.self, path)
    let barrier = store.lastSeq
    try store.send(.rename(id: 2, name: "Grace H"))
    try store.send(.search("g"))
    let database = try RewindDatabase(path: path)
    let exports = try (barrier...store.lastSeq).map { try database.export(at: $0) }
    let report = try database.compact(keep: keep)
    #expect(try database.verify().problems == [], "base \(report.baseSeq), barrier \(barrier)")
    for seq in max(report.baseSeq, barrier)...(store.lastSeq) {
      #expect(try database.export(at: seq) == exports[Int(seq - barrier)], "export at \(seq)")
    }
    if report.baseSeq < barrier {
      #expect(try database.export(at: report.baseSeq).contains("street"))
    }
    if report.baseSeq < barrier + 1 {
      #expect(try store.undo() != nil)
      #expect(store.state.people[2]?.name == "Grace")
    }
    if report.baseSeq < barrier - 1 {
      #expect(throws: RewindError.self) { try store.undo() }
    } else {
      #expect(try store.undo() == nil)
    }
    _ = try store.redo()
    #expect(store.state.people[2]?.name == "Grace H")
    #expect(try database.verify().problems == [])
  }

  /// An export written at version 1 imports into the file at version 3 (described changes).
  @Test func anOldExportImportsThroughDescribedChanges() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    do {
      let v1 = try open(ContactsV1.self, path)
      try v1.send(.add(id: 1, name: "Ada", street: "1 Main St"))
      try v1.send(.search("a"))
    }
    let old = try RewindDatabase(path: path).export()
    let v3 = try open(ContactsV3.self, path)
    try v3.send(.rename(id: 1, name: "Changed"))
    try v3.send(.search("b"))
    let database = try RewindDatabase(path: path)
    #expect(try database.importState(old) != nil)
    try v3.reload()
    #expect(v3.state.people[1]?.fullName == "Ada")
    #expect(v3.state.view.search == "a")
    #expect(try database.verify().problems == [])
  }
}

// MARK: - A table added by declaring it (version 2), then dropped (version 3)

struct MigrationEdgeTag: Entity {
  static let databaseTableName = "tags"
  var id: Int64
  var name: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
    }
  }
}

struct TaggedV2: ContactsVersion {
  var inner = ContactsV2()
  var tags = EntityTable<MigrationEdgeTag>()
  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.inner.people), .entities(\.tags), .list(\.inner.order, named: "everyone", of: PersonV2.self),
      .view(\.inner.view)
    )
    .migrations(Contacts.addPhone)
  }
  var final: Contacts.Final { inner.final }
  var ids: [Int64] { inner.ids }
  mutating func apply(_ action: Contacts.Action) {
    inner.apply(action)
    if case .add(let id, let name, _) = action { tags.insert(MigrationEdgeTag(id: id, name: name)) }
  }
}

struct UntaggedV3: ContactsVersion {
  var inner = ContactsV2()
  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.inner.people), .list(\.inner.order, named: "everyone", of: PersonV2.self), .view(\.inner.view)
    )
    .migrations(Contacts.addPhone, SchemaMigration("3-no-tags", .dropTable("tags")))
  }
  var final: Contacts.Final { inner.final }
  var ids: [Int64] { inner.ids }
  mutating func apply(_ action: Contacts.Action) { inner.apply(action) }
}

@MainActor
struct MigrationEdgeSkippedVersionTests {
  func open<State: ContactsVersion>(_ type: State.Type, _ path: String) throws -> Store<State, Contacts.Action> {
    try Store(path: path, initialState: State(), reducer: ContactsReducer<State>())
  }

  /// Through version 2 the upgrade works...
  @Test func aFileOfVersion2OpensInVersion3() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    try open(ContactsV1.self, path).send(.add(id: 1, name: "Ada", street: "1 Main St"))
    try open(TaggedV2.self, path).send(.add(id: 2, name: "Grace", street: "2 Elm St"))
    let store = try open(UntaggedV3.self, path)
    #expect(store.state.inner.people.count == 2)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }

  /// ...but a user who skipped version 2 can never open the file: the drop of a table their
  /// file never had is refused.
  @Test func aFileOfVersion1OpensInVersion3() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    try open(ContactsV1.self, path).send(.add(id: 1, name: "Ada", street: "1 Main St"))
    let store = try open(UntaggedV3.self, path)
    #expect(store.state.inner.people.count == 1)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }
}

@MainActor
struct MigrationEdgeCompactionBetweenVersionsTests {
  /// Compaction run between two versions of the app (its base before, on or after the
  /// version-2 migration), then more upgrades, a transform among them: every later seq still
  /// exports as the state the app had.
  @Test(arguments: [-7, 0, 5] as [Int64])
  func compactionBetweenVersionsThenMoreUpgrades(offset: Int64) async throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    var random = SplitMix64(seed: 42)
    var states: [Int64: Contacts.Final] = [:]
    var nextID: Int64 = 1

    var v1 = try AppEvolutionTests.Session<ContactsV1>(path: path, random: random)
    try await v1.run(steps: 40, nextID: &nextID, recording: &states)
    random = v1.random
    var v2 = try AppEvolutionTests.Session<ContactsV2>(path: path, random: random)
    let m2 = v2.store.lastSeq
    try await v2.run(steps: 40, nextID: &nextID, recording: &states)
    random = v2.random

    let database = try RewindDatabase(path: path)
    let report = try database.compact(keep: Int(try database.inspect().lastSeq - (m2 + offset)))
    #expect(try database.verify().problems == [])

    var v3 = try AppEvolutionTests.Session<ContactsV3>(path: path, random: random)
    try await v3.run(steps: 40, nextID: &nextID, recording: &states)
    random = v3.random
    var v4 = try AppEvolutionTests.Session<ContactsV4>(path: path, random: random)
    try await v4.run(steps: 40, nextID: &nextID, recording: &states)

    #expect(try database.verify().problems == [], "base \(report.baseSeq), migration 2 at \(m2)")
    for seq in states.keys.sorted() where seq >= report.baseSeq {
      #expect(try Contacts.Final(export: database.export(at: seq)) == states[seq], "export --at \(seq)")
    }
    try database.restore(to: report.baseSeq)
    #expect(try Contacts.Final(export: database.export()) == states[report.baseSeq])
  }

  /// More than 1000 entries in version 1 (automatic snapshots), then the upgrades: jumps far
  /// back start from a snapshot written in an older shape.
  @Test func automaticSnapshotsAcrossUpgrades() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    var states: [Int64: Contacts.Final] = [:]
    do {
      let v1 = try Store(path: path, initialState: ContactsV1(), reducer: ContactsReducer<ContactsV1>())
      try v1.send(.add(id: 1, name: "Ada", street: "S0"))
      try v1.send(.add(id: 2, name: "Grace", street: "S0"))
      for index in 1...1_050 {
        try v1.send(index % 2 == 0 ? .relocate(id: 1, street: "S\(index)") : .rename(id: 2, name: "G\(index)"))
        states[v1.lastSeq] = v1.state.final
      }
      v1.waitForSnapshots()
    }
    let v2 = try Store(path: path, initialState: ContactsV2(), reducer: ContactsReducer<ContactsV2>())
    try v2.send(.setPhone(id: 1, phone: "555"))
    states[v2.lastSeq] = v2.state.final
    _ = try RewindDatabase(path: path).snapshot(label: "v2")
    let v4 = try Store(path: path, initialState: ContactsV4(), reducer: ContactsReducer<ContactsV4>())
    try v4.send(.relocate(id: 1, street: "last"))
    states[v4.lastSeq] = v4.state.final
    let database = try RewindDatabase(path: path)
    #expect(try database.snapshots().filter { $0.kind == "automatic" }.count >= 1)
    #expect(try database.verify().problems == [])
    for seq in [10, 500, 999, 1000, 1001, 1040] as [Int64] where states[seq] != nil {
      #expect(try Contacts.Final(export: database.export(at: seq)) == states[seq], "export --at \(seq)")
      try v4.jump(to: seq)
      #expect(v4.state.final == states[seq], "jump to \(seq)")
    }
    #expect(try database.verify().problems == [])
  }
}

@MainActor
struct MigrationEdgeLegacyRecordTests {
  func releaseCopy(_ directory: TemporaryDirectory) throws -> String {
    let path = directory.path("release-0.1.sqlite")
    try FileManager.default.copyItem(
      atPath: ReleaseFixtureTests.fixtures.appendingPathComponent("release-0.1.sqlite").path, toPath: path)
    return path
  }

  /// A release-0.1 file whose grdb_migrations also holds the app's own migrations.
  @Test func aReleaseFileSharedWithTheAppsMigrator() throws {
    let directory = try TemporaryDirectory()
    let path = try releaseCopy(directory)
    try AppMigrationTests.appMigrator(upTo: 1).migrate(try DatabaseQueue(path: path))
    // Read-only first: nothing written, history readable.
    let before = contents(of: path)
    let reader = try TasksStore.tasks(path: path, readOnly: true)
    #expect(reader.state.tasks.count > 0)
    let tool = try RewindDatabase(path: path, readOnly: true)
    #expect(try tool.verify().problems == [])
    #expect(contents(of: path) == before)
    // Then the app.
    let store = try TasksStore.tasks(path: path)
    try store.send(.add(title: "after"))
    let queue = try DatabaseQueue(path: path)
    #expect(
      try queue.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") } == ["v1-settings"])
    try AppMigrationTests.appMigrator(upTo: 2).migrate(queue)
    #expect(try RewindDatabase(path: path).verify().problems == [])
    _ = try TasksStore.tasks(path: path)
  }
}

// MARK: - Changes of one migration are checked against the tables before the whole migration

struct PersonAliased: Entity {
  static let databaseTableName = "people"
  var id: Int64
  var name: String
  var street: String
  var alias: String?
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
      t.column("street", .text).notNull()
      t.column("alias", .text)
    }
  }
}

struct AliasedV2: ContactsVersion {
  var people = EntityTable<PersonAliased>()
  var order = OrderedIDList<Int64>()
  var view = ViewV1()
  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.people), .list(\.order, named: "everyone", of: PersonAliased.self), .view(\.view))
      // "applied in order": add a column, then rename it.
      .migrations(
        SchemaMigration(
          "2-alias", .addColumn("nickname", to: "people", .text, default: nil),
          .renameColumn("nickname", to: "alias", in: "people")))
  }
  var ids: [Int64] { Array(order) }
  var final: Contacts.Final { Contacts.Final() }
  mutating func apply(_ action: Contacts.Action) {}
}

@MainActor
struct MigrationEdgeOrderedChangesTests {
  @Test func changesOfOneMigrationApplyInOrder() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    try Store(path: path, initialState: ContactsV1(), reducer: ContactsReducer<ContactsV1>())
      .send(.add(id: 1, name: "Ada", street: "1 Main St"))
    let store = try Store(path: path, initialState: AliasedV2(), reducer: ContactsReducer<AliasedV2>())
    #expect(store.state.people[1]?.alias == nil)
    #expect(try RewindDatabase(path: path).verify().problems == [])
  }
}

@MainActor
struct MigrationEdgeSkipToLastTests {
  /// Version 1 straight to version 4: three migrations in one open.
  @Test(arguments: [7, 8] as [UInt64])
  func version1StraightToVersion4(seed: UInt64) async throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    var states: [Int64: Contacts.Final] = [:]
    var nextID: Int64 = 1
    var v1 = try AppEvolutionTests.Session<ContactsV1>(path: path, random: SplitMix64(seed: seed))
    try await v1.run(steps: 60, nextID: &nextID, recording: &states)
    _ = try RewindDatabase(path: path).snapshot(label: "v1")
    var v4 = try AppEvolutionTests.Session<ContactsV4>(path: path, random: v1.random)
    #expect(v4.store.state.final == states[v4.store.lastSeq - 3])
    try await v4.run(steps: 30, nextID: &nextID, recording: &states)
    let database = try RewindDatabase(path: path)
    #expect(try database.verify().problems == [])
    for seq in states.keys.sorted() where seq >= 1 {
      #expect(try Contacts.Final(export: database.export(at: seq)) == states[seq], "export --at \(seq)")
    }
    while try v4.store.undo() != nil {
      #expect(try Contacts.Final(export: database.export()) == v4.store.state.final)
    }
    #expect(try database.verify().problems == [])
  }
}
