import GRDB
import Testing

@testable import Rewind

/// A table's entities are decoded and stored in batches when a store opens: every row read
/// must be there, in whichever batch it fell, and of two rows whose keys differ in SQLite but
/// are equal in Swift (text that differs only in Unicode normalization), the one read last is
/// kept, as it was when each was stored as it was read.
struct EntityTableLoadingTests {
  struct Word: Entity {
    static let databaseTableName = "words"
    var id: String
    var rank: Int64

    static func createTable(_ db: Database) throws {
      try db.create(table: databaseTableName) { t in
        t.primaryKey("id", .text)
        t.column("rank", .integer).notNull()
      }
    }
  }

  /// `count` words, ranked in the order they are read; the composed "é" (U+00E9) is the first
  /// word's key, and the decomposed one ("e" and U+0301) the key of the word read at `twin`.
  func loaded(count: Int, twin: Int) throws -> EntityTable<Word> {
    let queue = try DatabaseQueue()
    return try queue.write { db in
      try Word.createTable(db)
      for rank in 0..<count {
        let id = rank == 0 ? "\u{E9}" : rank == twin ? "e\u{301}" : "w\(rank)"
        try db.execute(sql: "INSERT INTO words (id, rank) VALUES (?, ?)", arguments: [id, rank])
      }
      let rows = try Row.fetchCursor(db, sql: "SELECT * FROM words ORDER BY rank")
      return try EntityTable.build(loading: rows, count: count) { try Word(row: $0) }.take()
    }
  }

  @Test(arguments: [
    1, 5, BackgroundBuild<EntityTable<Word>, Word>.batchSize - 1,
    BackgroundBuild<EntityTable<Word>, Word>.batchSize + 3, 2_500,
  ])
  func theRowReadLastIsKeptWhereverTheBatchesFall(twin: Int) throws {
    let count = 3_000
    let table = try loaded(count: count, twin: twin)
    #expect("\u{E9}" == "e\u{301}")  // equal in Swift, two keys in SQLite
    #expect(table.count == count - 1)
    #expect(table["\u{E9}"]?.rank == Int64(twin))
    for rank in 1..<count where rank != twin { #expect(table["w\(rank)"]?.rank == Int64(rank)) }
  }
}
