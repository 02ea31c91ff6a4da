import Foundation
import GRDB

/// A `Codable` view-state value persisted as `view_state` rows, one per top-level property.
///
/// View state is small and bounded (selection, modal, search text, scroll offset), so finding
/// what changed compares the value with the last one written (`==`, cheap) and, only when it
/// differs, walks its properties: those equal to the values last written are skipped, the
/// others encoded and compared with their rows (``ViewRows``). That work follows the size of
/// the view state, never the number of entities.
@usableFromInline
final class ViewPart<Root, V: Codable & Equatable & Sendable>: StatePart {
  @usableFromInline
  static var table: String { EngineTable.viewState.name }
  @usableFromInline
  let path: StatePath<Root, V>
  @usableFromInline
  var keyPath: WritableKeyPath<Root, V> { path.keyPath }
  let prefix: String
  /// The value as last written or loaded, and the rows the file holds for it: what the next
  /// change is compared with. They change only with the state they describe (a commit, a load,
  /// applied changes), so they never run ahead of the file.
  ///
  /// Both are `@exclusivity(unchecked)`: they are read or replaced whole, on the store's actor,
  /// by code that calls nothing out while the access lasts; the run-time check cost about 80
  /// instructions each time, on every send for every view state.
  @usableFromInline
  @exclusivity(unchecked) var current: Written?
  @usableFromInline
  @exclusivity(unchecked) var rows: ViewRows
  /// Each property's JSON in the app's initial state: what a property with no row loads as (a
  /// property added since the file was written, or rows removed by a jump to before they
  /// existed). Taken once, from the state the store was opened with.
  private var defaults: [String: String]?
  /// The properties `V` lists, if it lists them (``ViewStateProperties``), in ascending order
  /// of name: a change compares and encodes these rather than walking `encode(to:)`.
  @usableFromInline
  let listed: [ViewProperty<V>]?
  /// The listed properties a change found different, with their texts, until the rows take
  /// them; kept for its storage. Unchecked, as `current` is.
  @usableFromInline
  @exclusivity(unchecked) var listedTexts: [(name: String, text: String?)] = []

  @usableFromInline
  init(keyPath: WritableKeyPath<Root, V>, prefix: String, listed: [ViewProperty<V>]?) {
    path = StatePath(keyPath)
    self.prefix = prefix
    rows = ViewRows(rows: [:], defaults: [:], path: { property in prefix.isEmpty ? property : prefix + "." + property })
    self.listed = listed?.sorted { $0.name < $1.name }
  }

  @usableFromInline
  func takeDefaults(from initial: Root) throws {
    guard defaults == nil else { return }
    let value = initial[keyPath: keyPath]
    let defaults: [String: String]
    do {
      defaults = try encodeRows(value)
    } catch {
      throw unencodable(error)
    }
    try checkListed(value, encoded: defaults)
    self.defaults = defaults
    rows = ViewRows(rows: rows.rows, defaults: defaults, path: rows.path)
  }

  @usableFromInline
  func setUp(_ db: Database) throws {}

  /// A new instance: `current` and `rows` describe one store's file.
  @usableFromInline
  func renewed() -> ViewPart { ViewPart(keyPath: keyPath, prefix: prefix, listed: listed) }

  @usableFromInline
  var storage: PartStorage { .viewState(prefix: prefix) }

  @usableFromInline
  var declaredEntityTable: String? { nil }

  @usableFromInline
  func registerIfPresent(_ db: Database) throws {}

  @usableFromInline
  func load(_ db: Database) throws -> (inout Root) -> Void {
    let pattern = prefix.isEmpty ? "%" : prefix.escapedForLike + ".%"
    let rows = try Row.fetchAll(
      db, sql: "SELECT path, value FROM view_state WHERE path LIKE ? ESCAPE '\\'", arguments: [pattern])
    var stored: [String: String] = [:]
    for row in rows {
      let path = try row.checked("path", in: EngineTable.viewState.name, as: String.self)
      if let property = property(ofPath: path) {
        stored[property] = try row.checked("value", in: EngineTable.viewState.name, as: String.self)
      }
    }
    return try update(to: stored)
  }

  @inlinable
  func hasChanges(in root: inout Root) -> Bool {
    guard let current else { return true }
    return !path.read(&root) { current.value == $0 }
  }

