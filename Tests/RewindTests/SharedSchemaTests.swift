import GRDB
import Testing

@testable import Rewind

// A schema's view parts remember what they last wrote, for the store that opened them. A state
// whose `schema` is a stored `static let` hands every store the same parts: two stores then
// share that memory, and one skips a write because the other made it.

private struct Shared: PersistentState, Equatable {
  struct View: Codable, Equatable, Sendable {
    var search = ""
  }
  var view = View()
  nonisolated(unsafe) static let schema = StateSchema<Shared>(.view(\.view))
}

private enum SharedAction: LoggedAction {
  case search(String)
}

private struct SharedReducer: Reducer {
  func reduce(into state: inout Shared, action: SharedAction) -> Effect<SharedAction> {
    if case .search(let text) = action { state.view.search = text }
    return .none
  }
}

@MainActor
struct SharedSchemaTests {
  @Test func twoStoresOfOneStoredSchemaKeepTheirOwnFiles() throws {
    let directory = try TemporaryDirectory()
    let (first, second) = (directory.path("first.sqlite"), directory.path("second.sqlite"))
    let a = try Store(path: first, initialState: Shared(), reducer: SharedReducer())
    let b = try Store(path: second, initialState: Shared(), reducer: SharedReducer())
    #expect(try a.send(.search("milk")) != nil)
    #expect(try b.send(.search("milk")) != nil)
    #expect(try Store(path: second, initialState: Shared(), reducer: SharedReducer()).state.view.search == "milk")
  }
}
