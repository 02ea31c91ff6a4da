import Foundation

@testable import Rewind

/// A plain-Swift reference model of the inbox on a file, following the README's history rules:
/// rows as column -> text, per-column undo against the current rows, steps, groups, repairs.
/// Tables: "c" (conversations: title, muted), "m" (messages: conv, body, read, score),
/// "list" (key "conversationMessages|<id>" or "pinned|<id>": owner, position),
/// "view" (selection, highlighted, route: canonical texts, always present).
struct InboxModel {
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
  struct Entry {
    var seq: Int64
    var kind: String
    var changes: [Change]
    var step: Int64?
    var group: String?
    var moved: Int64?
  }
  struct Step {
    var id: Int64
    var undone = false
    var applied: ClosedRange<Int64>?
  }
  enum Outcome: Equatable {
    case logged(Int64)
    case unchanged, refused
  }

  var rows: Rows
  var log: [Entry] = []
  var states: [Int64: Rows] = [:]
  var steps: [Int64: Step] = [:]
  var lastSeq: Int64

  static let defaultView: Rows = [
    Key(table: "view", key: "selection"): ["v": "nil"],
    Key(table: "view", key: "highlighted"): ["v": "nil"],
    Key(table: "view", key: "route"): ["v": "list"],
  ]

  init(lastSeq: Int64) {
    rows = Self.defaultView
    self.lastSeq = lastSeq
    for s in 0...lastSeq { states[s] = rows }
  }

  // MARK: reading

  func list(_ name: String, owner: String, in rows: Rows) -> [(position: String, id: String)] {
    rows.compactMap { key, row -> (String, String)? in
      guard key.table == "list" else { return nil }
      let parts = key.key.split(separator: "|", maxSplits: 1).map(String.init)
      guard parts[0] == name, row["owner"] == owner else { return nil }
      return (row["position"]!, parts[1])
    }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
  }

  func view(_ p: String, _ rows: Rows) -> String { rows[Key(table: "view", key: p)]!["v"]! }

  func diff(from old: Rows, to new: Rows, tables: Set<String>? = nil) -> [Change] {
    Set(old.keys).union(new.keys).sorted().compactMap { key in
      guard tables?.contains(key.table) ?? true, old[key] != new[key] else { return nil }
      return Change(key: key, before: old[key], after: new[key])
    }
  }

  func repaired(_ rows: Rows) -> Rows {
    var r = rows
    let sel = view("selection", r)
    if sel != "nil", r[Key(table: "c", key: sel)] == nil { r[Key(table: "view", key: "selection")] = ["v": "nil"] }
    let hl = view("highlighted", r)
    if hl != "nil", r[Key(table: "m", key: hl)] == nil { r[Key(table: "view", key: "highlighted")] = ["v": "nil"] }
    let route = view("route", r)
    if route.hasPrefix("conv:") {
      let id = String(route.dropFirst(5).split(separator: ":")[0])
      if r[Key(table: "c", key: id)] == nil { r[Key(table: "view", key: "route")] = ["v": "list"] }
    }
    return r
  }

  // MARK: the reducer, on rows