  @inlinable
  func takeChanges(from root: inout Root, into changes: inout [RowChange]) throws {
    // Compared here, specialized, and in place: most actions leave most view states as they were.
    guard hasChanges(in: &root) else { return }
    let value = path.read(&root) { $0 }
    do {
      guard let listed, let current, rows.isWalked else { return try takeChanges(of: value, into: &changes) }
      // The listed properties compared and encoded here, specialized for each property's type;
      // every text is made before the rows take any (one that throws leaves them as they were).
      listedTexts.removeAll(keepingCapacity: true)
      for property in listed where property.differs(current.value, value) {
        listedTexts.append((property.name, try property.text(value)))
      }
      try checkListedInDebugBuilds(value)
      rows.takeListedChanges(listedTexts, into: &changes)
      current.value = value
    } catch {
      throw unencodable(error)
    }
  }

  /// The error for a value of this view state that does not encode as JSON (a NaN or an
  /// infinite number, which JSON cannot hold): an invalid value, as one SQLite cannot hold is.
  @usableFromInline
  func unencodable(_ error: any Error) -> any Error {
    guard error is EncodingError else { return error }
    return RewindError(
      .invalidValue,
      "view state \(V.self)\(prefix.isEmpty ? "" : " at \(prefix)") could not be encoded as JSON; nothing was written",
      underlying: error)
  }

  /// Debug builds check, on every change, that the listed properties describe `value` as its
  /// `encode(to:)` does; opening a store checks only the initial state.
  @usableFromInline
  func checkListedInDebugBuilds(_ value: V) throws {
    #if DEBUG
      try checkListed(value, encoded: CompactJSONEncoder.encodeMembers(value) ?? [:])
    #endif
  }

  @usableFromInline
  func takeChanges(of value: V, into changes: inout [RowChange]) throws {
    try rows.takeChanges(to: value, into: &changes)
    // The box is this part's own: updated in place, where a new one looked up its generic
    // type's metadata (a scoped part's code is not specialized) and allocated, on every change.
    if let current { current.value = value } else { current = Written(value) }
  }

  @usableFromInline
  func rows(of root: Root, into batches: inout RowBatches) throws {
    for (property, json) in try encodeRows(root[keyPath: keyPath]).sorted(by: { $0.key < $1.key }) {
      try batches.append(rows.insertion(property, json))
    }
  }

  @usableFromInline
  func rowCount(of root: Root) -> Int { rows.rowCount }

  @usableFromInline
  func owns(_ change: RowChange) -> Bool { change.table == Self.table && property(of: change) != nil }

  /// A property with no row loads as its default, so a change between no row and a row
  /// holding the default's text leaves the value as it is (``ViewRows/loadAlike(_:_:defaultText:)``).
  @usableFromInline
  func leavesValueAsIs(_ change: RowChange) -> Bool {
    guard let property = property(of: change) else { return false }
    let before = change.before.map { $0["value"].flatMap(String.fromDatabaseValue) }
    let after = change.after.map { $0["value"].flatMap(String.fromDatabaseValue) }
    // A row whose value is not text holds no property's value: it changes what loads.
    if before == .some(nil) || after == .some(nil) { return false }
    return ViewRows.loadAlike(before ?? nil, after ?? nil, defaultText: defaults?[property])
  }

  @usableFromInline
  func prepare(_ changes: [RowChange], _ direction: ChangeDirection) throws -> (inout Root) -> Void {
    var rows = self.rows.rows
    for change in changes {
      guard let property = property(of: change) else {
        throw RewindError(.corruptData, "a view-state change has no valid path: \(describe(change.key))")
      }
      if let row = change.target(direction) {
        guard let json = row["value"].flatMap(String.fromDatabaseValue) else {
          throw RewindError(
            .corruptData,
            "view_state \(self.rows.path(property)) would hold \(row["value"] ?? .null), which is not JSON text")
        }
        rows[property] = json
      } else {
        rows[property] = nil
      }
    }
    return try update(to: rows)
  }

