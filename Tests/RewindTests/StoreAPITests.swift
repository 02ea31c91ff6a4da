import Foundation
import GRDB
import Observation
import Testing

@testable import Rewind
@testable import TasksExample

@MainActor
struct CompositionTests {
  @Test func featureStatesPersistThroughReopenWithNoExtraWorkPerFeature() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("tasks.sqlite")
    var committed = TasksState()
    do {
      let store = try TasksStore.tasks(path: path)
      try store.send(.add(title: "Milk"))
      try store.send(.search("mi"))  // list feature, via Scope
      try store.send(.settings(.setShowCompleted(false)))  // settings feature, via Scope
      try store.send(.rename(id: 1, title: "Oat milk"))  // row feature, via forEach
      try store.send(.present(.newTask(draftTitle: "")))
      try store.send(.form(.setDraft("Bread")))  // form feature, via ifLet
      committed = store.state
    }
    #expect(committed.list.searchText == "mi")
    #expect(!committed.settings.showCompleted)
    #expect(committed.tasks[1]?.title == "Oat milk")
    #expect(committed.view.modal == .newTask(draftTitle: "Bread"))
    #expect(try TasksStore.tasks(path: path).state == committed)
    let paths = try DatabaseQueue(path: path).read {
      try String.fetchAll($0, sql: "SELECT path FROM view_state ORDER BY path")
    }
    #expect(
      paths == [
        "importStatus", "list.isEditing", "list.scrollOffset", "list.searchText", "modal", "settings.showCompleted",
      ])
  }

  @Test func ifLetRunsTheChildOnlyWhileItsStateIsPresent() throws {
    let store = try TasksStore(inMemory: TasksState(), reducer: TasksReducer())
    try store.send(.form(.setDraft("ignored")))  // no modal
    #expect(store.state.view.modal == nil)
    try store.send(.present(.settings))
    try store.send(.form(.setDraft("ignored")))  // another modal
    #expect(store.state.view.modal == .settings)
    try store.send(.present(.newTask(draftTitle: "")))
    try store.send(.form(.setDraft("Plan")))
    #expect(store.state.view.modal == .newTask(draftTitle: "Plan"))
  }

  @Test func forEachRunsTheRowFeatureOnOneEntityAndIgnoresMissingIds() throws {
    let store = try TasksStore(inMemory: TasksState(), reducer: TasksReducer())
    try store.send(.add(title: "A"))
    try store.send(.add(title: "B"))
    let rows = try store.repository.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM action_log") }
    try store.send(.toggle(id: 2))
    try store.send(.toggle(id: 9))
    #expect(store.state.tasks[2]?.isDone == true)
    #expect(store.state.tasks[1]?.isDone == false)
    #expect(store.state.tasks.count == 2)
    // The first is logged under the row feature's action name; the second changed nothing, so
    // nothing was logged for it.
    let log = try store.repository.database.read {
      try Row.fetchAll($0, sql: "SELECT action, changes FROM action_log WHERE seq > ?", arguments: [rows])
    }
    #expect(log.map { $0["action"] as String } == ["toggle"])
    #expect(try store.send(.toggle(id: 9)) == nil)
  }
}

@MainActor
struct ScopedObservationTests {
  /// Whether reading `read` inside observation tracking is invalidated by `change`.
  func notifies(_ read: () -> Void, when change: () throws -> Void) rethrows -> Bool {
    final class Flag: @unchecked Sendable { var value = false }
    let flag = Flag()
    withObservationTracking(read, onChange: { flag.value = true })
    try change()
    return flag.value
  }

  @Test func aTaskRowIsNotNotifiedBySearchButIsByItsRename() throws {
    let store = try TasksStore(inMemory: TasksState(), reducer: TasksReducer())
    try store.send(.add(title: "Milk"))
    try store.send(.add(title: "Bread"))
    let row = store.scope(state: \.tasks[1])
    #expect(try !notifies({ _ = row.state }, when: { try store.send(.search("bread")) }))
    #expect(try !notifies({ _ = row.state }, when: { try store.send(.rename(id: 2, title: "Rye")) }))
    #expect(try notifies({ _ = row.state }, when: { try store.send(.rename(id: 1, title: "Oat milk")) }))
    #expect(row.state?.title == "Oat milk")
    // The root store's observers see every commit.
    #expect(try notifies({ _ = store.state }, when: { try store.send(.search("")) }))
  }

  @Test func aSearchFieldIsNotifiedBySearchButNotByARename() throws {
    let store = try TasksStore(inMemory: TasksState(), reducer: TasksReducer())
    try store.send(.add(title: "Milk"))
    let list = store.scope(state: \.list, action: .list)
    #expect(try !notifies({ _ = list.state }, when: { try store.send(.rename(id: 1, title: "Oat milk")) }))
    #expect(try notifies({ _ = list.state }, when: { try list.send(.search("oat")) }))
    #expect(list.state.searchText == "oat")
    #expect(store.state.visibleTasks.map(\.title) == ["Oat milk"])
  }

