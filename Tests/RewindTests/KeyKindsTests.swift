import Foundation
import GRDB
import Testing

@testable import Rewind

/// Issue 12, item 3: Int64, String and UUID keys work everywhere. The world clock app, keyed by
/// UUIDs in each of GRDB's three forms and by readable strings, runs random sessions of actions,
/// undo, redo, jumps, reopening and the tool's restores and imports, checked after every step
/// against a plain-Swift model and a fresh load of the file; its keys have one form in the
/// tables, the order lists, the log and the exports; exports import back to the byte.
@MainActor
struct KeyKindsTests {
  nonisolated static let seeds: [UInt64] = [1, 2, 3]
  static let steps = 150

  @Test(arguments: seeds) func uppercaseUUIDKeys(seed: UInt64) async throws {
    try await Self.randomSession(UppercaseUUIDKeys.self, seed: seed)
  }

  @Test(arguments: seeds) func lowercaseUUIDKeys(seed: UInt64) async throws {
    try await Self.randomSession(LowercaseUUIDKeys.self, seed: seed)
  }

  @Test(arguments: seeds) func blobUUIDKeys(seed: UInt64) async throws {
    try await Self.randomSession(BlobUUIDKeys.self, seed: seed)
  }

  @Test(arguments: seeds) func stringKeys(seed: UInt64) async throws {
    try await Self.randomSession(StringKeys.self, seed: seed)
  }

  static func randomSession<Keys: ClockKeys>(_ keys: Keys.Type, seed: UInt64) async throws {
    var session = try ClockSession<Keys>(seed: seed)
    for index in 0..<steps {
      // Long synchronous work on the main actor would starve other suites' effects.
      await Task.yield()
      let what = "seed \(seed) step \(index): " + (try session.step())
      try session.check(after: what)
      if index % 25 == 24 { try session.checkFile(after: what) }
    }
    try session.checkFile(after: "seed \(seed) end")
    try session.exportImportsIntoAFreshFile()
  }

  // MARK: - The forms each strategy stores

  @Test func eachStrategyStoresItsOwnForm() throws {
    func forms<Keys: ClockKeys>(_ keys: Keys.Type) throws -> [String] {
      let directory = try TemporaryDirectory()
      let path = directory.path("clock.sqlite")
      let uuids = SeededUUIDs(seed: 9)
      let store = try worldClock(Keys.self, path: path, uuids: uuids)
      try store.send(.addGroup(name: "Europe"))
      let group = store.state.view.selectedGroup!
      try store.send(.addZone(city: "Paris", offset: 60, group: group))
      let zone = store.state.zones.ids.first!
      try store.send(.favourite(id: zone))
      return try DatabaseQueue(path: path).read { db in
        try Row.fetchAll(
          db,
          sql: """
            SELECT 'groups', typeof(id), length(id) FROM groups
            UNION ALL SELECT 'timezones', typeof(id), length(id) FROM timezones
            UNION ALL SELECT 'timezones.groupId', typeof(groupId), length(groupId) FROM timezones
            UNION ALL SELECT list || '.id', typeof(id), length(id) FROM list_entries
            UNION ALL SELECT list || '.owner', typeof(owner), length(owner) FROM list_entries
            """
        ).map { "\($0[0] as String) \($0[1] as String) \(($0[2] as Int64?).map(String.init) ?? "-")" }.sorted()
      }
    }
    #expect(
      try forms(UppercaseUUIDKeys.self) == [
        "favourites.id text 36", "favourites.owner null -", "groupZones.id text 36", "groupZones.owner text 36",
        "groups text 36", "timezones text 36", "timezones.groupId text 36",
      ])
    #expect(try forms(LowercaseUUIDKeys.self) == forms(UppercaseUUIDKeys.self))
    #expect(
      try forms(BlobUUIDKeys.self) == [
        "favourites.id blob 16", "favourites.owner null -", "groupZones.id blob 16", "groupZones.owner blob 16",
        "groups blob 16", "timezones blob 16", "timezones.groupId blob 16",
      ])

    // The exact text: uppercase by default (as `UUID.uuidString` and Codable give), lowercase
    // when chosen. By default one form everywhere: table, lists, log, payload, view, export.
    let directory = try TemporaryDirectory()
    func exactText<K: ClockKeys>(_ keys: K.Type, lowercase: Bool) throws {
      let path = directory.path("\(K.self).sqlite")
      let store = try worldClock(K.self, path: path, uuids: SeededUUIDs(seed: 9))
      try store.send(.addGroup(name: "Europe"))
      let key = try #require(store.state.view.selectedGroup)
      let group = try #require(key as? UUID)
      try store.send(.addZone(city: "Paris", offset: 60, group: key))
      let zone = try #require(store.state.zones.ids.first as? UUID)
      let (g, z) =
        lowercase ? (group.uuidString.lowercased(), zone.uuidString.lowercased()) : (group.uuidString, zone.uuidString)
      let stored = try DatabaseQueue(path: path).read { db in
        [
          try String.fetchOne(db, sql: "SELECT id FROM groups"),
          try String.fetchOne(db, sql: "SELECT id || ' ' || groupId FROM timezones"),
          try String.fetchOne(db, sql: "SELECT id || ' ' || owner FROM list_entries WHERE list = 'groupZones'"),
        ]
      }
      #expect(stored == [g, "\(z) \(g)", "\(z) \(g)"])
      let (changes, payload) = try DatabaseQueue(path: path).read { db in
        (
          try String.fetchOne(db, sql: "SELECT changes FROM action_log ORDER BY seq DESC LIMIT 1") ?? "",
          try String.fetchOne(db, sql: "SELECT payload FROM action_log ORDER BY seq DESC LIMIT 1") ?? ""
        )
      }
      #expect(changes.contains(#"{"table":"timezones","key":{"id":"\#(z)"}"#), "\(changes)")
      #expect(changes.contains(#""groupId":"\#(g)""#), "\(changes)")
      #expect(changes.contains(#""owner":"\#(g)""#), "\(changes)")
      // Payloads and view state are JSON written by Codable: uppercase.
      #expect(payload.contains(#""\#(group.uuidString)""#), "\(payload)")
      let export = try RewindDatabase(path: path, readOnly: true).export()
      #expect(export.contains(#"{"owner":"\#(g)","ids":["\#(z)"]}"#), "\(export)")
      #expect(export.contains(#""selectedGroup": "\#(group.uuidString)""#), "\(export)")
    }
    try exactText(UppercaseUUIDKeys.self, lowercase: false)
    try exactText(LowercaseUUIDKeys.self, lowercase: true)
  }
}

