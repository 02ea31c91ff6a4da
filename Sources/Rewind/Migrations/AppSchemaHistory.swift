import Foundation
import GRDB

/// The app's migrations as the file records them (`rewind_app_migrations`), and how a row image
/// logged under an earlier version is read in the current one.
///
/// An image is in the shape of the seq it was written at; a snapshot's, in the shape of its
/// `schema_seq`. Reading it applies the described changes of every later migration, up to the
/// next barrier (history does not cross a barrier: images before it stay in the shape they had
/// just before it). A transform rewrote the images before it when it ran, so they start from
/// its shape.
struct AppSchemaHistory {
  /// How a migration carries history: the values of `rewind_app_migrations.kind`.
  enum Kind: String {
    case changes, transform, barrier
  }

  struct Record {
    var version: Int
    var identifier: String
    var seq: Int64
    var kind: Kind
    var operations: [SchemaChange.Operation]
  }

  private(set) var records: [Record] = []
  /// The seqs of barrier migrations, ascending.
  private(set) var barriers: [Int64] = []
  /// The largest seq of any migration: images at or after it need no reading through.
  private var lastMigrationSeq: Int64 = 0

  init() {}

  init(_ db: Database) throws {
    let rows = try Row.fetchAll(
      db, sql: "SELECT version, identifier, seq, kind, changes FROM rewind_app_migrations ORDER BY version")
    let table = EngineTable.appMigrations.name
    for row in rows {
      let identifier = try row.checked("identifier", in: table, as: String.self)
      let kindName = try row.checked("kind", in: table, as: String.self)
      guard let kind = Kind(rawValue: kindName) else {
        throw RewindError(
          .corruptData, "rewind_app_migrations: \(identifier) has kind \(kindName), which this library does not know")
      }
      let operations: [SchemaChange.Operation]
      do {
        operations = try SchemaChange.Operation.decodeList(try row.checked("changes", in: table, as: String.self))
      } catch let error as RewindError {
        throw RewindError(
          .corruptData, "rewind_app_migrations: the changes of \(identifier) do not decode: \(error.message)")
      }
      records.append(
        Record(
          version: try row.checked("version", in: table), identifier: identifier,
          seq: try row.checked("seq", in: table), kind: kind, operations: operations))
    }
    barriers = records.filter { $0.kind == .barrier }.map(\.seq).sorted()
    lastMigrationSeq = records.map(\.seq).max() ?? 0
  }

  /// The app schema version the file is at: 1 plus its migrations.
  var version: Int { records.count + 1 }

  /// How many migrations the file records.
  var migrationCount: Int { records.count }

  /// The seq of the latest barrier at or before `seq`: history before it cannot be returned to
  /// from `seq`. 0 when there is none.
  func barrier(atOrBefore seq: Int64) -> Int64 { barriers.last { $0 <= seq } ?? 0 }

  /// The seq of the first barrier after `seq`, if any: images at `seq` are read in the shape
  /// they had just before it.
  func barrier(after seq: Int64) -> Int64? { barriers.first { $0 > seq } }

  /// The latest barrier: history before it is read-only.
  var lastBarrier: Int64 { barriers.last ?? 0 }

  /// The described changes that turn an image of the state at `seq`, in the shape of
  /// `shapeSeq` (≥ `seq`), into the shape it is read in.
  func operations(at seq: Int64, shape shapeSeq: Int64) -> [SchemaChange.Operation] {
    guard max(seq, shapeSeq) < lastMigrationSeq else { return [] }
    let ceiling = barrier(after: seq) ?? .max
    // A transform after the image (and before the ceiling) rewrote it into its own shape.
    let rewritten = records.filter { $0.kind == .transform && $0.seq > seq && $0.seq < ceiling }.map(\.seq).max()
    let start = max(shapeSeq, rewritten ?? shapeSeq)
    return records.filter { $0.kind == .changes && $0.seq > start && $0.seq < ceiling }.flatMap(\.operations)
  }

