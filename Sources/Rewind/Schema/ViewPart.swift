import Foundation
import GRDB

/// A `Codable` view-state value persisted as `view_state` rows, one per top-level property.
///
/// View state is small and bounded (selection, modal, search text, scroll offset), so finding
/// what changed compares the value with the last one written (`==`, cheap) and, only when it
/// differs, encodes it and compares the JSON of each property with the rows last written. That
/// work follows the size of the view state, never the number of entities.
final class ViewPart<Root, V: Codable & Equatable & Sendable>: StatePart {
  static var table: String { "view_state" }
  let keyPath: WritableKeyPath<Root, V>
  let prefix: String
  /// The value and rows as last written or loaded: what the next change is compared with.
  private var current: V?
  private var currentRows: [String: String] = [:]

  init(keyPath: WritableKeyPath<Root, V>, prefix: String) {
    self.keyPath = keyPath
    self.prefix = prefix
  }

  func prepare(_ db: Database) throws {}

  func load(_ db: Database, into root: inout Root) throws {
    let pattern = prefix.isEmpty ? "%" : prefix + ".%"
    let rows = try Row.fetchAll(
      db, sql: "SELECT path, value FROM view_state WHERE path LIKE ? ESCAPE '\\'",
      arguments: [pattern.replacingOccurrences(of: "_", with: "\\_")])
    // Start from the initial value's rows, so properties added since the file was written
    // keep their defaults; then take every stored row of this part.
    var merged = try encodeRows(root[keyPath: keyPath])
    for row in rows {
      let path: String = row["path"]
      if let property = property(ofPath: path) { merged[property] = row["value"] }
    }
    let value = try decode(merged)
    current = value
    currentRows = try encodeRows(value)
    root[keyPath: keyPath] = value
  }

  func takeChanges(from root: inout Root, into changes: inout [RowChange]) throws {
    let value = root[keyPath: keyPath]
    if let current, current == value { return }
    let rows = try encodeRows(value)
    for property in Set(rows.keys).union(currentRows.keys).sorted() {
      let before = currentRows[property]
      let after = rows[property]
      if before != after { changes.append(change(property, before: before, after: after)) }
    }
    current = value
    currentRows = rows
  }

  func rows(of root: Root, into changes: inout [RowChange]) throws {
    for (property, json) in try encodeRows(root[keyPath: keyPath]).sorted(by: { $0.key < $1.key }) {
      changes.append(change(property, before: nil, after: json))
    }
  }

  func rowCount(of root: Root) -> Int { currentRows.count }

  func owns(_ change: RowChange) -> Bool {
    guard change.table == Self.table, let path = change.key["path"].flatMap(String.fromDatabaseValue)
    else { return false }
    return property(ofPath: path) != nil
  }

  func apply(_ change: RowChange, _ direction: ChangeDirection, to root: inout Root) throws {
    guard let path = change.key["path"].flatMap(String.fromDatabaseValue),
      let property = property(ofPath: path)
    else {
      throw RewindError(.corruptData, "a view-state change has no valid path")
    }
    var rows = currentRows
    rows[property] = change.target(direction)?["value"].flatMap(String.fromDatabaseValue)
    let value = try decode(rows)
    current = value
    currentRows = rows
    root[keyPath: keyPath] = value
  }

  func pulledBack<Parent>(
    along keyPath: WritableKeyPath<Parent, Root>, viewPrefix: String
  ) -> any StatePart<Parent> {
    let prefix = [viewPrefix, self.prefix].filter { !$0.isEmpty }.joined(separator: ".")
    return ViewPart<Parent, V>(keyPath: keyPath.appending(path: self.keyPath), prefix: prefix)
  }

  // MARK: - Paths and JSON

  private func path(of property: String) -> String {
    prefix.isEmpty ? property : prefix + "." + property
  }

  /// The property a path names, if the path belongs to this part.
  private func property(ofPath path: String) -> String? {
    if prefix.isEmpty { return path.contains(".") ? nil : path }
    guard path.hasPrefix(prefix + ".") else { return nil }
    let property = String(path.dropFirst(prefix.count + 1))
    return property.contains(".") ? nil : property
  }