/// One random session of the world clock on a file.
@MainActor
struct ClockSession<Keys: ClockKeys> {
  typealias Document = ClockModel<Keys>.Document

  let directory: TemporaryDirectory
  let path: String
  var random: SplitMix64
  /// The store's id generator, and the model's copy of it.
  let uuids: SeededUUIDs
  let modelUUIDs: SeededUUIDs
  var store: ClockStore<Keys>
  var model = ClockModel<Keys>()
  /// The undo and redo stacks: each step's document before and after.
  var undoStack: [(before: Document, after: Document)] = []
  var redoStack: [(before: Document, after: Document)] = []
  /// The model after each operation, by the seq the file was at then.
  var states: [Int64: ClockModel<Keys>] = [:]
  /// Exports taken along the way, with the model then.
  var exports: [(json: String, model: ClockModel<Keys>)] = []

  init(seed: UInt64) throws {
    directory = try TemporaryDirectory()
    path = directory.path("clock.sqlite")
    random = SplitMix64(seed: seed)
    uuids = SeededUUIDs(seed: seed &* 7919)
    modelUUIDs = SeededUUIDs(seed: seed &* 7919)
    store = try worldClock(Keys.self, path: path, uuids: uuids)
    states[store.lastSeq] = model
  }

  mutating func next(_ bound: Int) -> Int { Int(random.next() % UInt64(max(bound, 1))) }

  mutating func pick<T>(_ values: [T]) -> T? { values.isEmpty ? nil : values[next(values.count)] }

  /// A seq to travel to: mostly a recent one, so the state keeps growing; now and then any.
  mutating func target() -> Int64 {
    let seqs = states.keys.sorted()
    return next(4) == 0 ? pick(seqs)! : pick(Array(seqs.suffix(12)))!
  }

  static var groupNames: [String] { ["Europe", "Team", "Asia", "Americas", "Home"] }
  static var cities: [(String, Int)] {
    [
      ("Paris", 60), ("Tokyo", 540), ("New York", -300), ("Kolkata", 330), ("São Paulo", -180), ("Auckland", 780),
      ("Reykjavík", 0),
    ]
  }

