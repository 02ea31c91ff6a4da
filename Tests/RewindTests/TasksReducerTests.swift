import Testing

@testable import Rewind
@testable import TasksExample

struct TasksReducerTests {
  func reduce(_ actions: [TasksAction], from state: TasksState = TasksState()) -> TasksState {
    var state = state
    for action in actions { _ = TasksReducer().reduce(into: &state, action: action) }
    return state
  }

  @Test func deletingTheSelectedTaskClearsTheSelectionAndBothLists() {
    let state = reduce([.add(title: "A"), .add(title: "B"), .favorite(id: 1), .select(id: 1), .delete(id: 1)])
    #expect(state.tasks.ids.sorted() == [2])
    #expect(state.allTasks.ids == [2])
    #expect(state.favorited.isEmpty)
    #expect(state.view.selection == nil)
  }

  @Test func selectingAMissingTaskSelectsNothing() {
    #expect(reduce([.add(title: "A"), .select(id: 9)]).view.selection == nil)
  }

  @Test func derivedValuesFollowTheState() {
    let state = reduce([
      .add(title: "Milk"), .add(title: "Bread"), .add(title: "Oat milk"), .toggle(id: 1), .search("MILK"),
    ])
    #expect(state.visibleTasks.map(\.id) == [1, 3])
    #expect(state.remainingCount == 2)
  }

  @Test func addingFromTheNewTaskFormDismissesIt() {
    let state = reduce([.present(.newTask(draftTitle: "Milk")), .add(title: "Milk")])
    #expect(state.view.modal == nil)
  }

  @Test func actionNamesAreCaseNames() {
    #expect(TasksAction.add(title: "x").name == "add")
    #expect(TasksAction.dismiss.name == "dismiss")
    #expect(TasksAction.setEditing(true).name == "setEditing")
  }
}