  func reduce(_ action: InboxAction, _ rows: Rows) -> Rows {
    var r = rows
    func setView(_ p: String, _ v: String) { r[Key(table: "view", key: p)] = ["v": v] }
    func appendEntry(_ list: String, _ id: String, owner: String) {
      let key = Key(table: "list", key: "\(list)|\(id)")
      guard r[key] == nil else { return }
      let last = self.list(list, owner: owner, in: r).last?.position
      r[key] = ["owner": owner, "position": PositionKey.between(last, nil)]
    }
    func removeMessage(_ mid: String) -> Bool {
      guard r.removeValue(forKey: Key(table: "m", key: mid)) != nil else { return false }
      r[Key(table: "list", key: "conversationMessages|\(mid)")] = nil
      if view("highlighted", r) == mid { setView("highlighted", "nil") }
      return true
    }
    switch action {
    case .createConversation(let id, let title, _):
      r[Key(table: "c", key: id.uuidString)] = ["title": title, "muted": "0"]
      setView("selection", id.uuidString)
    case .renameConversation(let id, let title), .syncRename(let id, let title):
      r[Key(table: "c", key: id.uuidString)]?["title"] = title
    case .toggleMute(let id):
      if let m = r[Key(table: "c", key: id.uuidString)]?["muted"] {
        r[Key(table: "c", key: id.uuidString)]!["muted"] = m == "0" ? "1" : "0"
      }
    case .deleteConversation(let id):
      let cid = id.uuidString
      guard r.removeValue(forKey: Key(table: "c", key: cid)) != nil else { break }
      let doomed = r.filter { $0.key.table == "m" && $0.value["conv"] == cid }.map(\.key.key)
      for mid in doomed {
        r[Key(table: "m", key: mid)] = nil
        r[Key(table: "list", key: "conversationMessages|\(mid)")] = nil
      }
      r[Key(table: "list", key: "pinned|\(cid)")] = nil
      if view("selection", r) == cid { setView("selection", "nil") }
      if doomed.contains(view("highlighted", r)) { setView("highlighted", "nil") }
      if view("route", r).hasPrefix("conv:\(cid):") { setView("route", "list") }
    case .post(let id, let conv, let body, _, _, _):
      guard r[Key(table: "c", key: conv.uuidString)] != nil else { break }
      r[Key(table: "m", key: id.uuidString)] = ["conv": conv.uuidString, "body": body, "read": "1", "score": "0.0"]
      appendEntry("conversationMessages", id.uuidString, owner: conv.uuidString)
    case .syncReceive(let id, let conv, let body, _, _):
      guard r[Key(table: "c", key: conv.uuidString)] != nil, r[Key(table: "m", key: id.uuidString)] == nil else {
        break
      }
      r[Key(table: "m", key: id.uuidString)] = ["conv": conv.uuidString, "body": body, "read": "0", "score": "0.0"]
      appendEntry("conversationMessages", id.uuidString, owner: conv.uuidString)
    case .type(let id, let text):
      if let b = r[Key(table: "m", key: id.uuidString)]?["body"] {
        r[Key(table: "m", key: id.uuidString)]!["body"] = b + text
      }
    case .markRead(let id, let read):
      if r[Key(table: "m", key: id.uuidString)] != nil {
        r[Key(table: "m", key: id.uuidString)]!["read"] = read ? "1" : "0"
      }
    case .syncRead(let id):
      if r[Key(table: "m", key: id.uuidString)] != nil { r[Key(table: "m", key: id.uuidString)]!["read"] = "1" }
    case .setScore(let id, let s):
      if r[Key(table: "m", key: id.uuidString)] != nil { r[Key(table: "m", key: id.uuidString)]!["score"] = "\(s)" }
    case .deleteMessage(let id), .syncDeleteMessage(let id):
      _ = removeMessage(id.uuidString)
    case .moveMessage(let id, let offset):
      let key = Key(table: "list", key: "conversationMessages|\(id.uuidString)")
      guard let entry = r[key], let owner = entry["owner"] else { break }
      let members = list("conversationMessages", owner: owner, in: r)
      let target = min(max(offset, 0), members.count - 1)
      guard members.firstIndex(where: { $0.id == id.uuidString }) != target else { break }
      let others = members.filter { $0.id != id.uuidString }
      let lower = target > 0 ? others[target - 1].position : nil
      let upper = target < others.count ? others[target].position : nil
      r[key] = ["owner": owner, "position": PositionKey.between(lower, upper)]
    case .moveToConversation(let id, let conv):
      let mkey = Key(table: "m", key: id.uuidString)
      guard let m = r[mkey], m["conv"] != conv.uuidString, r[Key(table: "c", key: conv.uuidString)] != nil else {
        break
      }
      r[mkey]!["conv"] = conv.uuidString
      let lkey = Key(table: "list", key: "conversationMessages|\(id.uuidString)")
      r[lkey] = nil
      appendEntry("conversationMessages", id.uuidString, owner: conv.uuidString)
    case .togglePin(let id):
      let key = Key(table: "list", key: "pinned|\(id.uuidString)")
      if r[key] != nil {
        r[key] = nil
      } else if r[Key(table: "c", key: id.uuidString)] != nil {
        appendEntry("pinned", id.uuidString, owner: "")
      }
    case .select(let id): setView("selection", id?.uuidString ?? "nil")
    case .highlight(let id): setView("highlighted", id?.uuidString ?? "nil")
    case .navigate(let route):
      switch route {
      case .conversation(let id, let scroll): setView("route", "conv:\(id.uuidString):\(scroll)")
      default: setView("route", "list")
      }
    default: fatalError("not modelled: \(action)")
    }
    return r
  }

  // MARK: history

  var nextUndo: Int64? { steps.values.filter { !$0.undone }.map(\.id).max() }
  var nextRedo: Int64? { steps.values.filter(\.undone).map(\.id).min() }

