import GRDB

/// The engine's schema: the numbered SQL files of the package's `migrations/` folder, embedded
/// at build time by the `EmbedMigrationsPlugin` (see `EngineMigrations+Embedded.swift` in the
/// build folder).
///
/// Applied migrations are recorded in `grdb_migrations`, in GRDB's format, so files written by
/// earlier releases keep opening. They are applied by ``migrate(_:path:)`` inside the caller's
/// write transaction rather than by GRDB's `DatabaseMigrator`, which reads what is applied
/// before it takes the write lock: two processes creating one new file at once would both try
/// to create the tables.
enum EngineMigrations {
  struct File: Sendable {
    var identifier: String
    var sql: String
  }

  /// The schema version this library writes: the number of migrations it knows.
  static var currentVersion: Int { embedded.count }

  /// The identifiers of the migrations applied to the database, sorted.
  static func applied(_ db: Database) throws -> [String] {
    guard try db.tableExists(EngineTable.migrations.name) else { return [] }
    return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
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

  /// Whether some migration this library knows is not applied: opening must write.
  static func isPending(_ db: Database) throws -> Bool {
    try applied(db) != embedded.map(\.identifier)
  }

  /// Applies the pending migrations, in order; writes nothing when none is. Call inside a
  /// write transaction.
  static func migrate(_ db: Database, path: String) throws {
    try checkNotNewer(db, path: path)
    guard try isPending(db) else { return }
    if try !db.tableExists(EngineTable.migrations.name) {
      try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
    }
    let applied = Set(try applied(db))
    for file in embedded where !applied.contains(file.identifier) {
      do {
        try db.execute(sql: file.sql)
      } catch {
        // One line: GRDB's description of the error would quote the whole migration script.
        let reason = (error as? DatabaseError)?.message ?? "\(error)"
        throw RewindError(.schemaMismatch, "engine migration \(file.identifier) failed on \(path): \(reason)")
      }
      try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [file.identifier])
    }
  }
}
