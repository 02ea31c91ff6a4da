import GRDB

/// The engine's schema: the numbered SQL files of the package's `migrations/` folder, embedded
/// at build time by the `EmbedMigrationsPlugin` (see `EngineMigrations+Embedded.swift` in the
/// build folder).
enum EngineMigrations {
  struct File: Sendable {
    var identifier: String
    var sql: String
  }

  /// The schema version this library writes: the number of migrations it knows.
  static var currentVersion: Int { embedded.count }

  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    for file in embedded {
      migrator.registerMigration(file.identifier) { db in try db.execute(sql: file.sql) }
    }
    return migrator
  }
}
