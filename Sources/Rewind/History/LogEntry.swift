/// One entry to append to `action_log`.
struct LogEntry {
  /// What wrote the entry; the values of `action_log.kind`.
  enum Kind: String {
    case action, initialize, undo, redo, jump, repair, restore, `import`, compact
    /// An app migration (payload: its identifier, kind, version and described changes).
    case migration
  }

  /// How the entry takes part in undo.
  enum UndoRecording: Equatable {
    /// Undo skips it.
    case none
    /// It is an undo step of its own, or joins the open step with the same group key.
    case step(group: String?)
    /// It joins the step the previous entry of the same transaction started.
    case joinLastStep
  }

  var kind: Kind
  var action: String
  var payload: String
  var changes: [RowChange]
  var undo: UndoRecording

  /// Whether `changes` change the document (any table but `view_state`).
  static func changesDocument(_ changes: [RowChange]) -> Bool {
    changes.contains { $0.table != EngineTable.viewState.name }
  }
}

/// Which part of the state a jump moves.
public enum Timeline: String, Sendable, CaseIterable {
  /// Entities, order lists and view state together.
  case all
  /// Entities and order lists; the view state stays as it is.
  case document
  /// The view state; the document stays as it is.
  case view

  func includes(_ table: String) -> Bool {
    switch self {
    case .all: true
    case .document: table != EngineTable.viewState.name
    case .view: table == EngineTable.viewState.name
    }
  }
}