  /// Decodes the value `rows` describe; the update sets it and the rows it is compared with.
  ///
  /// A row that does not decode any more (a property whose type changed in a newer version of
  /// the app, reached by an old jump or in an old file) loads as the property's default. The
  /// value is then not what the rows say, so the next write (the repair that follows a load or
  /// a jump) writes the default's row: memory and file agree again, through the log.
  private func update(to rows: [String: String]) throws -> (inout Root) -> Void {
    let (value, exact) = try decode(rows)
    let keyPath = keyPath
    let viewRows = ViewRows(rows: rows, defaults: defaults ?? [:], path: self.rows.path)
    return { [self] root in
      current = exact ? Written(value) : nil
      self.rows = viewRows
      root[keyPath: keyPath] = value
    }
  }

  @usableFromInline
  func withViewPrefix(_ viewPrefix: String) -> ViewPart {
    let prefix = [viewPrefix, self.prefix].filter { !$0.isEmpty }.joined(separator: ".")
    return ViewPart(keyPath: keyPath, prefix: prefix, listed: listed)
  }

  /// The value last written, boxed: wherever the part's code runs unspecialized (a scoped
  /// feature's parts did, until they ran the feature's own code, see ``ScopedPart``), each use
  /// of a `V?` would look up `Optional<V>`'s metadata, and an optional reference needs none.
  @usableFromInline
  final class Written {
    /// Unchecked, as `current` is (see there).
    @usableFromInline
    @exclusivity(unchecked) var value: V
    init(_ value: V) { self.value = value }
  }

  // MARK: - Paths and JSON

  /// The property a `view_state` row change's key names, if the row belongs to this part.
  private func property(of change: RowChange) -> String? {
    change.key["path"].flatMap(String.fromDatabaseValue).flatMap(property(ofPath:))
  }

  /// The property a path names, if the path belongs to this part.
  private func property(ofPath path: String) -> String? {
    if prefix.isEmpty { return path.contains(".") ? nil : path }
    guard path.hasPrefix(prefix + ".") else { return nil }
    let property = String(path.dropFirst(prefix.count + 1))
    return property.contains(".") ? nil : property
  }

  /// The JSON text of each top-level property of `value`. A property that encodes to nothing
  /// (an optional that is `nil`) while its default does not is written as `null`, so that it
  /// loads as `nil` rather than as its default.
  private func encodeRows(_ value: V) throws -> [String: String] {
    guard var members = try CompactJSONEncoder.encodeMembers(value) else {
      throw RewindError(.schemaMismatch, "view state \(V.self) does not encode as a JSON object")
    }
    for property in members.keys { _ = try ViewRows.checked(property, of: V.self) }
    for property in (defaults ?? [:]).keys where members[property] == nil { members[property] = "null" }
    return members
  }

  /// Throws unless the properties `V` lists (if it lists them) encode `value` as its
  /// `encode(to:)` does: `encoded`, one text per property.
  private func checkListed(_ value: V, encoded: [String: String]) throws {
    guard let listed, let disagreement = try ViewProperty.disagreement(of: listed, with: encoded, for: value) else {
      return
    }
    throw RewindError(
      .schemaMismatch,
      "\(V.self).viewProperties does not describe \(V.self) as its encode(to:) does: \(disagreement)")
  }

  /// The value the rows describe, each property without a row taking its default; `exact` is
  /// false when rows that do not decode were replaced by their defaults.
  private func decode(_ rows: [String: String]) throws -> (value: V, exact: Bool) {
    let defaults = defaults ?? [:]
    var merged = defaults.merging(rows) { $1 }
    func attempt() throws -> V {
      var text = "{"
      for (index, property) in merged.keys.sorted().enumerated() {
        if index > 0 { text += "," }
        JSONText.appendString(property, to: &text)
        text += ":" + merged[property, default: "null"]
      }
      text += "}"
      return try JSONDecoder().decode(V.self, from: Data(text.utf8))
    }
    do {
      return (try attempt(), true)
    } catch {
      // Start from the defaults and keep every stored property that still decodes with the
      // others (view state is a handful of properties).
      merged = defaults
      if (try? attempt()) != nil {
        for property in rows.keys.sorted() {
          let kept = merged
          merged[property] = rows[property]
          if (try? attempt()) == nil { merged = kept }
        }
        return (try attempt(), false)
      }
      throw RewindError(
        .corruptData, "view state at \(prefix.isEmpty ? "the root" : prefix) does not decode as \(V.self)",
        underlying: error)
    }
  }
}