  /// The app schema version of rows built for the state at `seq`: the migrations they were
  /// read through (every one, up to the next barrier).
  func version(ofRowsAt seq: Int64?) -> Int {
    let ceiling = seq.flatMap(barrier(after:)) ?? .max
    return records.filter { $0.seq < ceiling }.count + 1
  }

  /// The described changes that read an export of app schema version `version` in the current
  /// shape. Throws ``RewindError/Code/invalidImport`` for an export of a newer version, or of
  /// one a transform or barrier separates from the current one (history's images were
  /// rewritten or cut there; an export has no such rewrite).
  func operations(readingExportOf version: Int) throws -> [SchemaChange.Operation] {
    guard version <= self.version else {
      throw RewindError(
        .invalidImport,
        "the file is an export of app schema version \(version), newer than this database's version \(self.version)")
    }
    let later = records.filter { $0.version > version }
    if let blocking = later.first(where: { $0.kind != .changes }) {
      throw RewindError(
        .invalidImport,
        "the file is an export of app schema version \(version), before migration \(blocking.identifier) (a \(blocking.kind.rawValue), which an export cannot be read through); export it again from a file at version \(self.version)"
      )
    }
    return later.flatMap(\.operations)
  }

  /// The shape rows built for the state at `seq` are in: the latest migration they were read
  /// through (every one, up to the next barrier).
  func shape(ofRowsAt seq: Int64) -> Int64 {
    let ceiling = barrier(after: seq) ?? .max
    return max(seq, records.filter { $0.seq < ceiling }.map(\.seq).max() ?? seq)
  }

  /// `changes`, logged at `seq`, as read in the current shape.
  func upgrade(_ changes: [RowChange], at seq: Int64) -> [RowChange] {
    let operations = operations(at: seq, shape: seq)
    guard !operations.isEmpty else { return changes }
    return changes.compactMap { Self.apply(operations, to: $0) }
  }

  /// A whole row of `table` (from a snapshot or an export, with no key yet) read through
  /// `operations`: the table and row it is now, or `nil` when it is left out.
  static func apply(
    _ operations: [SchemaChange.Operation], toRowOf table: String, _ row: RowImage
  ) -> (table: String, row: RowImage)? {
    guard !operations.isEmpty else { return (table, row) }
    return apply(operations, to: RowChange(table: table, key: [:], before: nil, after: row))
      .map { ($0.table, $0.after!) }
  }

  /// Applies described changes to one row change; `nil` when it is left out (a dropped table,
  /// a removed view property) or no longer changes anything.
  static func apply(_ operations: [SchemaChange.Operation], to change: RowChange) -> RowChange? {
    var change = change
    func edit(_ body: (inout RowImage) -> Void) {
      body(&change.key)
      if change.before != nil { body(&change.before!) }
      if change.after != nil { body(&change.after!) }
    }
    let viewState = EngineTable.viewState.name
    // A whole row read from a snapshot or an export comes with no key yet: look in the row.
    func value(_ column: String) -> DatabaseValue? {
      change.key[column] ?? change.after?[column] ?? change.before?[column]
    }
    for operation in operations {
      switch operation {
      case .addColumn(let table, let column, _, _, let value) where change.table == table:
        if change.before != nil, change.before![column] == nil { change.before![column] = value }
        if change.after != nil, change.after![column] == nil { change.after![column] = value }
      case .renameColumn(let table, let from, let to) where change.table == table:
        edit { row in
          if let value = row[from] {
            row[from] = nil
            row[to] = value
          }
        }
      case .dropColumn(let table, let column) where change.table == table:
        change.before?[column] = nil
        change.after?[column] = nil
      case .dropTable(let table, let lists):
        if change.table == table { return nil }
        if change.table == EngineTable.listEntries.name,
          let list = value("list").flatMap(String.fromDatabaseValue), lists.contains(list)
        {
          return nil
        }
      case .renameViewProperty(let from, let to) where change.table == viewState:
        if value("path") == from.databaseValue {
          edit { row in row["path"] = to.databaseValue }
        }
      case .removeViewProperty(let path) where change.table == viewState:
        if value("path") == path.databaseValue { return nil }
      default:
        break
      }
    }
    return change.before == change.after ? nil : change
  }
}

