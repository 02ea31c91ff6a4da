import Rewind

// The payloads of the actions an app sends most, written without `Codable` (about 20,000
// instructions less for a nested case such as `rename`, 13,000 a send in the benchmark's mix).
// The text is the `Codable` encoding's, which debug builds check at every send and
// `PayloadWriterTests` checks for every case; the rarer cases go through `Codable`.
extension TasksAction {
  public func writePayload(to payload: inout JSONObjectWriter) throws -> Bool {
    switch self {
    case .add(let title, let project):
      try payload.writeObject("add") { add in
        if let project { try add.write("project", project) }
        try add.write("title", title)
      }
    case .delete(let id):
      try payload.writeObject("delete") { try $0.write("id", id) }
    case .move(let id, let index):
      try payload.writeObject("move") { move in
        try move.write("id", id)
        try move.write("to", index)
      }
    case .favorite(let id):
      try payload.writeObject("favorite") { try $0.write("id", id) }
    case .row(let id, let action):
      try payload.writeObject("row") { row in
        try row.writeObject("action") { try action.write(to: &$0) }
        try row.write("id", id)
      }
    case .select(let id):
      try payload.writeObject("select") { if let id { try $0.write("id", id) } }
    case .list(let action):
      try payload.writeObject("list") { list in try list.writeObject("_0") { try action.write(to: &$0) } }
    default:
      return false
    }
    return true
  }
}

extension TaskRow.Action {
  func write(to payload: inout JSONObjectWriter) throws {
    switch self {
    case .rename(let title): try payload.writeObject("rename") { try $0.write("_0", title) }
    case .append(let text): try payload.writeObject("append") { try $0.write("_0", text) }
    case .toggle: try payload.writeObject("toggle") { _ in }
    case .note(let notes): try payload.writeObject("note") { try $0.write("_0", notes) }
    }
  }
}

extension ListFeature.Action {
  func write(to payload: inout JSONObjectWriter) throws {
    switch self {
    case .search(let text): try payload.writeObject("search") { try $0.write("_0", text) }
    case .scroll(let offset): try payload.writeObject("scroll") { try $0.write("_0", offset) }
    case .setEditing(let isEditing): try payload.writeObject("setEditing") { try $0.write("_0", isEditing) }
    }
  }
}