  /// An action that makes sense in the model's state (now and then one naming nothing).
  mutating func randomAction() -> ClockAction<Keys.Key> {
    let groups = model.document.groups.keys.sorted()
    let zones = model.document.zones.keys.sorted()
    let roll = next(100)
    guard let group = pick(groups), roll >= (groups.count < 3 ? 12 : 3) else {
      return .addGroup(name: pick(Self.groupNames)!)
    }
    guard let zone = pick(zones), roll >= (zones.count < 10 ? 36 : 24) else {
      let (city, offset) = pick(Self.cities)!
      return .addZone(city: city, offset: offset, group: group)
    }
    switch roll {
    case ..<40: return .renameGroup(id: group, name: pick(Self.groupNames)! + " \(next(3))")
    case 40..<42: return .deleteGroup(id: group)
    case 42..<52: return .moveZone(id: zone, to: next(6))
    case 52..<62: return .moveZoneToGroup(id: zone, group: group, at: next(4))
    case 62..<66: return .renameZone(id: zone, city: pick(Self.cities)!.0 + " \(next(3))")
    case 66..<71: return .deleteZone(id: zone)
    case 71..<80: return .favourite(id: zone)
    case 80..<85: return .moveFavourite(id: pick(model.document.favourites) ?? zone, to: next(4))
    case 85..<93: return .selectZone(next(4) == 0 ? nil : zone)
    default: return .selectGroup(next(4) == 0 ? nil : group)
    }
  }

  /// Performs one random operation on the file and the model. Returns what it did.
  mutating func step() throws -> String {
    let roll = next(100)
    switch roll {
    case 0..<55:
      let action = randomAction()
      var expected = model
      expected.reduce(action, uuids: modelUUIDs)
      let seq = try store.send(action)
      #expect((seq != nil) == (expected != model), "send \(action): logged \(seq.map(String.init) ?? "nothing")")
      take(expected)
      return "send \(action)"
    case 55..<65:
      return try undo(byTool: roll >= 63)
    case 65..<71:
      return try redo(byTool: roll >= 70)
    case 71..<77:
      let seq = target()
      let timeline = pick(Timeline.allCases)!
      let result = try store.jump(to: seq, timeline: timeline)
      travel(to: states[seq]!, timeline: timeline, logged: result != nil, "jump \(seq) \(timeline)")
      return "jump to \(seq) (\(timeline))"
    case 77..<81:
      let seq = target()
      let result = try RewindDatabase(path: path).restore(to: seq)
      try store.reload()
      travel(to: states[seq]!, timeline: .all, logged: result != nil, "restore --to \(seq)")
      return "tool restore --to \(seq)"
    case 81..<86:
      let lastSeq = store.lastSeq
      store = try worldClock(Keys.self, path: path, uuids: uuids)
      #expect(store.lastSeq == lastSeq, "reopening logged something")
      return "reopen"
    case 86..<91:
      let json = try RewindDatabase(path: path, readOnly: true).export()
      try checkExportForms(json, "export")
      exports.append((json, model))
      return "tool export"
    case 91..<96:
      guard let (json, then) = pick(exports) else { return "no export to import" }
      let tool = try RewindDatabase(path: path)
      let result = try tool.importState(json)
      // The file's state is the export's, to the byte.
      #expect(try tool.export() == json, "import then export")
      try store.reload()
      travel(to: then, timeline: .all, logged: result != nil, "import")
      return "tool import of an earlier export"
    default:
      // An export of an earlier seq, imported: as a restore.
      let seq = target()
      let tool = try RewindDatabase(path: path)
      let json = try tool.export(at: seq)
      try checkExportForms(json, "export --at \(seq)")
      let result = try tool.importState(json)
      #expect(try tool.export() == json, "import of export --at \(seq) then export")
      try store.reload()
      travel(to: states[seq]!, timeline: .all, logged: result != nil, "import of export --at \(seq)")
      return "tool import of export --at \(seq)"
    }
  }

  /// Makes `next` the model; a changed document is a new undo step, which clears redo.
  mutating func take(_ next: ClockModel<Keys>) {
    if next.document != model.document {
      undoStack.append((model.document, next.document))
      redoStack = []
    }
    model = next
  }

