import GRDB

/// The type affinity of each column of one table, as the file declares them: what makes an
/// entity's row image the row the table stores (``ColumnAffinity``).
@usableFromInline
final class TableAffinities: @unchecked Sendable {
  /// By column name, lowercased (SQLite's names are case-insensitive).
  private let byName: [String: ColumnAffinity]
  /// Whether any column converts anything.
  @usableFromInline
  let converts: Bool
  /// The affinities of the columns of the last image seen, in its order: an entity's images
  /// share one ``RowImage/Columns``, so the names are looked up once. Set on the store's
  /// actor, by the send that takes the entity's changes.
  @usableFromInline
  @exclusivity(unchecked) var lastColumns: RowImage.Columns?
  @usableFromInline
  @exclusivity(unchecked) var lastAffinities: [ColumnAffinity] = []

  /// The affinities of `table`'s columns in the file `db` reads.
  init(of table: String, _ db: Database) throws {
    // `STRICT` (SQLite 3.37): its `ANY` columns keep what they are given. An older SQLite
    // has neither the pragma nor strict tables.
    let strict =
      (try? Bool.fetchOne(
        db, sql: "SELECT strict FROM pragma_table_list WHERE schema = 'main' AND name = ?", arguments: [table]))
      ?? false
    var byName: [String: ColumnAffinity] = [:]
    for column in try db.columns(in: table) {
      byName[column.name.lowercased()] = ColumnAffinity(declaredType: column.type, strict: strict)
    }
    self.byName = byName
    converts = byName.values.contains { $0 != .none }
  }

  /// `image` as the table stores it, or `nil` when that is `image` itself (no copy is made
  /// of the common row, whose every value its column keeps).
  @inlinable
  func stored(_ image: RowImage) throws -> RowImage? {
    guard converts else { return nil }
    if lastColumns !== image.storedColumns {
      lastAffinities = image.storedColumns.names.map { affinity(of: $0) }
      lastColumns = image.storedColumns
    }
    var stored: RowImage?
    for index in image.storedValues.indices {
      guard let value = try lastAffinities[index].converting(image.storedValues[index]) else { continue }
      if stored == nil { stored = image }
      stored?.storedValues[index] = value
    }
    return stored
  }

  /// Makes `change`'s rows the ones the table stores (its key is left as it is); returns its
  /// after-image as it was if that changed.
  @inlinable
  func store(_ change: inout RowChange) throws -> RowImage? {
    if let row = change.before, let stored = try stored(row) { change.before = stored }
    guard let row = change.after, let stored = try stored(row) else { return nil }
    change.after = stored
    return row
  }

  @usableFromInline
  func affinity(of column: String) -> ColumnAffinity { byName[column.lowercased()] ?? .none }
}
