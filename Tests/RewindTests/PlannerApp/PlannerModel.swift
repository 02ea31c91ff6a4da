import Foundation
import GRDB

@testable import Rewind

/// A plain-Swift reference model of the planner's file: rows by table and key, the log, the
/// undo steps, with the history rules of the README (column-by-column undo, redo reverting what
/// the undo did, groups, view-only and non-undoable actions, catch-up of other writers).
///
/// Tables: `calendars`, `events`, `venues`, `attendees` (key: id; columns as text), `list`
/// (key: "list|id": owner ("" for a fixed list), position), `view` (key: path; value: a
/// canonical text of the typed value).
struct PlannerModel {
  struct Key: Hashable, Comparable {
    var table: String
    var key: String
    static func < (a: Key, b: Key) -> Bool { (a.table, a.key) < (b.table, b.key) }
  }
  typealias Row = [String: String]
  typealias Rows = [Key: Row]

  struct Change {
    var key: Key
    var before: Row?
    var after: Row?
  }

  struct LogEntry {
    var seq: Int64
    var kind: String
    var changes: [Change]
    var step: Int64?
    var group: String?
    var moved: Int64?
  }

  struct Step {
    var id: Int64
    var lastSeq: Int64
    var undone = false
    var applied: ClosedRange<Int64>?
  }

  enum Outcome: Equatable {
    case logged
    case unchanged
    case refused
  }

  static let entityTables = ["calendars", "events", "venues", "attendees"]
  static let defaults: [String: String] = [
    "mode": "\(PlannerView.Mode.week)", "zoom": "1.0", "agenda.query": "", "agenda.filter": "\(AgendaView.Filter.all)",
  ]

  var rows: Rows = [:]
  var log: [LogEntry] = []
  var states: [Int64: Rows] = [:]
  var steps: [Int64: Step] = [:]
  var lastSeq: Int64 = 0
  var seen: [Int64]

  init(storeCount: Int) {
    states[0] = [:]
    var initial: Rows = [:]
    for (path, value) in Self.defaults { initial[Key(table: "view", key: path)] = ["value": value] }
    seen = []
    append(kind: "initialize", changes: diff(from: rows, to: initial), undo: .none)
    seen = Array(repeating: lastSeq, count: storeCount)
  }

  // MARK: - Reading

  func exists(_ table: String, _ id: String, in rows: Rows) -> Bool { rows[Key(table: table, key: id)] != nil }

