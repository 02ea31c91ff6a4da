import Rewind

/// The new-task form, a modal that may be absent: composed with `ifLet`, it runs only while a
/// modal is presented, and edits the draft only if that modal is the new-task form.
public struct NewTaskForm: Reducer {
  public enum Action: Codable, Equatable, Sendable {
    case setDraft(String)

    var name: String { "setDraft" }
  }

  public init() {}

  public func reduce(into modal: inout ActiveModal, action: Action) -> Effect<Action> {
    switch action {
    case .setDraft(let text):
      if case .newTask = modal { modal = .newTask(draftTitle: text) }
    }
    return .none
  }
}