  var topStepEntry: Entry? {
    guard
      let e = log.last(where: { ($0.step != nil && $0.kind != "repair") || !["action", "repair"].contains($0.kind) }),
      let step = e.step, step == nextUndo
    else { return nil }
    return e
  }

  enum Undo {
    case none
    case step(String?)
    case join(Int64?)
  }

  @discardableResult
  mutating func append(kind: String, changes: [Change], undo: Undo, moved: Int64? = nil) -> Int64 {
    let seq = lastSeq + 1
    if kind == "repair", let prev = log.last, prev.seq == lastSeq, let s = prev.moved, let applied = steps[s]?.applied,
      applied.upperBound == prev.seq
    {
      steps[s]?.applied = applied.lowerBound...seq
    }
    var step: Int64?
    var group: String?
    switch undo {
    case .none: break
    case .join(let s): step = s
    case .step(let key):
      guard changes.contains(where: { $0.key.table != "view" }) else { break }
      steps = steps.filter { !$0.value.undone }
      if let key, let top = topStepEntry, top.kind == "action", let g = top.group, g == key, let s = top.step {
        step = s
      } else {
        step = seq
        steps[seq] = Step(id: seq)
      }
      group = key
    }
    for c in changes { rows[c.key] = c.after }
    log.append(
      Entry(seq: seq, kind: kind, changes: changes, step: step, group: step == nil ? nil : group, moved: moved))
    lastSeq = seq
    states[seq] = rows
    return seq
  }

  func net(_ entries: [Entry], byColumn: Bool = false) -> [Change] {
    var order: [Key] = []
    var merged: [Key: Change] = [:]
    for change in entries.flatMap(\.changes) {
      guard var e = merged[change.key] else {
        order.append(change.key)
        merged[change.key] = change
        continue
      }
      if byColumn, var before = e.before, var after = e.after, let lb = change.before, let la = change.after {
        for (column, value) in la where lb[column] != value {
          if after[column] == before[column] { before[column] = lb[column] }
          after[column] = value
        }
        (e.before, e.after) = (before, after)
      } else {
        e.after = change.after
      }
      merged[change.key] = e
    }
    return order.map { merged[$0]! }
  }

