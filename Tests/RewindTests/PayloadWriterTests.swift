import Foundation
import GRDB
import PropertyBased
import Testing

@testable import Rewind
@testable import TasksExample

/// An action that writes its payload itself (`LoggedAction.writePayload(to:)`) must log the
/// text its `Codable` encoding gives, byte for byte: the log is read back with `Codable`.
@MainActor
struct PayloadWriterTests {
  static let strings = [
    "", "Buy milk", #"say "hi""#, #"back\slash"#, "tab\tnew\nline\r", "\u{1}\u{1F}", "café", "cafe\u{301}",
    "日本語", "🧑‍💻 emoji", "\u{7F}", "/slash", String(repeating: "x", count: 300),
  ]
  static let integers: [Int64] = [0, 1, -1, 42, 9_007_199_254_740_993, .max, .min]
  static let doubles: [Double] = [0, -0.0, 80, -3.5, 0.1, 1e300, 9_007_199_254_740_992, .leastNormalMagnitude / 4, .pi]

  /// A random action of any case, the ones written through `Codable` included.
  static func action(_ random: inout SplitMix64) -> TasksAction {
    func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
    let text = pick(strings)
    let id = pick(integers)
    let optionalID = random.next() % 3 == 0 ? nil : id
    let rowAction = pick([TaskRow.Action.rename(text), .append(text), .toggle, .note(text)])
    let listAction = pick([
      ListFeature.Action.search(text), .scroll(pick(doubles)), .setEditing(random.next() % 2 == 0),
    ])
    return pick([
      .add(title: text, project: optionalID), .delete(id: id), .move(id: id, to: Int(truncatingIfNeeded: id)),
      .addProject(name: text), .deleteProject(id: id), .favorite(id: id), .row(id: id, action: rowAction),
      .select(id: optionalID), .selectProject(id: optionalID), .present(.newTask(draftTitle: text)),
      .present(.settings), .dismiss, .list(listAction), .settings(.setShowCompleted(true)), .form(.setDraft(text)),
      .importFile(path: text), .importFailed(request: id, message: text),
      .importFinished(request: id, file: text, items: [.init(title: text, done: nil), .init(title: "b", done: true)]),
    ])
  }

  @Test func everyActionIsLoggedAsItsCodableEncoding() async {
    await checkProperty(count: 50, input: Gen.int(in: 0...1_000_000)) { seed in
      var random = SplitMix64(seed: UInt64(seed))
      for _ in 0..<40 {
        let action = Self.action(&random)
        let encoded = try CompactJSONEncoder.encode(action)
        #expect(try action.payloadText() == encoded, "\(action)")
        #expect(try JSONDecoder().decode(TasksAction.self, from: Data(encoded.utf8)) == action)
      }
    }
  }

  @Test func theMixSendsMostWriteTheirPayloadsThemselves() throws {
    for action: TasksAction in [
      .add(title: "A"), .rename(id: 1, title: "B"), .toggle(id: 1), .move(id: 1, to: 0), .select(id: 1), .search("x"),
    ] {
      var writer = JSONObjectWriter()
      #expect(try action.writePayload(to: &writer), "\(action) goes through Codable")
      #expect(writer.finish() == (try CompactJSONEncoder.encode(action)))
    }
    var writer = JSONObjectWriter()
    #expect(try TasksAction.dismiss.writePayload(to: &writer) == false)
  }

