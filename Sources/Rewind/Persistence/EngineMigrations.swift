import GRDB

/// The engine's schema: the numbered SQL files of the package's `migrations/` folder, embedded
/// at build time by the `EmbedMigrationsPlugin` (see `EngineMigrations+Embedded.swift` in the
/// build folder).
///
/// Applied migrations are recorded in `rewind_engine_migrations`. Releases up to 0.2 recorded
/// them in `grdb_migrations`, GRDB's table, which belongs to the app when it uses GRDB's
/// `DatabaseMigrator` for its own tables: the engine reads its identifiers there in older files,
/// moves them out when it upgrades one, and ignores every other identifier it finds there.
///
/// They are applied by ``migrate(_:path:)`` inside the caller's write transaction rather than by
/// GRDB's `DatabaseMigrator`, which reads what is applied before it takes the write lock: two
/// processes creating one new file at once would both try to create the tables.
enum EngineMigrations {
  struct File: Sendable {
    var identifier: String
    var sql: String
  }

  /// The schema version this library writes: the number of migrations it knows.
  static var currentVersion: Int { embedded.count }

  /// What a migration's SQL cannot do, done by the engine's code right after it, in the same
  /// transaction: a checksum taken anew over text held in several rows.
  static let followUps: [String: @Sendable (Database) throws -> Void] = [
    "0009_snapshot_checksums_cover_seq": HistoryLog.sealSnapshotSeqs
  ]

  /// The migrations releases 0.1 and 0.2 recorded in `grdb_migrations`.
  static let legacyIdentifiers: Set<String> = ["0001_engine", "0002_history", "0003_snapshots", "0004_exact_history"]

  /// The identifiers of the migrations applied to the database, sorted.
  static func applied(_ db: Database) throws -> [String] {
    var applied: Set<String> = []
    if try db.tableExists(EngineTable.engineMigrations.name) {
      applied.formUnion(try String.fetchAll(db, sql: "SELECT identifier FROM rewind_engine_migrations"))
    }
    if try db.tableExists(legacyTable) {
      applied.formUnion(
        try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations").filter(legacyIdentifiers.contains))
    }
    return applied.sorted()
  }

  /// Where releases up to 0.2 recorded the engine's migrations.
  static let legacyTable = "grdb_migrations"

  /// Whether the database holds the engine's record of its schema (either form).
  static func hasRecord(_ db: Database) throws -> Bool {
    try !applied(db).isEmpty
  }

  /// Throws ``RewindError/Code/newerSchema`` if the database has a migration this library does
  /// not know.
  static func checkNotNewer(_ db: Database, path: String) throws {
    let known = Set(embedded.map(\.identifier))
    let applied = try applied(db)
    if applied.contains(where: { !known.contains($0) }) {
      throw RewindError(
        .newerSchema,
        "\(path) was written by a newer Rewind (schema \(applied.last ?? "?"), this library knows up to \(embedded.last?.identifier ?? "?")); update the app to open it"
      )
    }
  }

  /// Whether some migration this library knows is not applied, or the record is still in its
  /// old place: opening must write.
  static func isPending(_ db: Database) throws -> Bool {
    if try applied(db) != embedded.map(\.identifier) { return true }
    return try db.tableExists(legacyTable)
      && Bool.fetchOne(
        db,
        sql:
          "SELECT 1 FROM grdb_migrations WHERE identifier IN (\(legacyIdentifiers.sorted().map { "'\($0)'" }.joined(separator: ", ")))"
      ) == true
  }

  /// Applies the pending migrations, in order, and moves a legacy record out of
  /// `grdb_migrations`; writes nothing when nothing is pending. Call inside a write transaction.
  static func migrate(_ db: Database, path: String) throws {
    try checkNotNewer(db, path: path)
    guard try isPending(db) else { return }
    let applied = Set(try applied(db))
    for file in embedded where !applied.contains(file.identifier) {
      do {
        try db.execute(sql: file.sql)
        try followUps[file.identifier]?(db)
      } catch {
        // One line: GRDB's description of the error would quote the whole migration script.
        let reason = (error as? DatabaseError)?.message ?? "\(error)"
        throw RewindError(.schemaMismatch, "engine migration \(file.identifier) failed on \(path): \(reason)")
      }
      // The record's table is created by the migration that introduced it.
      if try db.tableExists(EngineTable.engineMigrations.name) {
        try db.execute(
          sql: "INSERT INTO rewind_engine_migrations (identifier) VALUES (?)", arguments: [file.identifier])
      } else {
        try recordLegacy(file.identifier, db)
      }
    }
    try moveLegacyRecord(db)
  }

  /// Records a migration older than `rewind_engine_migrations` where its release did, until
  /// the migration that creates that table moves the record.
  private static func recordLegacy(_ identifier: String, _ db: Database) throws {
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
    try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [identifier])
  }

  /// Moves the engine's identifiers from `grdb_migrations` to `rewind_engine_migrations`, and
  /// drops `grdb_migrations` if nothing else (an app's migrator) uses it.
  private static func moveLegacyRecord(_ db: Database) throws {
    guard try db.tableExists(legacyTable), try db.tableExists(EngineTable.engineMigrations.name) else { return }
    let legacy = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations").filter(
      legacyIdentifiers.contains)
    for identifier in legacy {
      try db.execute(
        sql: "INSERT OR IGNORE INTO rewind_engine_migrations (identifier) VALUES (?)", arguments: [identifier])
      try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [identifier])
    }
    if try Int.fetchOne(db, sql: "SELECT count(*) FROM grdb_migrations") == 0 {
      try db.execute(sql: "DROP TABLE grdb_migrations")
    }
  }
}