  /// A list's members (of one owner), in order.
  func members(_ list: String, owner: String, in rows: Rows) -> [(position: String, id: String)] {
    rows.compactMap { key, row -> (String, String)? in
      guard key.table == "list", key.key.hasPrefix(list + "|"), row["owner"] == owner else { return nil }
      return (row["position"]!, String(key.key.dropFirst(list.count + 1)))
    }.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : Array($0.1.utf8).lexicographicallyPrecedes(Array($1.1.utf8)) }
  }

  func owners(_ list: String, in rows: Rows) -> Set<String> {
    Set(rows.compactMap { key, row in key.table == "list" && key.key.hasPrefix(list + "|") ? row["owner"] : nil })
  }

  static func eventRow(_ e: PlannerEvent) -> Row {
    [
      "calendarId": e.calendarID, "title": e.title, "start": "\(e.start)", "weight": "\(e.weight)",
      "venueId": e.venueID ?? "NULL", "syncVersion": "\(e.syncVersion)",
    ]
  }

  /// The rows as the app's state, lists as arrays.
  func plain(_ rows: Rows) -> PlannerPlain {
    var s = PlannerState()
    for (key, row) in rows {
      switch key.table {
      case "calendars": s.calendars.insert(PlannerCalendar(id: key.key, name: row["name"]!, color: row["color"]!))
      case "venues": s.venues.insert(PlannerVenue(id: key.key, name: row["name"]!))
      case "attendees": s.attendees.insert(PlannerAttendee(id: key.key, eventID: row["eventId"]!, name: row["name"]!))
      case "events":
        s.events.insert(
          PlannerEvent(
            id: key.key, calendarID: row["calendarId"]!, title: row["title"]!, start: Int64(row["start"]!)!,
            weight: Double(row["weight"]!)!, venueID: row["venueId"] == "NULL" ? nil : row["venueId"],
            syncVersion: Int64(row["syncVersion"]!)!))
      default: break
      }
    }
    var plain = PlannerPlain(s)
    plain.calendarEvents = [:]
    for owner in owners("calendarEvents", in: rows) {
      plain.calendarEvents[owner] = members("calendarEvents", owner: owner, in: rows).map(\.id)
    }
    plain.eventAttendees = [:]
    for owner in owners("eventAttendees", in: rows) {
      plain.eventAttendees[owner] = members("eventAttendees", owner: owner, in: rows).map(\.id)
    }
    plain.starred = members("starred", owner: "", in: rows).map(\.id)
    return plain
  }

  /// The view state as canonical texts (a missing row is the default).
  func viewTexts(_ rows: Rows) -> [String: String] {
    var texts = Self.defaults
    for (key, row) in rows where key.table == "view" { texts[key.key] = row["value"] }
    return texts
  }

  static func viewTexts(_ state: PlannerState) -> [String: String] {
    var texts: [String: String] = [
      "mode": "\(state.view.mode)", "zoom": "\(state.view.zoom)", "agenda.query": state.agenda.view.query,
      "agenda.filter": "\(state.agenda.view.filter)",
    ]
    if let s = state.view.selection { texts["selection"] = s }
    if let s = state.view.sheet { texts["sheet"] = "\(s)" }
    if let s = state.agenda.view.focus { texts["agenda.focus"] = s }
    return texts
  }

  // MARK: - The app's actions, on rows

  /// The rows after the action, and whether the engine changed rows the reducer did not
  /// (children, list entries, SET NULL references of a deleted row): then the store repairs the
  /// view state in the same step.
  func reduce(_ action: PlannerAction, _ rows: Rows) -> (rows: Rows, cascaded: Bool) {
    var rows = rows
    var cascaded = false
    func entity(_ table: String, _ id: String) -> Key { Key(table: table, key: id) }
    func view(_ path: String) -> Key { Key(table: "view", key: path) }
    func listKey(_ list: String, _ id: String) -> Key { Key(table: "list", key: "\(list)|\(id)") }
    func append(_ id: String, to list: String, owner: String) {
      if let row = rows[listKey(list, id)], row["owner"] == owner { return }
      let current = members(list, owner: owner, in: rows)
      rows[listKey(list, id)] = ["owner": owner, "position": PositionKey.between(current.last?.position, nil)]
    }
    func setView(_ path: String, _ value: String?) { rows[view(path)] = value.map { ["value": $0] } }
    func cascade(_ key: Key, to row: Row?) {
      guard rows[key] != nil else { return }
      rows[key] = row
      cascaded = true
    }
    func delete(_ table: String, _ id: String, cascading: Bool = false) {
      guard rows[entity(table, id)] != nil else { return }
      rows[entity(table, id)] = nil
      if cascading { cascaded = true }
      // What the engine does: lists of its kind, lists it owns, children by foreign key.
      switch table {
      case "calendars":
        for (key, row) in rows where key.table == "events" && row["calendarId"] == id {
          delete("events", key.key, cascading: true)
        }
        for (key, row) in rows where key.table == "list" && key.key.hasPrefix("calendarEvents|") && row["owner"] == id {
          cascade(key, to: nil)
        }
      case "events":
        for (key, row) in rows where key.table == "attendees" && row["eventId"] == id {
          delete("attendees", key.key, cascading: true)
        }
        cascade(listKey("calendarEvents", id), to: nil)
        cascade(listKey("starred", id), to: nil)
        for (key, row) in rows where key.table == "list" && key.key.hasPrefix("eventAttendees|") && row["owner"] == id {
          cascade(key, to: nil)
        }
      case "attendees":
        cascade(listKey("eventAttendees", id), to: nil)
      case "venues":
        for (key, row) in rows where key.table == "events" && row["venueId"] == id {
          cascade(key, to: row.merging(["venueId": "NULL"]) { $1 })
        }
      default: break
      }
    }
    switch action {
    case .addCalendar(let id, let name):
      rows[entity("calendars", id)] = ["name": name, "color": "blue"]
    case .renameCalendar(let id, let name):
      rows[entity("calendars", id)]?["name"] = name
    case .deleteCalendar(let id):
      delete("calendars", id)
      if rows[view("sheet")]?["value"] == "\(PlannerView.Sheet.newEvent(calendar: id))" { setView("sheet", nil) }
    case .addEvent(let id, let calendar, let title, let start):
      guard exists("calendars", calendar, in: rows) else { break }
      rows[entity("events", id)] = Self.eventRow(PlannerEvent(id: id, calendarID: calendar, title: title, start: start))
      append(id, to: "calendarEvents", owner: calendar)
      setView("selection", id)
    case .typeTitle(let id, let text):
      if let title = rows[entity("events", id)]?["title"] { rows[entity("events", id)]?["title"] = title + text }
    case .setWeight(let id, let weight):
      if rows[entity("events", id)] != nil { rows[entity("events", id)]?["weight"] = "\(weight)" }
    case .setStart(let id, let start):
      if rows[entity("events", id)] != nil { rows[entity("events", id)]?["start"] = "\(start)" }
    case .reorder(let id, let offset):
      guard let owner = rows[listKey("calendarEvents", id)]?["owner"] else { break }
      var list = members("calendarEvents", owner: owner, in: rows)
      let index = list.firstIndex { $0.id == id }!
      let target = min(max(offset, 0), list.count - 1)
      guard index != target else { break }
      list.remove(at: index)
      rows[listKey("calendarEvents", id)]?["position"] = PositionKey.between(
        target > 0 ? list[target - 1].position : nil, target < list.count ? list[target].position : nil)
    case .moveEvent(let id, let calendar):
      guard exists("events", id, in: rows), exists("calendars", calendar, in: rows),
        rows[entity("events", id)]?["calendarId"] != calendar
      else { break }
      rows[entity("events", id)]?["calendarId"] = calendar
      append(id, to: "calendarEvents", owner: calendar)
    case .deleteEvent(let id):
      delete("events", id)
      if rows[view("selection")]?["value"] == id { setView("selection", nil) }
      if let sheet = rows[view("sheet")]?["value"],
        sheet == "\(PlannerView.Sheet.edit(id: id, draft: Self.draft(sheet)))"
      {
        setView("sheet", nil)
      }
    case .addVenue(let id, let name):
      rows[entity("venues", id)] = ["name": name]
    case .deleteVenue(let id):
      delete("venues", id)
    case .setVenue(let event, let venue):
      if rows[entity("events", event)] != nil { rows[entity("events", event)]?["venueId"] = venue ?? "NULL" }
    case .addAttendee(let id, let event, let name):
      guard exists("events", event, in: rows) else { break }
      rows[entity("attendees", id)] = ["eventId": event, "name": name]
      append(id, to: "eventAttendees", owner: event)
    case .star(let id):
      if rows[listKey("starred", id)] != nil {
        rows[listKey("starred", id)] = nil
      } else if exists("events", id, in: rows) {
        append(id, to: "starred", owner: "")
      }
    case .select(let id): setView("selection", id)
    case .setMode(let mode): setView("mode", "\(mode)")
    case .setZoom(let zoom): setView("zoom", "\(zoom)")
    case .present(let sheet): setView("sheet", sheet.map { "\($0)" })
    case .agenda(.setQuery(let q)): setView("agenda.query", q)
    case .agenda(.setFilter(let f)): setView("agenda.filter", "\(f)")
    case .agenda(.focus(let id)): setView("agenda.focus", id)
    case .sync(let id, let version):
      if rows[entity("events", id)] != nil { rows[entity("events", id)]?["syncVersion"] = "\(version)" }
    case .syncAddEvent(let id, let calendar):
      guard exists("calendars", calendar, in: rows) else { break }
      rows[entity("events", id)] = Self.eventRow(PlannerEvent(id: id, calendarID: calendar, title: "Synced \(id)"))
      append(id, to: "calendarEvents", owner: calendar)
    default:
      fatalError("not modelled: \(action)")
    }
    return (rows, cascaded)
  }

  static func draft(_ sheet: String) -> String {
    // "edit(id: \"evt-1\", draft: \"x\")": the generator uses the draft "d" only.
    "d"
  }

  func repaired(_ rows: Rows) -> Rows {
    var rows = rows
    let selection = Key(table: "view", key: "selection")
    if let id = rows[selection]?["value"], !exists("events", id, in: rows) { rows[selection] = nil }
    let sheet = Key(table: "view", key: "sheet")
    if let text = rows[sheet]?["value"] {
      let editOf = rows.keys.filter { $0.table == "events" }.contains {
        text == "\(PlannerView.Sheet.edit(id: $0.key, draft: "d"))"
      }
      let newIn = rows.keys.filter { $0.table == "calendars" }.contains {
        text == "\(PlannerView.Sheet.newEvent(calendar: $0.key))"
      }
      if !editOf && !newIn { rows[sheet] = nil }
    }
    return rows
  }

  // MARK: - History rules (after the journal app's HistoryModel)

  enum Undo {
    case none
    case step(String?)
    case joinLastStep
  }

  func diff(from old: Rows, to new: Rows, tables: Set<String>? = nil) -> [Change] {
    Set(old.keys).union(new.keys).sorted().compactMap { key in
      guard tables?.contains(key.table) ?? true, old[key] != new[key] else { return nil }
      return Change(key: key, before: old[key], after: new[key])
    }
  }

  var nextUndo: Int64? { steps.values.filter { !$0.undone }.map(\.id).max() }
  var nextRedo: Int64? { steps.values.filter(\.undone).map(\.id).min() }

  var topStepEntry: LogEntry? {
    guard
      let entry = log.last(where: {
        ($0.step != nil && $0.kind != "repair") || !["action", "repair", "initialize"].contains($0.kind)
      })
    else { return nil }
    guard let step = entry.step, step == nextUndo else { return nil }
    return entry
  }

  var openGroup: (step: Int64, key: String)? {
    guard let entry = topStepEntry, entry.kind == "action", let step = entry.step, let group = entry.group else {
      return nil
    }
    return (step, group)
  }

  var reloadedLastStep: Int64? { topStepEntry?.step }

  @discardableResult
  mutating func append(kind: String, changes: [Change], undo: Undo, lastStep: Int64? = nil, moved: Int64? = nil)
    -> Int64
  {
    let seq = lastSeq + 1
    if kind == "repair", let previous = log.last, previous.seq == lastSeq, let step = previous.moved,
      let applied = steps[step]?.applied, applied.upperBound == previous.seq
    {
      steps[step]?.applied = applied.lowerBound...seq
    }
    var step: Int64?
    var group: String?
    switch undo {
    case .none:
      break
    case .joinLastStep:
      step = lastStep
      if let lastStep { steps[lastStep]?.lastSeq = seq }
    case .step(let key):
      guard changes.contains(where: { $0.key.table != "view" }) else { break }
      steps = steps.filter { !$0.value.undone }
      if let key, let open = openGroup, open.key == key {
        step = open.step
        steps[open.step]?.lastSeq = seq
      } else {
        step = seq
        steps[seq] = Step(id: seq, lastSeq: seq)
      }
      group = key
    }
    for change in changes { rows[change.key] = change.after }
    log.append(
      LogEntry(seq: seq, kind: kind, changes: changes, step: step, group: step == nil ? nil : group, moved: moved))
    lastSeq = seq
    states[seq] = rows
    return seq
  }

  func net(_ entries: [LogEntry], byColumn: Bool = false) -> [Change] {
    var order: [Key] = []
    var merged: [Key: Change] = [:]
    for change in entries.flatMap(\.changes) {
      guard var existing = merged[change.key] else {
        order.append(change.key)
        merged[change.key] = change
        continue
      }
      if byColumn, var before = existing.before, var after = existing.after, let laterBefore = change.before,
        let laterAfter = change.after
      {
        for (column, value) in laterAfter where laterBefore[column] != value {
          if after[column] == before[column] { before[column] = laterBefore[column] }
          after[column] = value
        }
        (existing.before, existing.after) = (before, after)
      } else {
        existing.after = change.after
      }
      merged[change.key] = existing
    }
    return order.map { merged[$0]! }
  }

  func latestApplication(of step: Step) -> [Change] {
    if let applied = step.applied { return net(log.filter { applied.contains($0.seq) }) }
    let own = net(log.filter { $0.step == step.id }, byColumn: true)
    return step.undone ? own.reversed().map { Change(key: $0.key, before: $0.after, after: $0.before) } : own
  }

  /// The per-column revert; a list entry's owner and position go together.
  func revert(_ applied: [Change]) -> [Change] {
    applied.reversed().compactMap { change in
      let current = rows[change.key]
      var target: Row?
      switch (change.before, change.after) {
      case (nil, let after):
        if change.key.table == "view", let current, current != after { return nil }
        target = nil
      case (let before?, nil): target = current ?? before
      case (let before?, let after?):
        guard var row = current else { return nil }
        if change.key.table == "list" {
          if row == after { row = before }
        } else {
          for column in Set(before.keys).union(after.keys) where row[column] == after[column] {
            row[column] = before[column]
          }
        }
        target = row
      }
      return target == current ? nil : Change(key: change.key, before: current, after: target)
    }
  }

  /// An entry put back at a position another entry of its list (and owner) holds now gets a
  /// key just before it.
  func placingListEntriesApart(_ changes: [Change]) -> [Change] {
    let moving = Set(changes.filter { $0.key.table == "list" }.map(\.key))
    var placed: [String: Key] = [:]
    func list(of key: Key) -> String { String(key.key.split(separator: "|")[0]) }
    return changes.map { change in
      guard change.key.table == "list", var row = change.after, let wanted = row["position"] else { return change }
      let name = list(of: change.key) + "|" + row["owner"]!
      let entries = rows.filter { $0.key.table == "list" && list(of: $0.key) + "|" + $0.value["owner"]! == name }
      let taken =
        placed["\(name)|\(wanted)"].map { $0 != change.key }
        ?? entries.contains { $0.key != change.key && !moving.contains($0.key) && $0.value["position"] == wanted }
      var change = change
      if taken {
        var lower = entries.compactMap { $0.value["position"] }.filter { $0 < wanted }.max()
        for position in placed.keys.filter({ $0.hasPrefix(name + "|") }).map({ String($0.dropFirst(name.count + 1)) })
        where position < wanted && position > (lower ?? "") {
          lower = position
        }
        row["position"] = PositionKey.between(lower, wanted)
        change.after = row
      }
      placed["\(name)|\(row["position"]!)"] = change.key
      return change
    }
  }

  /// Whether the rows after `changes` break a relation: a list entry or a foreign key naming
  /// a missing row.
  func breaksInvariants(_ changes: [Change]) -> Bool {
    var after = rows
    for change in changes { after[change.key] = change.after }
    for (key, row) in after {
      switch key.table {
      case "events":
        if !exists("calendars", row["calendarId"]!, in: after) { return true }
        if let venue = row["venueId"], venue != "NULL", !exists("venues", venue, in: after) { return true }
      case "attendees":
        if !exists("events", row["eventId"]!, in: after) { return true }
      case "list":
        let parts = key.key.split(separator: "|", maxSplits: 1).map(String.init)
        switch parts[0] {
        case "calendarEvents":
          if !exists("events", parts[1], in: after) || !exists("calendars", row["owner"]!, in: after) { return true }
        case "eventAttendees":
          if !exists("attendees", parts[1], in: after) || !exists("events", row["owner"]!, in: after) { return true }
        default:
          if !exists("events", parts[1], in: after) { return true }
        }
      default: break
      }
    }
    return false
  }

  /// Whether `changes` only move view properties between no row and their default's row.
  func leavesStateAsIs(_ changes: [Change]) -> Bool {
    changes.allSatisfy { change in
      guard change.key.table == "view", let value = Self.defaults[change.key.key] else { return false }
      return (change.before == nil && change.after?["value"] == value)
        || (change.after == nil && change.before?["value"] == value)
    }
  }

  // MARK: - Operations

  mutating func transaction(store: Int, _ operation: (inout PlannerModel) -> Outcome) -> Outcome {
    var repairs: [Change] = []
    if seen[store] != lastSeq {
      seen[store] = lastSeq
      repairs = diff(from: rows, to: repaired(rows))
    }
    let saved = self
    if !repairs.isEmpty {
      append(kind: "repair", changes: repairs, undo: .joinLastStep, lastStep: reloadedLastStep)
    }
    seen[store] = lastSeq
    let outcome = operation(&self)
    seen[store] = lastSeq
    guard outcome == .refused else { return outcome }
    self = saved
    return .refused
  }

  mutating func send(_ action: PlannerAction, store: Int) -> Outcome {
    transaction(store: store) { model in
      let (new, cascaded) = model.reduce(action, model.rows)
      // A view property between no row and its default's row is no change of the state.
      let changes = model.diff(from: model.rows, to: new).filter { !model.leavesStateAsIs([$0]) }
      guard !changes.isEmpty else { return .unchanged }
      model.append(kind: "action", changes: changes, undo: action.isUndoable ? .step(action.undoGroup) : .none)
      // After a cascade the store repairs all of the view state (what pointed at a missing
      // row before the action too), in an entry of the same step.
      if cascaded { model.repairAfter(store: store) }
      return .logged
    }
  }

  mutating func move(undoing: Bool, store: Int) -> Outcome {
    transaction(store: store) { model in
      guard let id = undoing ? model.nextUndo : model.nextRedo, let step = model.steps[id] else { return .unchanged }
      let changes = model.placingListEntriesApart(model.revert(model.latestApplication(of: step)))
      if model.breaksInvariants(changes) { return .refused }
      let seq = model.append(kind: undoing ? "undo" : "redo", changes: changes, undo: .none, moved: id)
      model.steps[id]?.undone = undoing
      model.steps[id]?.applied = seq...seq
      model.repairAfter(store: store)
      return .logged
    }
  }

  mutating func jump(to seq: Int64, timeline: Timeline, store: Int) -> Outcome {
    transaction(store: store) { model in
      let tables: Set<String> =
        timeline == .all
        ? Set(Self.entityTables + ["list", "view"])
        : timeline == .document ? Set(Self.entityTables + ["list"]) : ["view"]
      let changes = model.diff(from: model.rows, to: model.states[seq]!, tables: tables)
      guard !changes.isEmpty, !model.leavesStateAsIs(changes) else { return .unchanged }
      model.append(kind: "jump", changes: changes, undo: .step(nil))
      model.repairAfter(store: store)
      return .logged
    }
  }

  private mutating func repairAfter(store: Int) {
    let repairs = diff(from: rows, to: repaired(rows))
    if !repairs.isEmpty {
      append(kind: "repair", changes: repairs, undo: .joinLastStep, lastStep: log.last!.step ?? nil)
    }
    seen[store] = lastSeq
  }

  mutating func reopen(store: Int) {
    let repairs = diff(from: rows, to: repaired(rows))
    if !repairs.isEmpty {
      append(kind: "repair", changes: repairs, undo: .joinLastStep, lastStep: reloadedLastStep)
    }
    seen[store] = lastSeq
  }

  var stacks: (undo: [Int64], redo: [Int64]) {
    (steps.values.filter { !$0.undone }.map(\.id).sorted(by: >), steps.values.filter(\.undone).map(\.id).sorted())
  }
}