  /// An action is logged under its payload's first key (its case name), read without
  /// decoding the payload; a key that would need unescaping falls back to the type's name.
  @Test func anActionIsNamedByItsPayloadsFirstKey() {
    let cases: [(payload: String, name: String)] = [
      (#"{"add":{"title":"x"}}"#, "add"), (#"{"toggle":{}}"#, "toggle"), (#"{"":1}"#, ""),
      (#"{"café":1}"#, "café"), (#"{"a\"b":1}"#, "TasksAction"), (#"{"unterminated"#, "TasksAction"),
      ("{}", "TasksAction"), (#"["add"]"#, "TasksAction"), ("", "TasksAction"), (#"{""#, "TasksAction"),
    ]
    for (payload, name) in cases {
      #expect(TasksAction.logName(customName: nil, payload: payload) == name, "\(payload)")
    }
    #expect(TasksAction.logName(customName: "custom", payload: #"{"add":1}"#) == "custom")
  }

  /// A written payload names the action as its text would: the writer keeps the first key
  /// only when it wrote it with no escape, where reading the text finds none.
  @Test func aWrittenPayloadNamesTheActionAsItsTextWould() throws {
    for action: TasksAction in [
      .add(title: "A"), .rename(id: 1, title: "B"), .toggle(id: 1), .move(id: 1, to: 0), .select(id: 1), .search("x"),
      .dismiss, .row(id: 1, action: .toggle), .scroll(3),
    ] {
      let (payload, name) = try action.logged()
      #expect(payload == (try CompactJSONEncoder.encode(action)))
      #expect(name == TasksAction.logName(customName: action.customName, payload: payload), "\(payload)")
      #expect(name == action.name)
    }
    for key in ["add", "", "café", #"a"b"#, "a\\b", "tab\there", "line\n"] {
      var writer = JSONObjectWriter()
      try writer.write(key, 1)
      try writer.write(key + "~", 2)
      let text = writer.finish()
      #expect(writer.firstKey == JSONObjectMembers.firstKey(text), "\(text)")
    }
  }

  @Test func aStoreLogsTheWrittenPayloads() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    let store = try TasksStore.tasks(path: path)
    try store.send(.add(title: #"Say "hi""#))
    try store.send(.row(id: 1, action: .toggle))
    try store.send(.scroll(12.5))
    let logged = try DatabaseQueue(path: path).read { db in
      try Row.fetchAll(db, sql: "SELECT action, payload FROM action_log WHERE seq > 1 ORDER BY seq").map {
        "\($0["action"] as String) \($0["payload"] as String)"
      }
    }
    #expect(
      logged == [
        #"add {"add":{"title":"Say \"hi\""}}"#, #"toggle {"row":{"action":{"toggle":{}},"id":1}}"#,
        #"scroll {"list":{"_0":{"scroll":{"_0":12.5}}}}"#,
      ])
  }

  @Test func membersOutOfOrderAreRefusedAndNothingChanges() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("jottings.sqlite")
    let store = try Store(path: path, initialState: JottingsState(), reducer: JottingsReducer())
    try store.send(.write(text: "kept"))
    let before = try dump(path)
    #expect {
      try store.send(.unordered(text: "lost"))
    } throws: { error in
      let error = error as? RewindError
      return error?.code == .invalidValue
        && error?.message
          == #"JottingsAction.writePayload(to:): a payload's members must be written in ascending key order, once each, as its Codable encoding is logged: "a" came after "b""#
    }
    #expect(store.state.pad.text == "kept")
    #expect(try dump(path) == before)
    // The store goes on.
    try store.send(.write(text: "next"))
    #expect(store.state.pad.text == "next")
  }

  /// An object member checks the order of its own keys, from the first; the outer object's
  /// check resumes after it; only a top-level key names the action.
  @Test func aNestedObjectChecksItsOwnKeyOrder() throws {
    var writer = JSONObjectWriter()
    try writer.writeObject("m") { inner in
      try inner.write("a", 1)
      try inner.writeObject("z") { _ in }
    }
    try writer.write("n", true)
    #expect(writer.finish() == #"{"m":{"a":1,"z":{}},"n":true}"#)
    #expect(writer.firstKey == "m")

    var resumed = JSONObjectWriter()
    try resumed.writeObject("m") { try $0.write("z", 1) }
    #expect(throws: RewindError.self) { try resumed.write("b", 2) }

    var inner = JSONObjectWriter()
    #expect(throws: RewindError.self) {
      try inner.writeObject("m") { object in
        try object.write("b", 1)
        try object.write("a", 2)
      }
    }

    var escaped = JSONObjectWriter()
    try escaped.writeObject(#"a"b"#) { try $0.write("x", 1) }
    #expect(escaped.firstKey == nil)
  }

  @Test func aMemberWrittenTwiceIsRefused() throws {
    var writer = JSONObjectWriter()
    try writer.write("a", 1)
    #expect(throws: RewindError.self) { try writer.write("a", 2) }
    #expect(throws: EncodingError.self) { try writer.write("b", Double.nan) }
  }

  #if DEBUG
    @Test func aPayloadUnlikeItsCodableEncodingIsRefusedInDebugBuilds() throws {
      let directory = try TemporaryDirectory()
      let path = directory.path("jottings.sqlite")
      let store = try Store(path: path, initialState: JottingsState(), reducer: JottingsReducer())
      let before = try dump(path)
      #expect {
        try store.send(.misspelled(text: "x"))
      } throws: { error in
        (error as? RewindError)?.message
          == #"JottingsAction.writePayload(to:) wrote {"misspeled":{"text":"x"}}, where its Codable encoding is {"misspelled":{"text":"x"}}: the log must hold the text the action decodes from (keys in ascending order, nil optionals left out)"#
      }
      #expect(try dump(path) == before)
    }
  #endif
}

private struct Jotting: Entity {
  static let databaseTableName = "jottings"
  var id: Int64
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in t.primaryKey("id", .integer) }
  }
}

private struct JottingsState: PersistentState, Equatable {
  var jottings = EntityTable<Jotting>()
  var pad = Pad()
  static var schema: StateSchema<Self> { StateSchema(.entities(\.jottings), .view(\.pad)) }
}

private struct Pad: Codable, Equatable, Sendable {
  var text = ""
}

private enum JottingsAction: LoggedAction {
  case write(text: String)
  case unordered(text: String)
  case misspelled(text: String)

  func writePayload(to payload: inout JSONObjectWriter) throws -> Bool {
    switch self {
    case .write(let text):
      try payload.writeObject("write") { try $0.write("text", text) }
    case .unordered(let text):
      try payload.writeObject("unordered") { object in
        try object.write("b", text)
        try object.write("a", text)
      }
    case .misspelled(let text):
      try payload.writeObject("misspeled") { try $0.write("text", text) }
    }
    return true
  }
}

private struct JottingsReducer: Reducer {
  func reduce(into state: inout JottingsState, action: JottingsAction) -> Effect<JottingsAction> {
    switch action {
    case .write(let text), .unordered(let text), .misspelled(let text): state.pad.text = text
    }
    return .none
  }
}
