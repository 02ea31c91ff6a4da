import GRDB
import Testing

@testable import Rewind

// A view state that is a dictionary is stored a row per key, at "prefix.key". A key holding a
// "." made a row that loads as no property: written, lost on reopen, and kept by memory after
// a jump removed it. Such a key is refused, naming it, with nothing written.

private struct Sheet: PersistentState, Equatable {
  var widths: [String: Double] = [:]

  static var schema: StateSchema<Self> { StateSchema(.view(\.widths, at: "widths")) }
}

private enum SheetAction: LoggedAction {
  case setWidth(String, Double)
}

private struct SheetReducer: Reducer {
  func reduce(into state: inout Sheet, action: SheetAction) -> Effect<SheetAction> {
    switch action {
    case .setWidth(let column, let width): state.widths[column] = width
    }
    return .none
  }
}

@MainActor
struct ViewStateKeyTests {
  let directory: TemporaryDirectory
  var path: String { directory.path("sheet.sqlite") }

  init() throws { directory = try TemporaryDirectory() }

  fileprivate func open(_ initial: Sheet = Sheet(), readOnly: Bool = false) throws -> Store<Sheet, SheetAction> {
    try Store(path: path, initialState: initial, reducer: SheetReducer(), readOnly: readOnly)
  }

  @Test func aDictionaryKeyWithADotIsRefusedAndNothingIsWritten() throws {
    let store = try open()
    try store.send(.setWidth("A", 80))
    try store.send(.setWidth("", 12))
    let before = try dump(path)
    let error = expectRewindError(.invalidValue) { try store.send(.setWidth("Sheet1.A", 80)) }
    #expect(error?.message.contains(#""Sheet1.A""#) == true, "\(String(describing: error))")
    #expect(try dump(path) == before)
    #expect(store.state.widths == ["A": 80, "": 12])
    // Keys without a dot go on working, and read back as written.
    try store.send(.setWidth("B", 40))
    #expect(try open(readOnly: true).state.widths == ["A": 80, "": 12, "B": 40])
    try store.jump(to: 0, timeline: .view)
    #expect(store.state.widths == [:])
    #expect(try open(readOnly: true).state.widths == [:])
    #expect(try RewindDatabase(path: path, readOnly: true).verify().isHealthy)
  }

  @Test func anInitialStateWithSuchAKeyIsRefusedOnOpen() throws {
    let error = expectRewindError(.invalidValue) { try open(Sheet(widths: ["v1.2": 3])) }
    #expect(error?.message.contains(#""v1.2""#) == true, "\(String(describing: error))")
  }
}
