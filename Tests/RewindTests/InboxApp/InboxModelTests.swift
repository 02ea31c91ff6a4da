import Foundation
import Testing

@testable import Rewind

@Suite("InboxModel")
@MainActor
struct InboxModelTests {
  static var seeds: [UInt64] {
    if let s = ProcessInfo.processInfo.environment["INBOX_MODEL_SEED"], let v = UInt64(s) { return [v] }
    let count = Int(ProcessInfo.processInfo.environment["INBOX_MODEL_COUNT"] ?? "") ?? 12
    return (0..<UInt64(count)).map { 0xA11CE + $0 }
  }

  @Test func randomSessions() throws {
    let steps = Int(ProcessInfo.processInfo.environment["INBOX_MODEL_STEPS"] ?? "") ?? 80
    for seed in Self.seeds {
      let ok = try runSession(seed: seed, steps: steps)
      if !ok {
        Issue.record("session failed: INBOX_MODEL_SEED=\(seed)")
        return
      }
    }
  }

  func randomAction(_ model: InboxModel, _ rng: inout SplitMix64, newID: inout Int) -> InboxAction {
    let convs = (1...4).map { u($0) }
    let messages = model.rows.keys.filter { $0.table == "m" }.map { UUID(uuidString: $0.key)! }.sorted {
      $0.uuidString < $1.uuidString
    }
    let existingConvs = model.rows.keys.filter { $0.table == "c" }.map { UUID(uuidString: $0.key)! }.sorted {
      $0.uuidString < $1.uuidString
    }
    func anyMessage() -> UUID { messages.isEmpty ? u(999) : messages.randomElement(using: &rng)! }
    let conv = convs.randomElement(using: &rng)!
    let titles = ["A", "B", "Chat", "Ünïcode"]
    switch Int.random(in: 0..<20, using: &rng) {
    case 0, 1: return .createConversation(id: conv, title: titles.randomElement(using: &rng)!, at: at(0))
    case 2: return .renameConversation(id: conv, title: titles.randomElement(using: &rng)!)
    case 3: return .deleteConversation(id: conv)
    case 4, 5:
      newID += 1
      return .post(
        id: u(1000 + newID), conversation: conv, body: "m\(newID)", at: at(1000), attachment: nil, sender: nil)
    case 6, 7: return .type(id: anyMessage(), text: ["a", "b", "c"].randomElement(using: &rng)!)
    case 8: return .markRead(id: anyMessage(), Bool.random(using: &rng))
    case 9: return .setScore(id: anyMessage(), [0.5, -2.25, 3.0].randomElement(using: &rng)!)
    case 10: return .deleteMessage(id: anyMessage())
    case 11: return .moveMessage(id: anyMessage(), to: Int.random(in: 0..<4, using: &rng))
    case 12:
      return Bool.random(using: &rng) ? .togglePin(id: conv) : .moveToConversation(id: anyMessage(), conversation: conv)
    case 13: return .select(Bool.random(using: &rng) ? nil : existingConvs.randomElement(using: &rng))
    case 14: return .highlight(Bool.random(using: &rng) ? nil : messages.randomElement(using: &rng))
    case 15:
      if let c = existingConvs.randomElement(using: &rng) { return .navigate(.conversation(c, scroll: 1.5)) }
      return .navigate(.list)
    case 16:
      newID += 1
      return .syncReceive(
        id: u(1000 + newID), conversation: conv, body: "s\(newID)", at: at(2000), serverID: Int64(newID))
    case 17: return .syncRead(id: anyMessage())
    case 18: return .syncRename(id: conv, title: "srv")
    default: return .syncDeleteMessage(id: anyMessage())
    }
  }

  func compare(_ store: InboxStore, _ model: InboxModel, _ trail: [String]) -> Bool {
    let rows = InboxModel.rows(of: store.state)
    let orders = InboxModel.orders(of: store.state)
    var ok = true
    if rows != model.nonListRows {
      ok = false
      let keys = Set(rows.keys).union(model.nonListRows.keys).filter { rows[$0] != model.nonListRows[$0] }.sorted()
      Issue.record(
        "rows differ: \(keys.map { "\($0.table)/\($0.key): store \(rows[$0].map { "\($0)" } ?? "nil") model \(model.nonListRows[$0].map { "\($0)" } ?? "nil")" })"
      )
    }
    if orders != model.orders {
      ok = false
      Issue.record("orders differ: store \(orders) model \(model.orders)")
    }
    if store.lastSeq != model.lastSeq {
      ok = false
      Issue.record("lastSeq store \(store.lastSeq) model \(model.lastSeq)")
    }
    if !ok { Issue.record("trail:\n\(trail.suffix(25).joined(separator: "\n"))") }
    return ok
  }