  /// A jump, restore or import to the state `target`, on `timeline`.
  mutating func travel(to target: ClockModel<Keys>, timeline: Timeline, logged: Bool, _ what: String) {
    var next = model
    if timeline != .view { next.document = target.document }
    if timeline != .document { next.view = target.view }
    #expect(logged == (next != model), "\(what): logged \(logged)")
    next.repair()
    take(next)
  }

  mutating func undo(byTool: Bool) throws -> String {
    let seq: Int64?
    if byTool {
      seq = try RewindDatabase(path: path).undo()
      try store.reload()
    } else {
      seq = try store.undo()
    }
    guard let step = undoStack.popLast() else {
      #expect(seq == nil, "undo with nothing to undo logged \(seq ?? 0)")
      return byTool ? "tool undo (nothing)" : "undo (nothing)"
    }
    #expect(seq != nil, "undo logged nothing")
    #expect(model.document == step.after)
    model.document = step.before
    // View state reverts column by column; the model only asks that it names what exists.
    model.view = store.state.view
    #expect(model.isRepaired, "undo left view state naming what does not exist: \(model.view)")
    redoStack.append(step)
    return byTool ? "tool undo" : "undo"
  }

  mutating func redo(byTool: Bool) throws -> String {
    let seq: Int64?
    if byTool {
      seq = try RewindDatabase(path: path).redo()
      try store.reload()
    } else {
      seq = try store.redo()
    }
    guard let step = redoStack.popLast() else {
      #expect(seq == nil, "redo with nothing to redo logged \(seq ?? 0)")
      return byTool ? "tool redo (nothing)" : "redo (nothing)"
    }
    #expect(seq != nil, "redo logged nothing")
    model.document = step.after
    model.view = store.state.view
    #expect(model.isRepaired, "redo left view state naming what does not exist: \(model.view)")
    undoStack.append(step)
    return byTool ? "tool redo" : "redo"
  }

  // MARK: - Checks

  /// The state as the file holds it, read the way opening reads it, without writing.
  func fileState() throws -> ClockState<Keys> {
    let schema = ClockState<Keys>.schema
    var state = ClockState<Keys>()
    try schema.takeDefaults(from: state)
    try DatabaseQueue(path: path).read { db in try schema.load(db).apply(to: &state) }
    return state
  }

  /// After every step: memory is the model and the file; the file keeps its foreign keys.
  mutating func check(after what: String) throws {
    #expect(ClockModel(store.state) == model, "\(what): memory differs from the model")
    #expect(store.state == (try fileState()), "\(what): memory differs from the file")
    let (violations, lastSeq) = try DatabaseQueue(path: path).read { db in
      (
        try Row.fetchAll(db, sql: "PRAGMA foreign_key_check"),
        try Int64.fetchOne(db, sql: "SELECT max(seq) FROM action_log") ?? 0
      )
    }
    #expect(violations.isEmpty, "\(what): foreign_key_check \(violations)")
    #expect(store.lastSeq == lastSeq, "\(what): the store is at seq \(store.lastSeq), the file at \(lastSeq)")
    states[store.lastSeq] = model
  }

  /// Now and then: `verify` is clean, and every key in the file has the strategy's form.
  func checkFile(after what: String) throws {
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(report.problems == [], "\(what): verify")
    try checkKeyForms(after: what)
    try checkExportForms(try RewindDatabase(path: path, readOnly: true).export(), "\(what): export")
  }

