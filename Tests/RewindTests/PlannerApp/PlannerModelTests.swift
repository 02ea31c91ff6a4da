import Foundation
import GRDB
import Testing

@testable import Rewind

/// The model-based test of a second app (an event planner: String keys, two levels of cascading
/// foreign keys and a SET NULL one, keyed list families, a scoped view state, non-undoable sync
/// actions): random sessions of sends, undo, redo, jumps on every timeline, reopens and a second
/// store on the same file, compared after every step with ``PlannerModel`` (the file's rows, the
/// view state, the acting store's memory, the undo and redo stacks, a read-only reopen), and
/// `verify` at the end.
///
/// `PLANNER_MODEL_COUNT` sessions (default 6) of `PLANNER_MODEL_STEPS` steps (default 60),
/// from a random seed or `PLANNER_MODEL_SEED`; a failing session prints the seed to run it again.
@MainActor
@Suite struct PlannerModelTests {
  enum Op: CustomStringConvertible {
    case send(PlannerAction, store: Int)
    case undo(store: Int)
    case redo(store: Int)
    case jump(Int64, Timeline, store: Int)
    case reopen(store: Int)

    var description: String {
      switch self {
      case .send(let a, let s): "[\(s)] send \(a)"
      case .undo(let s): "[\(s)] undo"
      case .redo(let s): "[\(s)] redo"
      case .jump(let seq, let t, let s): "[\(s)] jump \(seq) \(t)"
      case .reopen(let s): "[\(s)] reopen"
      }
    }
  }

  static func operation(_ rng: inout SplitMix64, model: PlannerModel, counter: inout Int) -> Op {
    let store = Int.random(in: 0...9, using: &rng) < 7 ? 0 : 1
    let rows = model.rows
    func ids(_ table: String) -> [String] { rows.keys.filter { $0.table == table }.map(\.key).sorted() }
    let calendars = ids("calendars")
    let events = ids("events")
    let venues = ids("venues")
    func pick(_ list: [String], _ fallback: String) -> String { list.randomElement(using: &rng) ?? fallback }
    func fresh(_ prefix: String) -> String {
      counter += 1
      return "\(prefix)-\(counter)"
    }
    let calendar = pick(calendars, "cal-none")
    let event = pick(events, "evt-none")
    let n = Int.random(in: 0..<100, using: &rng)
    let action: PlannerAction
    switch Int.random(in: 0..<30, using: &rng) {
    case 0, 1: action = .addCalendar(id: calendars.count < 4 ? fresh("cal") : calendar, name: "C\(n)")
    case 2: action = .renameCalendar(id: calendar, name: "R\(n)")
    case 3: action = .deleteCalendar(id: calendar)
    case 4, 5, 6: action = .addEvent(id: fresh("evt"), calendar: calendar, title: "E\(n)", start: Int64(n))
    case 7, 8: action = .typeTitle(id: event, text: "\(n % 10)")
    case 9: action = .setWeight(id: event, weight: Double(n) / 4)
    case 10: action = .reorder(id: event, to: n % 5)
    case 11: action = .moveEvent(id: event, calendar: calendar)
    case 12: action = .deleteEvent(id: event)
    case 13: action = .addVenue(id: venues.count < 3 ? fresh("ven") : pick(venues, "ven-x"), name: "V\(n)")
    case 14: action = venues.isEmpty ? .setZoom(2) : .deleteVenue(id: pick(venues, "ven-x"))
    case 15: action = .setVenue(event: event, venue: n % 3 == 0 ? nil : venues.randomElement(using: &rng))
    case 16: action = events.isEmpty ? .setZoom(3) : .addAttendee(id: fresh("att"), event: event, name: "A\(n)")
    case 17: action = .star(id: event)
    case 18: action = .select(n % 4 == 0 ? nil : events.randomElement(using: &rng))
    case 19: action = .setMode(n % 3 == 0 ? .day : n % 3 == 1 ? .week : .month(n))
    case 20:
      action = .present(
        n % 3 == 0 ? nil : n % 3 == 1 && !events.isEmpty ? .edit(id: event, draft: "d") : .newEvent(calendar: calendar))
    case 21: action = .agenda(n % 2 == 0 ? .setQuery("q\(n % 5)") : .setFilter(n % 3 == 0 ? .starred : .all))
    case 22, 23: action = .sync(id: event, version: Int64(n))
    case 24: action = .syncAddEvent(id: fresh("evt"), calendar: calendar)
    case 25, 26: return .undo(store: store)
    case 27: return .redo(store: store)
    case 28:
      let seq = Int64.random(in: 0...model.lastSeq, using: &rng)
      let timeline = [Timeline.all, .document, .view].randomElement(using: &rng)!
      return .jump(seq, timeline, store: store)
    default: return .reopen(store: store)
    }
    return .send(action, store: store)
  }

  @Test func randomSessionsAgainstTheModel() throws {
    let count = Int(ProcessInfo.processInfo.environment["PLANNER_MODEL_COUNT"] ?? "") ?? 6
    let steps = Int(ProcessInfo.processInfo.environment["PLANNER_MODEL_STEPS"] ?? "") ?? 60
    let baseSeed =
      UInt64(ProcessInfo.processInfo.environment["PLANNER_MODEL_SEED"] ?? "")
      ?? UInt64.random(in: 0...UInt64(UInt32.max))
    for session in 0..<UInt64(count) {
      let seed = baseSeed &+ session
      let failed = try runSession(seed: seed, steps: steps)
      if failed {
        Issue.record("session failed: PLANNER_MODEL_SEED=\(seed) PLANNER_MODEL_COUNT=1")
        break
      }
    }
  }

