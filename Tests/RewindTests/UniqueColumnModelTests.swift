import Foundation
import GRDB
import Testing

@testable import Rewind

// A model-based test of an app with UNIQUE columns beside the key: booths with a unique label
// (NOT NULL) and a unique badge (nullable). A plain-Swift model says what each step does (a
// label or badge another booth holds is refused; booths trading labels in one action, and jumps
// and undos that hand labels back, go through); random sessions of adds, renames, rotations,
// removals, badges, undo, redo, jumps and reopening compare the store, the file read again,
// and `verify` with it after every step.

struct Booth: Entity {
  static let databaseTableName = "booth"
  var id: Int64
  var label: String
  var badge: Int64?

  static func createTable(_ db: Database) throws {
    try db.execute(
      sql: "CREATE TABLE booth (id INTEGER PRIMARY KEY, label TEXT NOT NULL UNIQUE, badge INTEGER UNIQUE)")
  }
}

struct BoothState: PersistentState, Equatable {
  var booths = EntityTable<Booth>()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.booths)) }
}

enum BoothAction: LoggedAction, Equatable {
  case add(Int64, String)
  case label(Int64, String)
  /// Each booth takes the next one's label, the last the first's.
  case rotate([Int64])
  case remove(Int64)
  case badge(Int64, Int64?)
}

struct BoothReducer: Reducer {
  func reduce(into state: inout BoothState, action: BoothAction) -> Effect<BoothAction> {
    switch action {
    case .add(let id, let label): state.booths.insert(Booth(id: id, label: label))
    case .label(let id, let label): state.booths[id]?.label = label
    case .rotate(let ids):
      let labels = ids.map { state.booths[$0]!.label }
      for (index, id) in ids.enumerated() { state.booths[id]?.label = labels[(index + 1) % labels.count] }
    case .remove(let id): state.booths.remove(id: id)
    case .badge(let id, let badge): state.booths[id]?.badge = badge
    }
    return .none
  }
}

/// What the booths should be: label and badge by id.
struct BoothModel: Equatable {
  var booths: [Int64: Booth] = [:]

  init() {}
  init(_ state: BoothState) {
    for booth in state.booths.values { booths[booth.id] = booth }
  }

  func holds(label: String, apartFrom id: Int64) -> Bool { booths.values.contains { $0.id != id && $0.label == label } }
  func holds(badge: Int64?, apartFrom id: Int64) -> Bool {
    badge != nil && booths.values.contains { $0.id != id && $0.badge == badge }
  }

  /// Applies `action`: `nil` when it is refused, otherwise whether it changed anything.
  mutating func apply(_ action: BoothAction) -> Bool? {
    switch action {
    case .add(let id, let label):
      guard !holds(label: label, apartFrom: id) else { return nil }
      let booth = Booth(id: id, label: label)
      guard booths[id] != booth else { return false }
      booths[id] = booth
    case .label(let id, let label):
      guard booths[id] != nil, booths[id]?.label != label else { return false }
      guard !holds(label: label, apartFrom: id) else { return nil }
      booths[id]?.label = label
    case .rotate(let ids):
      let labels = ids.map { booths[$0]!.label }
      guard Set(labels).count > 1 else { return false }
      for (index, id) in ids.enumerated() { booths[id]?.label = labels[(index + 1) % labels.count] }
    case .remove(let id):
      guard booths.removeValue(forKey: id) != nil else { return false }
    case .badge(let id, let badge):
      guard booths[id] != nil, booths[id]?.badge != badge else { return false }
      guard !holds(badge: badge, apartFrom: id) else { return nil }
      booths[id]?.badge = badge
    }
    return true
  }
}

@MainActor
@Suite struct UniqueColumnModelTests {
  static let count = ProcessInfo.processInfo.environment["REWIND_MODEL_COUNT"].flatMap(Int.init).map { $0 / 5 } ?? 20
  static let labels = ["a", "b", "c", "d", "e"]

  @Test func randomSessionsAgreeWithTheModel() throws {
    let base = UInt64.random(in: 0..<1_000_000)
    for session in 0..<UInt64(max(Self.count, 1)) {
      try run(seed: base + session)
    }
  }

  func run(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let directory = try TemporaryDirectory()
    let path = directory.path("booths.sqlite")
    func open() throws -> Store<BoothState, BoothAction> {
      try Store(path: path, initialState: BoothState(), reducer: BoothReducer())
    }
    var store = try open()
    var model = BoothModel()
    var undo: [BoothModel] = []
    var redo: [BoothModel] = []
    // The model after each seq, for jumps.
    var states: [Int64: BoothModel] = [store.lastSeq: model]
    func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
    /// A step that moved the state: undoable, the redo stack cleared.
    func moved(to next: BoothModel) {
      undo.append(model)
      redo = []
      model = next
    }
    for step in 0..<40 {
      let context = "seed \(seed), step \(step)"
      let ids = model.booths.keys.sorted()
      switch random.next() % 12 {
      case 0...6:
        let action: BoothAction
        switch random.next() % 5 {
        case 0: action = .add(Int64(random.next() % 5), pick(Self.labels))
        case 1: action = .label(ids.isEmpty ? 0 : pick(ids), pick(Self.labels))
        case 2 where ids.count >= 2:
          action = .rotate(Array(ids.shuffled(using: &random).prefix(2 + Int(random.next() % UInt64(ids.count - 1)))))
        case 3: action = .remove(ids.isEmpty ? 0 : pick(ids))
        default: action = .badge(ids.isEmpty ? 0 : pick(ids), random.next() % 3 == 0 ? nil : Int64(random.next() % 3))
        }
        var next = model
        let outcome = next.apply(action)
        do {
          let seq = try store.send(action)
          #expect(outcome != nil, "\(context): \(action) was committed, the model refuses it")
          #expect((seq != nil) == (outcome == true), "\(context): \(action) logged \(String(describing: seq))")
          if outcome == true { moved(to: next) }
        } catch let error as RewindError {
          #expect(outcome == nil, "\(context): \(action) was refused: \(error)")
          #expect(error.code == .commitFailed && error.message.contains("keeps them"), "\(context): \(error)")
        }
      case 7:
        let seq = try store.undo()
        #expect((seq != nil) == !undo.isEmpty, "\(context)")
        if let previous = undo.popLast() {
          redo.append(model)
          model = previous
        }
      case 8:
        let seq = try store.redo()
        #expect((seq != nil) == !redo.isEmpty, "\(context)")
        if let next = redo.popLast() {
          undo.append(model)
          model = next
        }
      case 9, 10:
        let target = pick(states.keys.sorted())
        let seq = try store.jump(to: target)
        #expect((seq != nil) == (states[target] != model), "\(context): jump to \(target)")
        if seq != nil { moved(to: states[target]!) }
      default:
        store = try open()
      }
      states[store.lastSeq] = model
      #expect(BoothModel(store.state) == model, "\(context): the store")
      #expect(BoothModel(try open().state) == model, "\(context): the file")
      if step % 8 == 7 {
        #expect(try RewindDatabase(path: path, readOnly: true).verify().problems == [], "\(context)")
      }
    }
    #expect(try RewindDatabase(path: path, readOnly: true).verify().problems == [], "seed \(seed)")
  }
}