// MARK: - Reading the file as the model's rows

func plannerFileRows(_ path: String) throws -> PlannerModel.Rows {
  let queue = try DatabaseQueue(path: path)
  defer { try? queue.close() }
  return try queue.read { db in
    var rows: PlannerModel.Rows = [:]
    func text(_ value: DatabaseValue) -> String {
      switch value.storage {
      case .null: "NULL"
      case .int64(let i): "\(i)"
      case .double(let d): "\(d)"
      case .string(let s): s
      case .blob(let b): "blob:\(b.count)"
      }
    }
    for table in PlannerModel.entityTables {
      for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table)") {
        var values: PlannerModel.Row = [:]
        for (column, value) in row where column != "id" { values[column] = text(value) }
        // Weight: a REAL read back as its Double's description.
        if table == "events", let w = values["weight"], let d = Double(w) { values["weight"] = "\(d)" }
        rows[PlannerModel.Key(table: table, key: row["id"])] = values
      }
    }
    for row in try Row.fetchAll(db, sql: "SELECT list, id, owner, position FROM list_entries") {
      let list: String = row["list"]
      let id: String = row["id"]
      let owner: String? = row["owner"]
      rows[PlannerModel.Key(table: "list", key: "\(list)|\(id)")] = ["owner": owner ?? "", "position": row["position"]]
    }
    let decoder = JSONDecoder()
    for row in try Row.fetchAll(db, sql: "SELECT path, value FROM view_state") {
      let path: String = row["path"]
      let json = Data((row["value"] as String).utf8)
      let value: String
      switch path {
      case "selection", "agenda.focus", "agenda.query": value = try decoder.decode(String.self, from: json)
      case "mode": value = "\(try decoder.decode(PlannerView.Mode.self, from: json))"
      case "zoom": value = "\(try decoder.decode(Double.self, from: json))"
      case "sheet": value = "\(try decoder.decode(PlannerView.Sheet.self, from: json))"
      case "agenda.filter": value = "\(try decoder.decode(AgendaView.Filter.self, from: json))"
      default: value = "unknown path \(path)"
      }
      rows[PlannerModel.Key(table: "view", key: path)] = ["value": value]
    }
    return rows
  }
}
