import Testing

@testable import Rewind

/// `CombineReducers` composes concrete types: lines run in order, `if` and `if`-`else` pick
/// reducers when the composition is built, and effects merge without losing any.
struct ReducerBuilderTests {
  struct State: Equatable {
    var log: [String] = []
  }

  enum Action: Sendable {
    case go
  }

  struct Logs: Reducer {
    let name: String
    var effect = false

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      state.log.append(name)
      return effect ? .run { _ in } : .none
    }
  }

  static func effects(_ effect: Effect<Action>) -> Int {
    switch effect.operation {
    case .none: 0
    case .merge(let effects): effects.map(Self.effects).reduce(0, +)
    default: 1
    }
  }

  @Test func linesRunInOrderAndEffectsMerge() {
    let reducer = CombineReducers<State, Action, _> {
      Logs(name: "a", effect: true)
      Logs(name: "b")
      Logs(name: "c", effect: true)
      Logs(name: "d", effect: true)
    }
    var state = State()
    let effect = reducer.reduce(into: &state, action: .go)
    #expect(state.log == ["a", "b", "c", "d"])
    #expect(Self.effects(effect) == 3)
  }

  @Test(arguments: [false, true])
  func conditionsChooseWhenBuilt(_ flag: Bool) {
    let reducer = CombineReducers<State, Action, _> {
      Logs(name: "first")
      if flag {
        Logs(name: "optional")
      }
      if flag {
        Logs(name: "then")
      } else {
        Logs(name: "else")
      }
    }
    var state = State()
    #expect(Self.effects(reducer.reduce(into: &state, action: .go)) == 0)
    #expect(state.log == (flag ? ["first", "optional", "then"] : ["first", "else"]))
  }

  /// The article's sample: a composition with `forEach` in it, run by a store.
  @Test @MainActor func theArticlesCompositionRunsEachReducer() throws {
    let store = try Store(inMemory: NotesState(), reducer: NotesAppReducer())
    try store.send(.write(text: "a"))
    try store.send(.write(text: "b"))
    #expect(store.state.view.selection == 2)
    try store.send(.pin(id: 1, .toggle))
    #expect(store.state.notes[1]?.isPinned == true && store.state.notes[2]?.isPinned == false)
    // An action for a note the table does not hold runs no row reducer and logs nothing.
    let seq = store.lastSeq
    #expect(try store.send(.pin(id: 99, .toggle)) == nil)
    #expect(store.state.notes.ids.sorted() == [1, 2] && store.lastSeq == seq)
  }

  @Test func anEmptyCompositionChangesNothing() {
    let reducer = CombineReducers<State, Action, _> {}
    var state = State()
    #expect(Self.effects(reducer.reduce(into: &state, action: .go)) == 0)
    #expect(state == State())
  }
}