  /// The history's position is observed with the state: a send, an undo and a redo each
  /// notify readers of `lastSeq`, `canUndo` and `canRedo`.
  @Test func historyReadersAreNotifiedByEveryCommit() throws {
    let store = try TasksStore(inMemory: TasksState(), reducer: TasksReducer())
    #expect(try notifies({ _ = store.lastSeq }, when: { try store.send(.add(title: "Milk")) }))
    #expect(try notifies({ _ = store.canUndo }, when: { try store.send(.add(title: "Bread")) }))
    #expect(try notifies({ _ = store.canRedo }, when: { try store.undo() }))
    #expect(store.canRedo)
    #expect(try notifies({ _ = store.lastSeq }, when: { try store.redo() }))
    #expect(!store.canRedo)
  }

  @Test func undoRefreshesScopedStoresToo() throws {
    let store = try TasksStore(inMemory: TasksState(), reducer: TasksReducer())
    try store.send(.add(title: "Milk"))
    let row = store.scope(state: \.tasks[1])
    try store.send(.rename(id: 1, title: "Oat milk"))
    #expect(try notifies({ _ = row.state }, when: { try store.undo() }))
    #expect(row.state?.title == "Milk")
  }

  @Test func aScopedStoreOutlivingItsStoreKeepsItsLastStateAndRefusesToSend() throws {
    var store: TasksStore? = try TasksStore(inMemory: TasksState(), reducer: TasksReducer())
    try store?.send(.add(title: "Milk"))
    let list = try #require(store?.scope(state: \.list, action: .list))
    store = nil
    #expect(list.state.searchText == "")
    #expect {
      try list.send(.search("oat"))
    } throws: { error in
      (error as? RewindError)?.code == .storeReleased
    }
  }
}

// MARK: - Effects

/// A feature whose requests answer after a delay, to test cancellation and stale results.
private struct Lookup: Reducer {
  struct State: PersistentState, Codable, Equatable, Sendable {
    var result = Loadable<String>()
    static var schema: StateSchema<Self> { StateSchema(.view(\.self)) }
  }

  enum Action: LoggedAction, Equatable {
    case look(query: String, delayMilliseconds: Int, cancelInFlight: Bool)
    case answered(request: Int64, answer: String)
    case stop
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .look(let query, let delay, let cancelInFlight):
      let request = state.result.begin()
      return .run { send in
        try await Task.sleep(for: .milliseconds(delay))
        try await send(.answered(request: request, answer: query.uppercased()))
      }
      .cancellable(id: "lookup", cancelInFlight: cancelInFlight)
    case .answered(let request, let answer):
      state.result.succeed(request, with: answer)
      return .none
    case .stop:
      state.result.reset()
      return .cancel(id: "lookup")
    }
  }
}

@MainActor
struct EffectTests {
  @Test func aNewerRequestCancelsTheOlderAndItsLateResultIsDropped() async throws {
    let store = try Store(inMemory: Lookup.State(), reducer: Lookup())
    try store.send(.look(query: "slow", delayMilliseconds: 300, cancelInFlight: true))
    try store.send(.look(query: "fast", delayMilliseconds: 10, cancelInFlight: true))
    await store.finishEffects()
    #expect(store.state.result.value == "FAST")
    // Only the newer answer was sent and logged; the cancelled request never answered.
    let actions = try await store.repository.database.read {
      try String.fetchAll($0, sql: "SELECT payload FROM action_log WHERE action = 'answered'")
    }
    #expect(actions.count == 1)
    #expect(actions.first?.contains("FAST") == true)
  }

  @Test func aSupersededResultThatArrivesAnywayIsRefusedByLoadable() async throws {
    // Without cancellation both answers arrive; the older one lands last and is refused.
    let store = try Store(inMemory: Lookup.State(), reducer: Lookup())
    try store.send(.look(query: "old", delayMilliseconds: 150, cancelInFlight: false))
    try store.send(.look(query: "new", delayMilliseconds: 10, cancelInFlight: false))
    await store.finishEffects()
    #expect(store.state.result.value == "NEW")
    let answered = try store.repository.database.read {
      try Row.fetchAll($0, sql: "SELECT payload, changes FROM action_log WHERE action = 'answered' ORDER BY seq")
    }
    // The stale answer changed nothing, so only the fresh one is logged.
    #expect(answered.count == 1)
    #expect((answered.last?["payload"] as String?)?.contains("NEW") == true)
  }

  @Test func cancelStopsARunningEffect() async throws {
    let store = try Store(inMemory: Lookup.State(), reducer: Lookup())
    try store.send(.look(query: "never", delayMilliseconds: 200, cancelInFlight: false))
    try store.send(.stop)
    await store.finishEffects()
    #expect(store.state.result.phase == .idle)
    let answers = try await store.repository.database.read {
      try Int.fetchOne($0, sql: "SELECT count(*) FROM action_log WHERE action = 'answered'")
    }
    #expect(answers == 0)
  }

  @Test func loadableAdmitsOnlyValidTransitions() {
    var status = Loadable<Int>()
    let early = status.succeed(1, with: 1)
    #expect(!early)  // nothing in flight
    let first = status.begin()
    let second = status.begin()
    let superseded = status.succeed(first, with: 1)
    let lateFailure = status.fail(first, message: "late")
    #expect(!superseded && !lateFailure)
    #expect(status.isLoading)
    let current = status.succeed(second, with: 2)
    let afterSuccess = status.fail(second, message: "after success")
    #expect(current && !afterSuccess)
    #expect(status.value == 2)
    status.reset()
    let abandoned = status.succeed(second, with: 3)
    #expect(!abandoned)
    #expect(status.phase == .idle)
  }
}