  /// Sessions that once found a difference, run every time.
  /// - 1699093964: a sheet the reducer left pointing at a missing calendar, repaired by the
  ///   store after a later cascade (an event's list entry) and not by the model.
  @Test(arguments: [1_699_093_964 as UInt64])
  func aSessionThatOnceFailed(seed: UInt64) throws {
    #expect(try !runSession(seed: seed, steps: 60))
  }

  /// Runs one session; returns whether it found a difference (recorded as issues).
  func runSession(seed: UInt64, steps: Int) throws -> Bool {
    var rng = SplitMix64(seed: seed)
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    var stores = [try openPlanner(path), try openPlanner(path)]
    var model = PlannerModel(storeCount: 2)
    var counter = 0
    var trace: [String] = []
    for _ in 0..<steps {
      let op = Self.operation(&rng, model: model, counter: &counter)
      let lastBefore = model.lastSeq
      var outcome: PlannerModel.Outcome
      var thrown: Error?
      var acting = 0
      func run(_ body: () throws -> Int64?) {
        do { _ = try body() } catch { thrown = error }
      }
      switch op {
      case .send(let action, let store):
        acting = store
        outcome = model.send(action, store: store)
        run { try stores[store].send(action) }
      case .undo(let store):
        acting = store
        outcome = model.move(undoing: true, store: store)
        run { try stores[store].undo() }
      case .redo(let store):
        acting = store
        outcome = model.move(undoing: false, store: store)
        run { try stores[store].redo() }
      case .jump(let seq, let timeline, let store):
        acting = store
        outcome = model.jump(to: seq, timeline: timeline, store: store)
        run { try stores[store].jump(to: seq, timeline: timeline) }
      case .reopen(let store):
        acting = store
        model.reopen(store: store)
        outcome = .logged
        run {
          stores[store] = try openPlanner(path)
          return nil
        }
      }
      trace.append(
        "\(op) -> model \(outcome), seq \(lastBefore)->\(model.lastSeq)\(thrown.map { " THREW \($0)" } ?? "")")
      let context = { "seed \(seed)\n" + trace.suffix(25).joined(separator: "\n") }
      // Refused in the model iff refused by the store (a conflict).
      if outcome == .refused {
        guard let error = thrown as? RewindError, error.code == .conflict else {
          Issue.record("expected a conflict, got \(String(describing: thrown))\n\(context())")
          return true
        }
      } else if let thrown {
        Issue.record("unexpected error \(thrown)\n\(context())")
        return true
      }
      // The file's seqs agree with the model's.
      let fileLast = try RewindDatabase(path: path, readOnly: true).position().lastSeq
      if fileLast != model.lastSeq {
        Issue.record("last seq: file \(fileLast), model \(model.lastSeq)\n\(context())")
        return true
      }
      // The file's rows equal the model's.
      let fileRows = try plannerFileRows(path)
      let modelDocument = model.rows.filter { $0.key.table != "view" }
      let fileDocument = fileRows.filter { $0.key.table != "view" }
      if modelDocument != fileDocument {
        let keys = Set(modelDocument.keys).union(fileDocument.keys).filter { modelDocument[$0] != fileDocument[$0] }
        let lines = keys.sorted().map {
          "\($0.table) \($0.key): model \(modelDocument[$0].map { "\($0)" } ?? "none") file \(fileDocument[$0].map { "\($0)" } ?? "none")"
        }
        Issue.record("file rows differ from the model:\n\(lines.joined(separator: "\n"))\n\(context())")
        return true
      }
      var fileView = PlannerModel.defaults
      for (key, row) in fileRows where key.table == "view" { fileView[key.key] = row["value"] }
      if fileView != model.viewTexts(model.rows) {
        Issue.record(
          "view state: file \(fileView.sorted { $0.key < $1.key }), model \(model.viewTexts(model.rows).sorted { $0.key < $1.key })\n\(context())"
        )
        return true
      }
      // The acting store's memory equals the model.
      let memory = PlannerPlain(stores[acting].state)
      let expected = model.plain(model.rows)
      var memoryDocument = memory
      memoryDocument.view = PlannerView()
      memoryDocument.agenda = AgendaView()
      if memoryDocument != expected || PlannerModel.viewTexts(stores[acting].state) != model.viewTexts(model.rows) {
        Issue.record(
          "memory differs from the model:\nmemory:\n\(memory)\nmodel:\n\(expected)\nview \(model.viewTexts(model.rows))\n\(context())"
        )
        return true
      }
      // Undo and redo availability.
      if stores[acting].canUndo != (model.nextUndo != nil) || stores[acting].canRedo != (model.nextRedo != nil) {
        Issue.record(
          "stacks: store undo \(stores[acting].canUndo) redo \(stores[acting].canRedo), model \(model.stacks)\n\(context())"
        )
        return true
      }
      // A read-only store reads what memory holds.
      let readOnly = try openPlanner(path, readOnly: true)
      if PlannerPlain(readOnly.state) != memory {
        Issue.record("read-only reopen differs:\n\(PlannerPlain(readOnly.state))\nmemory:\n\(memory)\n\(context())")
        return true
      }
    }
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    if !report.isHealthy {
      Issue.record("verify: \(report.problems)\nseed \(seed)\n\(trace.suffix(25).joined(separator: "\n"))")
      return true
    }
    return false
  }
}