// MARK: - Stored form

extension SchemaChange.Operation {
  /// The JSON text stored in `rewind_app_migrations.changes` and in the migration's log entry.
  static func json(_ operations: [Self]) -> String {
    var out = "["
    for (index, operation) in operations.enumerated() {
      if index > 0 { out += "," }
      out += operation.json
    }
    return out + "]"
  }

  private var json: String {
    func string(_ text: String) -> String {
      var out = ""
      JSONText.appendString(text, to: &out)
      return out
    }
    var fields: [String: String]
    switch self {
    case .addColumn(let table, let column, let type, let notNull, let value):
      var defaultText = ""
      JSONText.appendValue(value, to: &defaultText)
      fields = [
        "op": "addColumn", "table": string(table), "column": string(column), "type": string(type),
        "notNull": notNull ? "true" : "false", "default": defaultText,
      ]
    case .renameColumn(let table, let from, let to):
      fields = ["op": "renameColumn", "table": string(table), "from": string(from), "to": string(to)]
    case .dropColumn(let table, let column):
      fields = ["op": "dropColumn", "table": string(table), "column": string(column)]
    case .dropTable(let table, let lists):
      fields = [
        "op": "dropTable", "table": string(table), "lists": "[" + lists.map(string).joined(separator: ",") + "]",
      ]
    case .renameViewProperty(let from, let to):
      fields = ["op": "renameViewProperty", "from": string(from), "to": string(to)]
    case .removeViewProperty(let path):
      fields = ["op": "removeViewProperty", "path": string(path)]
    }
    fields["op"] = string(fields["op"]!)
    return "{" + fields.sorted { $0.key < $1.key }.map { string($0.key) + ":" + $0.value }.joined(separator: ",") + "}"
  }

  static func decodeList(_ text: String) throws -> [Self] {
    guard case .array(let items) = try JSONValue.parse(text) else {
      throw RewindError(.corruptData, "not a JSON array")
    }
    return try items.map { item in
      guard case .object(let object) = item else { throw RewindError(.corruptData, "a change is not an object") }
      let fields = try object.filter { $0.key != "lists" }.mapValues { try $0.databaseValue() }
      func text(_ name: String) throws -> String {
        guard let value = fields[name].flatMap(String.fromDatabaseValue) else {
          throw RewindError(.corruptData, "a change has no \(name) text")
        }
        return value
      }
      switch try text("op") {
      case "addColumn":
        return .addColumn(
          table: try text("table"), column: try text("column"), type: try text("type"),
          notNull: fields["notNull"].flatMap(Bool.fromDatabaseValue) ?? false, default: fields["default"] ?? .null)
      case "renameColumn":
        return .renameColumn(table: try text("table"), from: try text("from"), to: try text("to"))
      case "dropColumn":
        return .dropColumn(table: try text("table"), column: try text("column"))
      case "dropTable":
        guard case .array(let items)? = object["lists"] else {
          throw RewindError(.corruptData, "a change has no lists")
        }
        let lists = try items.map { item -> String in
          guard case .string(let list) = item else { throw RewindError(.corruptData, "a list name is not text") }
          return list
        }
        return .dropTable(table: try text("table"), lists: lists)
      case "renameViewProperty":
        return .renameViewProperty(from: try text("from"), to: try text("to"))
      case "removeViewProperty":
        return .removeViewProperty(path: try text("path"))
      case let other:
        throw RewindError(.corruptData, "\(other) is not a kind of schema change this library knows")
      }
    }
  }
}
