import GRDB
import TasksExample
import Testing

@testable import Rewind

/// What an action changed in an entity table, as the schema takes it for the log, against a
/// plain dictionary: random actions of random edits (inserts, in-place changes, removals,
/// values set back to what they were, dozens of entities at once), each action's changes
/// compared with the model's before and after for every id whose value differs.
struct EntityTrackingModelTests {
  struct Root {
    var tasks = EntityTable<TaskItem>()
  }

  @Test(arguments: [UInt64(1), 2, 3, 4])
  func eachActionLogsExactlyTheEntitiesItChanged(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let schema = StateSchema<Root>.entities(\.tasks)
    var root = Root()
    var model: [Int64: TaskItem] = [:]
    for step in 0..<400 {
      let before = model
      // One action: a few edits, sometimes many (the table of touched entities grows beyond
      // what is kept between actions), sometimes none that change anything.
      let edits = random.next() % 8 == 0 ? 40 : Int(random.next() % 4)
      for _ in 0..<edits {
        let id = Int64(random.next() % 30) + 1
        switch random.next() % 5 {
        case 0:
          let task = TaskItem(id: id, title: "t\(random.next() % 5)", isDone: random.next() % 2 == 0)
          root.tasks.insert(task)
          model[id] = task
        case 1:
          root.tasks[id]?.title = "r\(random.next() % 3)"
          model[id]?.title = root.tasks[id]?.title ?? ""
        case 2:
          _ = root.tasks.remove(id: id)
          model[id] = nil
        case 3:
          // Touched and left as it was.
          let current = root.tasks[id]
          root.tasks[id] = current
        default:
          root.tasks[id]?.isDone.toggle()
          model[id]?.isDone.toggle()
        }
      }
      let changes = try schema.takeChanges(from: &root)
      let changedIDs = Set(before.keys).union(model.keys).filter { before[$0] != model[$0] }
      let expected = changedIDs.sorted().map { id in
        StateSchema<Root>.entityChange(before: before[id], after: model[id])
      }
      let taken = changes.sorted { ($0.key["id"]?.storage.int64 ?? 0) < ($1.key["id"]?.storage.int64 ?? 0) }
      #expect(taken == expected, "step \(step)")
      #expect(root.tasks.count == model.count, "step \(step)")
      for (id, task) in model { #expect(root.tasks[id] == task, "step \(step), task \(id)") }
      // Nothing is left to take once taken.
      #expect(try schema.takeChanges(from: &root).isEmpty, "step \(step)")
    }
  }
}

extension StateSchema {
  /// The change of a task's row the log holds, built from its images.
  fileprivate static func entityChange(before: TaskItem?, after: TaskItem?) -> RowChange {
    let id = (before ?? after)!.id
    return RowChange(
      table: TaskItem.databaseTableName, key: ["id": id.databaseValue], before: before?.databaseRowImage(),
      after: after?.databaseRowImage())
  }
}

extension DatabaseValue.Storage {
  fileprivate var int64: Int64? { if case .int64(let value) = self { value } else { nil } }
}
