import Foundation
import Testing

@_spi(Testing) @testable import Rewind

/// What an effect's work ended with: cancelled, or run to its end.
final class EffectOutcome: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: String?
  var value: String? {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}

/// The journal's reducer, with an effect after `.search` that works for 5 seconds.
struct LongEffectReducer: Reducer {
  let outcome: EffectOutcome
  func reduce(into state: inout JournalState, action: JournalAction) -> Effect<JournalAction> {
    _ = JournalReducer().reduce(into: &state, action: action)
    guard case .search = action else { return .none }
    return .run { [outcome] _ in
      do {
        try await Task.sleep(for: .seconds(5))
        outcome.value = "finished"
      } catch {
        outcome.value = "cancelled"
      }
    }
  }
}

/// Effects end with their store: a released store cancels the effects still running, whose
/// actions would go nowhere (they ran on, found by an app trial).
@MainActor
struct EffectCancellationTests {
  @Test func releasingAStoreCancelsItsRunningEffects() async throws {
    let outcome = EffectOutcome()
    var store: Store<JournalState, JournalAction>? = try Store(
      inMemory: JournalState(), reducer: LongEffectReducer(outcome: outcome))
    try store?.send(.search("x"))
    #expect(store?.hasRunningEffects == true)
    store = nil
    // Waits for the effect to end either way: cancelled at once, or finished after 5 seconds.
    while outcome.value == nil { try await Task.sleep(for: .milliseconds(10)) }
    #expect(outcome.value == "cancelled")
  }
}
