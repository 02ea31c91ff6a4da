import GRDB

/// Writes the text of an export, section by section, in the format's fixed layout.
///
/// Every export goes through it, whether its rows come from an in-memory image
/// (``StateRows``) or straight from the tables in key order (``TableScanExport``), so both
/// give the same bytes for the same state. The caller supplies the order: entity tables,
/// lists and view paths sorted, rows by key, list members by position.
struct ExportWriter {
  private var out: [UInt8] = []
  /// Items written so far in the open table, list or keyed list.
  private var items = 0
  /// Tables (or lists, or view paths) written so far in the open section.
  private var sectionItems = 0
  /// Owners written so far in the open keyed list, and the last one.
  private var owners = 0
  private var owner: DatabaseValue?

  /// Starts an export of app schema version `appSchema`, with the entities section open.
  init(appSchema: Int, reservingCapacity capacity: Int = 0) {
    out.reserveCapacity(capacity)
    append("{\n  \"format\": \"\(RewindDatabase.exportFormat)\",\n  \"version\": \(RewindDatabase.exportVersion),")
    // Written past 1, so that an import reads an earlier version's export through the
    // migrations since.
    if appSchema > 1 { append("\n  \"appSchema\": \(appSchema),") }
    append("\n  \"entities\": {")
  }

  // MARK: Entities

  mutating func beginTable(_ table: String) {
    beginSectionItem()
    JSONText.appendString(table, to: &out)
    append(": [")
    items = 0
  }

  /// Appends one row of the open table; `write` appends its JSON object.
  mutating func appendRow(_ write: (inout [UInt8]) -> Void) {
    append(items == 0 ? "\n      " : ",\n      ")
    items += 1
    write(&out)
  }

  mutating func appendRow(_ row: StateRows.Row?) {
    appendRow { JSONText.appendRow(row, to: &$0) }
  }

  mutating func endTable() {
    append(items == 0 ? "]" : "\n    ]")
  }

  // MARK: Lists

  mutating func beginLists() {
    append("\n  },\n  \"lists\": {")
    sectionItems = 0
  }

  mutating func beginList(_ list: String) {
    beginSectionItem()
    JSONText.appendString(list, to: &out)
    append(": [")
    (items, owners, owner) = (0, 0, nil)
  }

  /// Appends a member of the open list; members come in ``ListMember/precedes(_:_:)`` order.
  mutating func append(_ member: ListMember, keyed: Bool) {
    if keyed, owners == 0 || member.owner != owner {
      beginOwner(member.owner)
      owner = member.owner
    }
    appendID(member.id)
  }

  private mutating func appendID(_ id: DatabaseValue) {
    if items > 0 { out.append(UInt8(ascii: ",")) }
    items += 1
    JSONText.appendValue(id, to: &out)
  }

  /// Opens the ids of `owner` in a keyed list, closing the previous owner's.
  private mutating func beginOwner(_ owner: DatabaseValue) {
    if owners > 0 { append("]}") }
    append(owners == 0 ? "\n      " : ",\n      ")
    owners += 1
    append(#"{"owner":"#)
    JSONText.appendValue(owner, to: &out)
    append(#","ids":["#)
    items = 0
  }

  /// Closes the open list; `keyed` for a keyed list (one member array per owner).
  mutating func endList(keyed: Bool) {
    guard keyed else { return append("]") }
    append(owners == 0 ? "]" : "]}\n    ]")
  }

  // MARK: View state

  mutating func beginView() {
    append("\n  },\n  \"view\": {")
    sectionItems = 0
  }

  /// Appends a view-state path and its stored JSON text.
  mutating func appendView(path: String, value: String) {
    beginSectionItem()
    JSONText.appendString(path, to: &out)
    append(": " + value)
  }

  /// Closes the export and returns its text.
  ///
  /// Mutating, not consuming: the scan's closures hold the writer in a box, and consuming it
  /// there copied the whole text (100 MB at a million tasks) before appending its last bytes.
  mutating func finish() -> String {
    append("\n  }\n}\n")
    return String(decoding: out, as: UTF8.self)
  }

  private mutating func beginSectionItem() {
    append(sectionItems == 0 ? "\n    " : ",\n    ")
    sectionItems += 1
  }

  private mutating func append(_ text: String) {
    out.append(contentsOf: text.utf8)
  }
}

/// A member of an order list as an export writes it: in position order (then id), a keyed
/// list's members grouped by owner first.
struct ListMember {
  var owner: DatabaseValue
  var position: DatabaseValue
  var id: DatabaseValue

  /// A `list_entries` row's member; a fixed list's owner is ignored (NULL).
  init(_ entry: StateRows.Row, keyed: Bool) {
    owner = keyed ? entry["owner"] ?? .null : .null
    position = entry["position"] ?? .null
    id = entry["id"] ?? .null
  }

  init(owner: DatabaseValue, position: DatabaseValue, id: DatabaseValue) {
    (self.owner, self.position, self.id) = (owner, position, id)
  }

  /// The export's order: by owner, position and id, each as SQLite orders values.
  static func precedes(_ a: ListMember, _ b: ListMember) -> Bool {
    if a.owner != b.owner { return DatabaseValue.sqliteOrder(a.owner, b.owner) }
    if a.position != b.position { return DatabaseValue.sqliteOrder(a.position, b.position) }
    return DatabaseValue.sqliteOrder(a.id, b.id)
  }
}
