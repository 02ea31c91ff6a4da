import Rewind

/// The list screen's own state: search, scroll position, edit mode. A feature with its own
/// state, actions and reducer, composed into the app with `Scope` and persisted through its
/// own schema (view-state rows `list.searchText`, `list.scrollOffset`, `list.isEditing`).
public struct ListFeature: Reducer {
  public struct State: PersistentState, Codable, Equatable, Sendable {
    /// The list's search filter.
    public var searchText = ""
    /// The list's scroll offset, in points.
    public var scrollOffset = 0.0
    /// Whether the list is in edit mode.
    public var isEditing = false

    public init() {}

    public static var schema: StateSchema<Self> { StateSchema(.view(\.self)) }
  }

  public enum Action: Codable, Equatable, Sendable {
    case search(String)
    case scroll(Double)
    case setEditing(Bool)

    var name: String {
      switch self {
      case .search: "search"
      case .scroll: "scroll"
      case .setEditing: "setEditing"
      }
    }
  }

  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .search(let text): state.searchText = text
    case .scroll(let offset): state.scrollOffset = offset
    case .setEditing(let isEditing): state.isEditing = isEditing
    }
    return .none
  }
}

/// The properties listed, so that a search compares three values and encodes one, rather than
/// walking `encode(to:)`. (The settings feature does not list its one property: its view state
/// goes through the walk, which every view state can rely on.)
extension ListFeature.State: ViewStateProperties {
  public static let viewProperties: [ViewProperty<Self>] = [
    ViewProperty("searchText", \.searchText),
    ViewProperty("scrollOffset", \.scrollOffset),
    ViewProperty("isEditing", \.isEditing),
  ]
}