  private func change(_ property: String, before: String?, after: String?) -> RowChange {
    let key: [String: DatabaseValue] = ["path": path(of: property).databaseValue]
    func row(_ json: String?) -> [String: DatabaseValue]? {
      json.map { key.merging(["value": $0.databaseValue]) { $1 } }
    }
    return RowChange(table: Self.table, key: key, before: row(before), after: row(after))
  }

  /// The JSON text of each top-level property of `value`.
  private func encodeRows(_ value: V) throws -> [String: String] {
    let text = try CompactJSONEncoder.encode(value)
    guard let members = JSONObjectMembers.split(text) else {
      throw RewindError(.schemaMismatch, "view state \(V.self) does not encode as a JSON object")
    }
    return members
  }

  private func decode(_ rows: [String: String]) throws -> V {
    var text = "{"
    for (index, property) in rows.keys.sorted().enumerated() {
      if index > 0 { text += "," }
      JSONText.appendString(property, to: &text)
      text += ":" + rows[property]!
    }
    text += "}"
    do {
      return try JSONDecoder().decode(V.self, from: Data(text.utf8))
    } catch {
      throw RewindError(.corruptData, "view state at \(prefix.isEmpty ? "the root" : prefix) does not decode as \(V.self)", underlying: error)
    }
  }
}

/// Splits the text of a JSON object into its members' keys and value texts, byte for byte.
enum JSONObjectMembers {
  /// The first key of a JSON object's text, when it needs no unescaping.
  static func firstKey(_ text: String) -> String? {
    var utf8 = text.utf8[...]
    guard utf8.popFirst() == UInt8(ascii: "{"), utf8.popFirst() == UInt8(ascii: "\"") else { return nil }
    guard let end = utf8.firstIndex(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }),
      utf8[end] == UInt8(ascii: "\"")
    else { return nil }
    return String(utf8[..<end])
  }

  static func split(_ text: String) -> [String: String]? {
    let bytes = Array(text.utf8)
    guard bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else { return nil }
    var members: [String: String] = [:]
    var index = 1
    while index < bytes.count - 1 {
      // Key.
      guard bytes[index] == UInt8(ascii: "\"") else { return nil }
      let keyEnd = endOfString(bytes, from: index)
      let rawKey = bytes[(index + 1)..<(keyEnd - 1)]
      // Keys are coding keys: they need unescaping only if they contain a backslash.
      let key: String
      if rawKey.contains(UInt8(ascii: "\\")) {
        guard case .string(let decoded)? = try? JSONValue.parse(String(decoding: bytes[index..<keyEnd], as: UTF8.self))
        else { return nil }
        key = decoded
      } else {
        key = String(decoding: rawKey, as: UTF8.self)
      }
      guard keyEnd < bytes.count, bytes[keyEnd] == UInt8(ascii: ":") else { return nil }
      // Value: up to the next comma at depth zero, outside strings.
      let valueStart = keyEnd + 1
      var position = valueStart
      var depth = 0
      while position < bytes.count - 1 {
        let byte = bytes[position]
        if byte == UInt8(ascii: "\"") {
          position = endOfString(bytes, from: position)
          continue
        }
        if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { depth += 1 }
        if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") { depth -= 1 }
        if byte == UInt8(ascii: ","), depth == 0 { break }
        position += 1
      }
      members[key] = String(decoding: bytes[valueStart..<position], as: UTF8.self)
      index = position + 1
    }
    return members
  }

  /// The index just past the string literal that starts at `start`.
  private static func endOfString(_ bytes: [UInt8], from start: Int) -> Int {
    var position = start + 1
    while position < bytes.count {
      if bytes[position] == UInt8(ascii: "\\") {
        position += 2
        continue
      }
      if bytes[position] == UInt8(ascii: "\"") { return position + 1 }
      position += 1
    }
    return position
  }
}
