import GRDB

extension TableCatalog {
  /// The list entries that name a row their entity table (or their owner table) does not hold,
  /// at most `limit` of each list and column, each described as
  /// `list_entries: list L names T V, which does not exist`.
  ///
  /// Commits never leave one (they are refused as relation violations); `verify` and app
  /// migrations, whose own code may delete rows, look for them in SQL.
  func danglingListEntries(_ db: Database, limit: Int = 10) throws -> [String] {
    var dangling: [String] = []
    for (list, table) in lists.sorted(by: { $0.key < $1.key }) {
      var checks = [(column: "id", table: table)]
      if let owner = listOwners[list] { checks.append((column: "owner", table: owner)) }
      for (column, table) in checks {
        let key = keyColumns(of: table)[0].quotedDatabaseIdentifier
        let sql = """
          SELECT \(column) FROM list_entries AS entry WHERE list = ? AND NOT EXISTS (
            SELECT 1 FROM \(table.quotedDatabaseIdentifier) WHERE \(key) = entry.\(column)) LIMIT \(limit)
          """
        for value in try DatabaseValue.fetchAll(db, sql: sql, arguments: [list]) {
          dangling.append("list_entries: list \(list) names \(table) \(value), which does not exist")
        }
      }
    }
    return dangling
  }
}
