import Rewind

/// The settings screen: display preferences, persisted as view-state rows under `settings.`.
public struct SettingsFeature: Reducer {
  public struct State: PersistentState, Codable, Equatable, Sendable {
    /// Whether the list shows tasks that are done.
    public var showCompleted = true

    public init() {}

    public static var schema: StateSchema<Self> { StateSchema(.view(\.self)) }
  }

  public enum Action: Codable, Equatable, Sendable {
    case setShowCompleted(Bool)

    var name: String { "setShowCompleted" }
  }

  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .setShowCompleted(let show): state.showCompleted = show
    }
    return .none
  }
}