  func latestApplication(of step: Step) -> [Change] {
    if let applied = step.applied { return net(log.filter { applied.contains($0.seq) }) }
    let own = net(log.filter { $0.step == step.id }, byColumn: true)
    return step.undone ? own.reversed().map { Change(key: $0.key, before: $0.after, after: $0.before) } : own
  }

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
        for column in Set(before.keys).union(after.keys) where row[column] == after[column] {
          row[column] = before[column]
        }
        target = row
      }
      return target == current ? nil : Change(key: change.key, before: current, after: target)
    }
  }

  /// An entry put back where another entry of its list (and owner) is now gets a key just before it.
  func placingApart(_ changes: [Change]) -> [Change] {
    let moving = Set(changes.filter { $0.key.table == "list" }.map(\.key))
    var placed: [String: Key] = [:]
    func name(_ k: Key) -> String { String(k.key.split(separator: "|")[0]) }
    return changes.map { change in
      guard change.key.table == "list", var row = change.after, let wanted = row["position"], let owner = row["owner"]
      else {
        return change
      }
      let group = "\(name(change.key))|\(owner)"
      let entries = rows.filter {
        $0.key.table == "list" && name($0.key) == name(change.key) && $0.value["owner"] == owner
      }
      let taken =
        placed["\(group)|\(wanted)"].map { $0 != change.key }
        ?? entries.contains { $0.key != change.key && !moving.contains($0.key) && $0.value["position"] == wanted }
      var change = change
      if taken {
        var lower = entries.compactMap { $0.value["position"] }.filter { $0 < wanted }.max()
        for p in placed.keys.filter({ $0.hasPrefix(group + "|") }).map({ String($0.dropFirst(group.count + 1)) })
        where p < wanted && p > (lower ?? "") {
          lower = p
        }
        row["position"] = PositionKey.between(lower, wanted)
        change.after = row
      }
      placed["\(group)|\(row["position"]!)"] = change.key
      return change
    }
  }

  func breaksInvariants(_ changes: [Change]) -> Bool {
    var after = rows
    for c in changes { after[c.key] = c.after }
    for (key, row) in after {
      switch key.table {
      case "m": if after[Key(table: "c", key: row["conv"]!)] == nil { return true }
      case "list":
        let parts = key.key.split(separator: "|").map(String.init)
        if parts[0] == "pinned" {
          if after[Key(table: "c", key: parts[1])] == nil { return true }
        } else {
          if after[Key(table: "m", key: parts[1])] == nil || after[Key(table: "c", key: row["owner"]!)] == nil {
            return true
          }
        }
      default: break
      }
    }
    return false
  }

  // MARK: operations

  mutating func send(_ action: InboxAction) -> Outcome {
    let changes = diff(from: rows, to: reduce(action, rows))
    guard !changes.isEmpty else { return .unchanged }
    return .logged(append(kind: "action", changes: changes, undo: action.isUndoable ? .step(action.undoGroup) : .none))
  }

  mutating func move(undoing: Bool) -> Outcome {
    guard let id = undoing ? nextUndo : nextRedo, let step = steps[id] else { return .unchanged }
    let changes = placingApart(revert(latestApplication(of: step)))
    if breaksInvariants(changes) { return .refused }
    let seq = append(kind: undoing ? "undo" : "redo", changes: changes, undo: .none, moved: id)
    steps[id]?.undone = undoing
    steps[id]?.applied = seq...seq
    repairAfter(step: nil)
    return .logged(seq)
  }

  mutating func jump(to seq: Int64, timeline: Timeline) -> Outcome {
    let tables: Set<String> =
      timeline == .all ? ["c", "m", "list", "view"] : timeline == .document ? ["c", "m", "list"] : ["view"]
    let changes = diff(from: rows, to: states[seq]!, tables: tables)
    guard !changes.isEmpty else { return .unchanged }
    let entry = append(kind: "jump", changes: changes, undo: .step(nil))
    repairAfter(step: log.last!.step)
    return .logged(entry)
  }

  mutating func repairAfter(step: Int64?) {
    let repairs = diff(from: rows, to: repaired(rows))
    if !repairs.isEmpty { append(kind: "repair", changes: repairs, undo: .join(step)) }
  }

  mutating func reopen() { repairAfter(step: topStepEntry?.step) }

  /// The tool's restore (no app code: no repair; rows compared).
  mutating func restore(to seq: Int64, timeline: Timeline) -> Outcome {
    let tables: Set<String> =
      timeline == .all ? ["c", "m", "list", "view"] : timeline == .document ? ["c", "m", "list"] : ["view"]
    let changes = diff(from: rows, to: states[seq]!, tables: tables)
    guard !changes.isEmpty else { return .unchanged }
    return .logged(append(kind: "restore", changes: changes, undo: .step(nil)))
  }

  var needsRepair: Bool { repaired(rows) != rows }

  // MARK: comparing with a store

  static func rows(of s: InboxState) -> Rows {
    var r: Rows = [:]
    for c in s.conversations.values {
      r[Key(table: "c", key: c.id.uuidString)] = ["title": c.title, "muted": c.muted ? "1" : "0"]
    }
    for m in s.messages.values {
      r[Key(table: "m", key: m.id.uuidString)] = [
        "conv": m.conversationID.uuidString, "body": m.body, "read": m.isRead ? "1" : "0", "score": "\(m.score)",
      ]
    }
    r[Key(table: "view", key: "selection")] = ["v": s.view.selection?.uuidString ?? "nil"]
    r[Key(table: "view", key: "highlighted")] = ["v": s.view.highlighted?.uuidString ?? "nil"]
    switch s.view.route {
    case .conversation(let id, let scroll):
      r[Key(table: "view", key: "route")] = ["v": "conv:\(id.uuidString):\(scroll)"]
    default: r[Key(table: "view", key: "route")] = ["v": "list"]
    }
    return r
  }

  /// Lists as orders (position keys are not visible through the state).
  static func orders(of s: InboxState) -> [String: [String]] {
    var o: [String: [String]] = [:]
    for owner in s.conversationMessages.ownersWithLists {
      o["cm|\(owner.uuidString)"] = s.conversationMessages[owner].ids.map(\.uuidString)
    }
    if !s.pinned.isEmpty { o["pinned"] = s.pinned.ids.map(\.uuidString) }
    return o
  }

  var orders: [String: [String]] {
    var o: [String: [String]] = [:]
    let owners = Set(rows.filter { $0.key.key.hasPrefix("conversationMessages|") }.map { $0.value["owner"]! })
    for owner in owners { o["cm|\(owner)"] = list("conversationMessages", owner: owner, in: rows).map(\.id) }
    let pinned = list("pinned", owner: "", in: rows).map(\.id)
    if !pinned.isEmpty { o["pinned"] = pinned }
    return o
  }

  var nonListRows: Rows { rows.filter { $0.key.table != "list" } }
}