  func runSession(seed: UInt64, steps: Int) throws -> Bool {
    var rng = SplitMix64(seed: seed)
    let dir = try TemporaryDirectory()
    let path = dir.path("inbox.sqlite")
    var a = try openInbox(path)
    var b = try openInbox(path)
    var model = InboxModel(lastSeq: a.lastSeq)
    var newID = 0
    var trail: [String] = []
    for step in 0..<steps {
      let useB = Int.random(in: 0..<5, using: &rng) == 0
      let store = useB ? b : a
      let who = useB ? "B" : "A"
      let roll = Int.random(in: 0..<100, using: &rng)
      if roll < 60 {
        let action = randomAction(model, &rng, newID: &newID)
        trail.append("\(step) \(who) send \(action)")
        let expected = model.send(action)
        let got = try store.send(action)
        if expected != (got.map { .logged($0) } ?? .unchanged) {
          Issue.record("send \(action): store \(String(describing: got)) model \(expected)")
          Issue.record("trail:\n\(trail.suffix(25).joined(separator: "\n"))")
          return false
        }
      } else if roll < 88 {
        let undoing = roll < 78
        trail.append("\(step) \(who) \(undoing ? "undo" : "redo")")
        let expected = model.move(undoing: undoing)
        do {
          let got = try undoing ? store.undo() : store.redo()
          if expected != (got.map { .logged($0) } ?? .unchanged) {
            Issue.record("\(undoing ? "undo" : "redo"): store \(String(describing: got)) model \(expected)")
            Issue.record("trail:\n\(trail.suffix(25).joined(separator: "\n"))")
            return false
          }
        } catch let error as RewindError where error.code == .conflict {
          if expected != .refused {
            Issue.record("store refused \(error), model \(expected)")
            Issue.record("trail:\n\(trail.suffix(25).joined(separator: "\n"))")
            return false
          }
          try store.reload()
        }
      } else if roll < 95 {
        let seq = Int64.random(in: 1...model.lastSeq, using: &rng)
        let timeline = [Timeline.all, .document, .view].randomElement(using: &rng)!
        trail.append("\(step) \(who) jump \(seq) \(timeline)")
        let expected = model.jump(to: seq, timeline: timeline)
        let got = try store.jump(to: seq, timeline: timeline)
        if expected != (got.map { .logged($0) } ?? .unchanged) {
          Issue.record("jump: store \(String(describing: got)) model \(expected)")
          Issue.record("trail:\n\(trail.suffix(25).joined(separator: "\n"))")
          return false
        }
      } else {
        trail.append("\(step) \(who) reopen")
        if useB { b = try openInbox(path) } else { a = try openInbox(path) }
        model.reopen()
      }
      if roll >= 95 && Int.random(in: 0..<3, using: &rng) == 0 {
        // The tool restores (in process, no app code): the next store write repairs.
        let seq = Int64.random(in: 1...model.lastSeq, using: &rng)
        let timeline = [Timeline.all, .document, .view].randomElement(using: &rng)!
        trail.append("\(step) tool restore \(seq) \(timeline)")
        let expected = model.restore(to: seq, timeline: timeline)
        let got = try RewindDatabase(path: path).restore(to: seq, timeline: timeline)
        if expected != (got.map { .logged($0) } ?? .unchanged) {
          Issue.record("tool restore: \(String(describing: got)) model \(expected)")
          Issue.record("trail:\n\(trail.suffix(25).joined(separator: "\n"))")
          return false
        }
        trail.append("\(step) \(who) reload")
        try (useB ? b : a).reload()
        model.reopen()
      }
      let current = useB ? b : a
      if !compare(current, model, trail) { return false }
      if step % 10 == 9 {
        let ro = try openInbox(path, readOnly: true)
        if !compare(ro, model, trail + ["read-only reopen"]) { return false }
        let report = try RewindDatabase(path: path, readOnly: true).verify()
        if !report.isHealthy {
          Issue.record("verify: \(report.problems)\ntrail:\n\(trail.suffix(25).joined(separator: "\n"))")
          return false
        }
      }
    }
    return true
  }
}