  /// Keys have one form: in the tables, in the order lists (which name ids exactly as their
  /// tables hold them) and in every row image of the log.
  func checkKeyForms(after what: String, in file: String? = nil) throws {
    try DatabaseQueue(path: file ?? path).read { db in
      let keys = try DatabaseValue.fetchAll(
        db,
        sql: """
          SELECT id FROM groups UNION ALL SELECT id FROM timezones UNION ALL SELECT groupId FROM timezones
          UNION ALL SELECT id FROM list_entries UNION ALL SELECT owner FROM list_entries WHERE list = 'groupZones'
          """)
      for key in keys where !Keys.hasStoredForm(key) {
        Issue.record("\(what): a key in the tables is \(key)")
      }
      // The same form: each list entry finds its rows with SQLite's exact comparison.
      let dangling = try Row.fetchAll(
        db,
        sql: """
          SELECT list, id, owner FROM list_entries AS e
          WHERE NOT EXISTS (SELECT 1 FROM timezones WHERE timezones.id = e.id)
             OR (e.list = 'groupZones' AND NOT EXISTS (SELECT 1 FROM groups WHERE groups.id = e.owner))
             OR (e.list = 'groupZones'
                 AND NOT EXISTS (SELECT 1 FROM timezones WHERE timezones.id = e.id AND timezones.groupId = e.owner))
          """)
      #expect(dangling.isEmpty, "\(what): list entries that name no row exactly: \(dangling)")
      let idColumns: [String: Set<String>] = [
        "groups": ["id"], "timezones": ["id", "groupId"], "list_entries": ["id", "owner"],
      ]
      for row in try Row.fetchAll(db, sql: "SELECT seq, changes, payload FROM action_log ORDER BY seq") {
        let seq: Int64 = row["seq"]
        for change in try RowChange.decodeJSON(row["changes"]) {
          guard let columns = idColumns[change.table] else { continue }
          for image in [change.key, change.before, change.after].compactMap({ $0 }) {
            for (column, value) in image where columns.contains(column) && value != .null {
              if !Keys.hasStoredForm(value) {
                Issue.record("\(what): seq \(seq) logs \(change.table).\(column) as \(value)")
              }
            }
          }
        }
        // Payloads are JSON written by Codable: UUIDs in uppercase, the default form.
        if Keys.self == UppercaseUUIDKeys.self, let payload = try? JSONValue.parse(row["payload"]) {
          for text in payload.strings where UUID(uuidString: text) != nil && !Keys.hasExportForm(.string(text)) {
            Issue.record("\(what): seq \(seq)'s payload holds \(text)")
          }
        }
      }
    }
  }

  /// An export writes every key in the strategy's form.
  func checkExportForms(_ json: String, _ what: String) throws {
    guard case .object(let export) = try JSONValue.parse(json),
      case .object(let entities)? = export["entities"], case .object(let lists)? = export["lists"],
      case .array(let groups)? = entities["groups"], case .array(let zones)? = entities["timezones"],
      case .array(let family)? = lists["groupZones"], case .array(let favourites)? = lists["favourites"]
    else {
      Issue.record("\(what): not the world clock's export: \(json)")
      return
    }
    var keys: [JSONValue] = []
    for case .object(let row) in groups { keys.append(row["id"] ?? .null) }
    for case .object(let row) in zones { keys += [row["id"] ?? .null, row["groupId"] ?? .null] }
    for case .object(let list) in family {
      keys.append(list["owner"] ?? .null)
      if case .array(let ids)? = list["ids"] { keys += ids }
    }
    keys += favourites
    for key in keys where !Keys.hasExportForm(key) {
      Issue.record("\(what): the export holds the key \(key)")
    }
  }

  /// The session's export, imported into a new file (set up by the app, empty), exports the
  /// same bytes; the new file opens to the same state, verifies, and undoes the import.
  func exportImportsIntoAFreshFile() throws {
    let json = try RewindDatabase(path: path, readOnly: true).export()
    let fresh = directory.path("fresh.sqlite")
    let empty = try worldClock(Keys.self, path: fresh, uuids: SeededUUIDs(seed: 0)).state
    let tool = try RewindDatabase(path: fresh)
    let before = try tool.export()
    #expect(try tool.importState(json) != nil || json == before)
    #expect(try tool.export() == json, "export → import into a new file → export")
    #expect(try tool.verify().problems == [], "the imported file verifies")
    // Memory of a store on the imported file is the session's, view state included.
    let imported = try worldClock(Keys.self, path: fresh, uuids: SeededUUIDs(seed: 0))
    #expect(imported.state == store.state, "the imported file opens to the session's state")
    try checkKeyForms(after: "the imported file", in: fresh)
    // And the import is one undoable step.
    if json != before {
      #expect(try imported.undo() != nil)
      #expect(imported.state == empty)
      #expect(try tool.export() == before)
      #expect(try imported.redo() != nil)
      #expect(try tool.export() == json)
    }
  }
}

extension JSONValue {
  /// Every string in the value, at any depth (object keys excluded).
  var strings: [String] {
    switch self {
    case .string(let text): [text]
    case .array(let values): values.flatMap(\.strings)
    case .object(let object): object.values.flatMap(\.strings)
    default: []
    }
  }
}
