import Rewind
import TasksExample

/// The dispatch mix: add, rename, toggle, move, select and search, in turn, each committed on
/// its own. Ids are drawn from the existing tasks so the state keeps its size.
struct Workload {
  /// The mix's kinds of action, in turn.
  static let kinds = ["add", "rename", "toggle", "move", "select", "search"]

  let taskCount: Int64
  /// The kind every action is, rather than each in turn (an index into ``kinds``).
  let onlyKind: Int?
  var random = SplitMix64(seed: 7)
  var added: Int64 = 0

  init(taskCount: Int, onlyKind: Int? = nil) {
    self.taskCount = Int64(taskCount)
    self.onlyKind = onlyKind
  }

  mutating func action(_ index: Int) -> TasksAction {
    let id = Int64(random.next() % UInt64(taskCount)) + 1
    switch onlyKind ?? index % Self.kinds.count {
    case 0:
      added += 1
      return .add(title: "Added \(added)")
    case 1: return .rename(id: id, title: "Renamed \(index)")
    case 2: return .toggle(id: id)
    case 3: return .move(id: id, to: Int(random.next() % UInt64(taskCount)))
    case 4: return .select(id: id)
    default: return .search(index % 12 == 5 ? "" : "task \(index % 100)")
    }
  }

  /// A state of `count` tasks, all in `allTasks`, every tenth a favorite.
  static func state(taskCount: Int) -> TasksState {
    var state = TasksState()
    for id in Int64(1)...Int64(taskCount) {
      state.tasks.insert(TaskItem(id: id, title: "Task number \(id)", isDone: id % 3 == 0))
      state.allTasks.append(id)
      if id % 10 == 0 { state.favorited.append(id) }
    }
    return state
  }
}

struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
