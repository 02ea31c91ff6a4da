import Foundation

@testable import Rewind

/// A reference model of Rewind's history rules in plain Swift values, no SQLite: the journal
/// app's rows, the log, the undo steps and their applications, groups, catch-up of other
/// writers, compaction. The model-based test compares the real file with it after every step.
///
/// Rows are column → text maps, keyed by table and key:
/// - `entries` (key: id): title, body, pinned ("0"/"1");
/// - `list` (key: "all|3"): position;
/// - `view` (key: property): value, a canonical text (`sort` holds "nil" for its null row).
struct HistoryModel {
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
    /// For an undo or redo: the step it moved.
    var moved: Int64?
  }

  struct Step {
    var id: Int64
    var lastSeq: Int64
    var undone = false
    var applied: ClosedRange<Int64>?
  }

  /// One store on the file: the seq its memory is at, its largest id since it loaded, and the
  /// tables' rebuilds it has read the tables after.
  struct StoreMemory {
    var seen: Int64
    var largest: Int64
    var rebuildsSeen = 0
  }

  enum Outcome: Equatable {
    case logged(Int64)
    case unchanged
    case refused
  }

  var rows: Rows = [:]
  var log: [LogEntry] = []
  var states: [Int64: Rows] = [:]
  var steps: [Int64: Step] = [:]
  var lastSeq: Int64 = 0
  var baseSeq: Int64 = 0
  var stores: [StoreMemory] = []
  /// How many times the tool rebuilt the tables (after a hand edit): no entry, but every store
  /// reads the tables again at its next write.
  var rebuilds = 0

  /// A new file opened by `storeCount` stores: the initialize entry holds the view's defaults.
  init(storeCount: Int) {
    states[0] = [:]
    let initial: Rows = [
      Key(table: "view", key: "search"): ["value": ""],
      Key(table: "view", key: "scroll"): ["value": "0.0"],
      Key(table: "view", key: "sort"): ["value": "title"],
    ]
    append(kind: "initialize", changes: diff(from: rows, to: initial), undo: .none)
    stores = Array(repeating: StoreMemory(seen: lastSeq, largest: 0), count: storeCount)
  }

  // MARK: - Reading

  func list(_ name: String, in rows: Rows) -> [(position: String, id: Int64)] {
    rows.compactMap { key, row -> (String, Int64)? in
      guard key.table == "list", key.key.hasPrefix(name + "|") else { return nil }
      return (row["position"]!, Int64(key.key.dropFirst(name.count + 1))!)
    }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
  }

  func exists(_ id: Int64, in rows: Rows) -> Bool { rows[Key(table: "entries", key: "\(id)")] != nil }

  func maxID(in rows: Rows) -> Int64 {
    rows.keys.filter { $0.table == "entries" }.compactMap { Int64($0.key) }.max() ?? 0
  }

  /// The rows as the app's state.
  func state(_ rows: Rows) -> JournalState {
    var state = JournalState()
    for (key, row) in rows where key.table == "entries" {
      let id = Int64(key.key)!
      state.entries.set(Entry(id: id, title: row["title"]!, body: row["body"]!, pinned: row["pinned"] == "1"), for: id)
    }
    state.all = OrderedIDList(list("all", in: rows).map(\.id))
    state.pinned = OrderedIDList(list("pinned", in: rows).map(\.id))
    func value(_ property: String) -> String? { rows[Key(table: "view", key: property)]?["value"] }
    state.view.selection = value("selection").flatMap { Int64($0) }
    state.view.search = value("search") ?? ""
    state.view.scroll = value("scroll").flatMap(Double.init) ?? 0
    state.view.modal = value("modal").map { $0 == "about" ? .about : .edit(id: Int64($0.dropFirst(5))!) }
    state.view.sort = value("sort").map { $0 == "nil" ? nil : $0 } ?? "title"
    return state
  }

  // MARK: - The app's actions, on rows

  /// What `action` does to `rows`, as the journal reducer does it; `largest` is the acting
  /// store's largest id (for new ids).
  func reduce(_ action: JournalAction, _ rows: Rows, largest: inout Int64) -> Rows {
    var rows = rows
    func entry(_ id: Int64) -> Key { Key(table: "entries", key: "\(id)") }
    func view(_ property: String) -> Key { Key(table: "view", key: property) }
    func listKey(_ list: String, _ id: Int64) -> Key { Key(table: "list", key: "\(list)|\(id)") }
    func newKey(_ list: [(position: String, id: Int64)], at offset: Int) -> String {
      PositionKey.between(
        offset > 0 ? list[offset - 1].position : nil, offset < list.count ? list[offset].position : nil)
    }
    func append(_ id: Int64, to name: String) {
      let members = self.list(name, in: rows)
      guard !members.contains(where: { $0.id == id }) else { return }
      rows[listKey(name, id)] = ["position": newKey(members, at: members.count)]
    }
    switch action {
    case .add(let title):
      largest += 1
      rows[entry(largest)] = ["title": title, "body": "", "pinned": "0"]
      append(largest, to: "all")
    case .rename(let id, let title), .syncRename(let id, let title):
      rows[entry(id)]?["title"] = title
    case .type(let id, let text):
      if let body = rows[entry(id)]?["body"] { rows[entry(id)]?["body"] = body + text }
    case .delete(let id), .syncDelete(let id):
      guard rows[entry(id)] != nil else { break }
      rows[entry(id)] = nil
      rows[listKey("all", id)] = nil
      rows[listKey("pinned", id)] = nil
    case .move(let id, let offset):
      var members = list("all", in: rows)
      guard let index = members.firstIndex(where: { $0.id == id }) else { break }
      guard index != min(max(offset, 0), members.count - 1) else { break }
      members.remove(at: index)
      rows[listKey("all", id)] = ["position": newKey(members, at: min(max(offset, 0), members.count))]
    case .pin(let id), .syncPin(let id):
      guard let row = rows[entry(id)] else { break }
      if row["pinned"] == "1" {
        rows[entry(id)]?["pinned"] = "0"
        rows[listKey("pinned", id)] = nil
      } else {
        rows[entry(id)]?["pinned"] = "1"
        append(id, to: "pinned")
      }
    case .select(let id):
      rows[view("selection")] = id.flatMap { exists($0, in: rows) ? ["value": "\($0)"] : nil }
    case .search(let text):
      rows[view("search")] = ["value": text]
    case .scroll(let offset):
      rows[view("scroll")] = ["value": "\(offset)"]
    case .present(let modal):
      if case .edit(let id)? = modal, !exists(id, in: rows) { break }
      rows[view("modal")] = modal.map { ["value": $0 == .about ? "about" : "edit:\(Self.id(of: $0))"] }
    case .setSort(let sort):
      rows[view("sort")] = ["value": sort ?? "nil"]
    }
    return rows
  }

  static func id(of modal: EntryModal) -> Int64 {
    if case .edit(let id) = modal { return id }
    return 0
  }

  /// The app's repair: a selection or an edit modal of an entry that no longer exists.
  func repaired(_ rows: Rows) -> Rows {
    var rows = rows
    if let id = rows[Key(table: "view", key: "selection")]?["value"].flatMap({ Int64($0) }), !exists(id, in: rows) {
      rows[Key(table: "view", key: "selection")] = nil
    }
    if let modal = rows[Key(table: "view", key: "modal")]?["value"], modal.hasPrefix("edit:"),
      !exists(Int64(modal.dropFirst(5))!, in: rows)
    {
      rows[Key(table: "view", key: "modal")] = nil
    }
    return rows
  }

  // MARK: - History rules

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

  /// The entry that logged the step on top of the undo stack, if it is the last entry that
  /// touched the stacks (repairs that joined its step aside), derived from the log as the
  /// engine does.
  var topStepEntry: LogEntry? {
    guard
      let entry = log.last(where: {
        ($0.step != nil && $0.kind != "repair") || !["action", "repair", "initialize"].contains($0.kind)
      })
    else { return nil }
    guard let step = entry.step, step == nextUndo else { return nil }
    return entry
  }

  /// The group an action with the same key joins: only an action's step stays open.
  var openGroup: (step: Int64, key: String)? {
    guard let entry = topStepEntry, entry.kind == "action", let step = entry.step, let group = entry.group else {
      return nil
    }
    return (step, group)
  }

  /// The step a repair joins when a store opens or catches up: the step on top of the undo
  /// stack, whatever logged it (an action, a jump, the tool's restore or import), which left
  /// what the repair mends, as it would have joined in the process that logged it.
  var reloadedLastStep: Int64? { topStepEntry?.step }

  /// Appends an entry (rows written), with the engine's step rules. Returns its seq.
  @discardableResult
  mutating func append(kind: String, changes: [Change], undo: Undo, lastStep: Int64? = nil, moved: Int64? = nil)
    -> Int64
  {
    let seq = lastSeq + 1
    // A repair right after an undo or redo belongs to that move's application.
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

  /// Changes merged per row: the first before and the last after. `byColumn` (a step's own
  /// entries, which may have other entries between them) merges updates column by column: a
  /// column is the step's only where one of its entries changed it.
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

  /// The per-column revert (see `HistoryLog.revert`).
  func revert(_ applied: [Change]) -> [Change] {
    applied.reversed().compactMap { change in
      let current = rows[change.key]
      var target: Row?
      switch (change.before, change.after) {
      case (nil, let after):
        // A view property set from nil since holds someone else's value: kept.
        if change.key.table == "view", let current, current != after { return nil }
        target = nil
      case (let before?, nil): target = current ?? before
      case (let before?, let after?):
        guard var row = current else { return nil }
        for column in Set(before.keys).union(after.keys) where row[column] == after[column] {
          row[column] = before[column]
        }
        target = row
      }
      return target == current ? nil : Change(key: change.key, before: current, after: target)
    }
  }

  /// The engine's placement of the list entries a revert puts back (see
  /// `HistoryLog.placingListEntriesApart`): one put back at a position that another entry of
  /// its list holds now (one the changes do not move) or that an earlier change put one at
  /// gets a key just before it, after every entry below it.
  func placingListEntriesApart(_ changes: [Change]) -> [Change] {
    let moving = Set(changes.filter { $0.key.table == "list" }.map(\.key))
    var placed: [String: Key] = [:]  // "list|position": the entry an earlier change put there
    func list(of key: Key) -> String { String(key.key.split(separator: "|")[0]) }
    return changes.map { change in
      guard change.key.table == "list", var row = change.after, let wanted = row["position"] else { return change }
      let name = list(of: change.key)
      let entries = rows.filter { $0.key.table == "list" && list(of: $0.key) == name }
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

  func breaksInvariants(_ changes: [Change]) -> Bool {
    var after = rows
    for change in changes { after[change.key] = change.after }
    for change in changes {
      if change.key.table == "list", change.after != nil,
        !exists(Int64(change.key.key.split(separator: "|")[1])!, in: after)
      {
        return true
      }
      if change.key.table == "entries", change.after == nil, change.before != nil {
        if after[Key(table: "list", key: "all|\(change.key.key)")] != nil
          || after[Key(table: "list", key: "pinned|\(change.key.key)")] != nil
        {
          return true
        }
      }
    }
    return false
  }

  // MARK: - Operations

  /// A store's write transaction: it first follows the entries it has not seen (reading the
  /// tables if they were compacted away) and repairs; then `operation` runs. The repair commits
  /// only with the operation: if the operation is refused, the transaction rolls back and the
  /// store reads the file again. An injected failure makes the transaction's first log insert
  /// fail (the repair's, if there is one).
  mutating func transaction(
    store: Int, failing: Bool, reducesFirst: Bool = false, _ operation: (inout HistoryModel) -> Outcome
  ) -> Outcome {
    let seen = stores[store].seen
    let rebuilt = stores[store].rebuildsSeen != rebuilds
    stores[store].rebuildsSeen = rebuilds
    var repairs: [Change] = []
    if seen != lastSeq || rebuilt {
      if baseSeq > seen || rebuilt {
        stores[store].largest = maxID(in: rows)
      } else {
        for entry in log where entry.seq > seen { bump(store, entry.changes) }
      }
      stores[store].seen = lastSeq
      repairs = diff(from: rows, to: repaired(rows))
    }
    if failing, !repairs.isEmpty {
      stores[store].largest = maxID(in: rows)
      return .refused
    }
    let saved = self
    if !repairs.isEmpty {
      append(kind: "repair", changes: repairs, undo: .joinLastStep, lastStep: reloadedLastStep)
    }
    stores[store].seen = lastSeq
    let outcome = failing ? Self.failing(operation, &self, store: store, reducesFirst: reducesFirst) : operation(&self)
    stores[store].seen = lastSeq
    guard outcome == .refused else { return outcome }
    let largest = stores[store].largest
    self = saved
    stores[store].largest = repairs.isEmpty ? largest : maxID(in: rows)
    return .refused
  }

  /// Runs an operation whose first log insert fails: it is refused if it would log anything.
  /// A send's reducer has run by then (a new id stays taken); a history operation fails before
  /// memory moves.
  private static func failing(
    _ operation: (inout HistoryModel) -> Outcome, _ model: inout HistoryModel, store: Int, reducesFirst: Bool
  ) -> Outcome {
    var trial = model
    let outcome = operation(&trial)
    if outcome == .unchanged {
      model = trial
      return .unchanged
    }
    if reducesFirst { model.stores[store].largest = trial.stores[store].largest }
    return .refused
  }

  mutating func send(_ action: JournalAction, store: Int, failing: Bool) -> Outcome {
    transaction(store: store, failing: failing, reducesFirst: true) { model in
      var largest = model.stores[store].largest
      let new = model.reduce(action, model.rows, largest: &largest)
      model.stores[store].largest = largest
      let changes = model.diff(from: model.rows, to: new)
      guard !changes.isEmpty else { return .unchanged }
      return .logged(
        model.append(kind: "action", changes: changes, undo: action.isUndoable ? .step(action.undoGroup) : .none))
    }
  }

  /// Undo (`undoing`) or redo, by a store (which repairs) or by the tool (which cannot).
  mutating func move(undoing: Bool, store: Int?, failing: Bool) -> Outcome {
    guard let store else { return moveStep(undoing: undoing, store: nil) }
    return transaction(store: store, failing: failing) { $0.moveStep(undoing: undoing, store: store) }
  }

  private mutating func moveStep(undoing: Bool, store: Int?) -> Outcome {
    guard let id = undoing ? nextUndo : nextRedo, let step = steps[id] else { return .unchanged }
    let changes = placingListEntriesApart(revert(latestApplication(of: step)))
    if breaksInvariants(changes) { return .refused }
    let seq = append(kind: undoing ? "undo" : "redo", changes: changes, undo: .none, moved: id)
    steps[id]?.undone = undoing
    steps[id]?.applied = seq...seq
    if let store {
      bump(store, changes)
      repairAfter(store: store, lastStep: nil)
    }
    return .logged(seq)
  }

  mutating func jump(to seq: Int64, timeline: Timeline, store: Int, failing: Bool) -> Outcome {
    transaction(store: store, failing: failing) { model in
      let tables: Set<String> =
        timeline == .all ? ["entries", "list", "view"] : timeline == .document ? ["entries", "list"] : ["view"]
      let changes = model.diff(from: model.rows, to: model.states[seq]!, tables: tables)
      guard !changes.isEmpty else { return .unchanged }
      let entry = model.append(kind: "jump", changes: changes, undo: .step(nil))
      model.bump(store, changes)
      model.repairAfter(store: store, lastStep: model.log.last!.step)
      return .logged(entry)
    }
  }

  private mutating func bump(_ store: Int, _ changes: [Change]) {
    for change in changes where change.key.table == "entries" && change.after != nil {
      stores[store].largest = max(stores[store].largest, Int64(change.key.key)!)
    }
  }

  private mutating func repairAfter(store: Int, lastStep: Int64?) {
    let repairs = diff(from: rows, to: repaired(rows))
    if !repairs.isEmpty { append(kind: "repair", changes: repairs, undo: .joinLastStep, lastStep: lastStep) }
    stores[store].seen = lastSeq
  }

  /// Opening (or reloading) a store: read the tables, repair.
  mutating func reopen(store: Int) {
    stores[store].largest = maxID(in: rows)
    stores[store].rebuildsSeen = rebuilds
    repairAfter(store: store, lastStep: reloadedLastStep)
  }

  mutating func restore(to seq: Int64) -> Outcome {
    let changes = diff(from: rows, to: states[seq]!)
    guard !changes.isEmpty else { return .unchanged }
    return .logged(append(kind: "restore", changes: changes, undo: .step(nil)))
  }

  /// The tool's import of its own export at `seq`: the state of `seq`, with each list's
  /// position keys kept if its order is unchanged and numbered afresh otherwise.
  mutating func importState(at seq: Int64) -> Outcome {
    var target = states[seq]!.filter { $0.key.table != "list" }
    for name in ["all", "pinned"] {
      let current = list(name, in: rows)
      let wanted = list(name, in: states[seq]!).map(\.id)
      if current.map(\.id) == wanted {
        for member in current {
          target[Key(table: "list", key: "\(name)|\(member.id)")] = ["position": member.position]
        }
      } else {
        var position: String?
        for id in wanted {
          position = PositionKey.between(position, nil)
          target[Key(table: "list", key: "\(name)|\(id)")] = ["position": position!]
        }
      }
    }
    let changes = diff(from: rows, to: target)
    guard !changes.isEmpty else { return .unchanged }
    return .logged(append(kind: "import", changes: changes, undo: .step(nil)))
  }

  mutating func compact(keep: Int) -> Outcome {
    let redoNeeds = steps.values.filter(\.undone).map(\.id).min()
    let base = min(lastSeq - Int64(keep), (redoNeeds ?? .max) - 1)
    guard base > baseSeq else { return .unchanged }
    log.removeAll { $0.seq <= base }
    for index in log.indices where (log[index].step ?? .max) <= base { log[index].step = nil }
    steps = steps.filter { $0.key > base || $0.value.undone }
    baseSeq = base
    return .logged(append(kind: "compact", changes: [], undo: .none))
  }

  /// The seqs of the entries of step `id`, in order: what its description lists.
  func seqs(ofStep id: Int64) -> [Int64] { log.filter { $0.step == id }.map(\.seq) }

  /// The undo stack (next first) and the redo stack (next first), as step ids.
  var stacks: (undo: [Int64], redo: [Int64]) {
    (steps.values.filter { !$0.undone }.map(\.id).sorted(by: >), steps.values.filter(\.undone).map(\.id).sorted())
  }
}
