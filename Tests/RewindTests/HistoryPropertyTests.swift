import Foundation
import PropertyBased
import Testing

@testable import Rewind
@testable import TasksExample

/// History over random sessions of actions, undos, redos and reopens.
@MainActor
struct HistoryPropertyTests {
  static let sessions = Gen.int(in: 0...100_000).array(of: 1...35)

  @Test func undoingEverythingReturnsTheInitialDocumentAndRedoingReturnsTheFinalOne() async {
    await checkProperty(count: 40, input: Self.sessions) { codes in
      let directory = try TemporaryDirectory()
      var session = try RandomSession(path: directory.path("tasks.sqlite"))
      let initial = session.store.state
      for code in codes { try session.perform(code) }
      // The session may end with undone steps: reapply them first, so that `final` is the
      // state with every step on either stack applied.
      while try session.store.redo() != nil {}
      let final = session.store.state

      var undos = 0
      while try session.store.undo() != nil {
        undos += 1
        if undos % 4 == 0 { try session.reopen() }
      }
      #expect(session.store.state.document == initial.document)
      #expect(!session.store.canUndo)
      // Undo repaired any selection of a task that no longer exists.
      #expect(session.store.state.view.selection == nil)

      while try session.store.redo() != nil {}
      #expect(session.store.state.document == final.document)
      #expect(!session.store.canRedo)
      try session.reopen()
      #expect(session.store.state.document == final.document)
    }
  }

  @Test func jumpingToAnySeqGivesTheStateAndRowsRecordedRightAfterIt() async {
    await checkProperty(count: 25, input: Self.sessions) { codes in
      let directory = try TemporaryDirectory()
      var session = try RandomSession(path: directory.path("tasks.sqlite"))
      var states: [Int64: TasksState] = [session.store.lastSeq: session.store.state]
      var rows: [Int64: [String]] = [session.store.lastSeq: try session.stateRows()]
      for code in codes {
        try session.perform(code)
        states[session.store.lastSeq] = session.store.state
        rows[session.store.lastSeq] = try session.stateRows()
      }
      // Jump around in an order the session chooses, reopening now and then.
      let seqs = states.keys.sorted()
      for (index, code) in codes.enumerated() {
        let seq = seqs[code % seqs.count]
        try session.store.jump(to: seq)
        #expect(session.store.state == states[seq], "jump to \(seq)")
        #expect(try session.stateRows() == rows[seq], "rows after jump to \(seq)")
        if index % 5 == 4 {
          try session.reopen()
          #expect(session.store.state == states[seq], "reopened after jump to \(seq)")
        }
      }
    }
  }

  @Test func documentAndViewTimelinesMoveIndependently() async {
    await checkProperty(count: 25, input: Self.sessions) { codes in
      let directory = try TemporaryDirectory()
      var session = try RandomSession(path: directory.path("tasks.sqlite"))
      var states: [Int64: TasksState] = [session.store.lastSeq: session.store.state]
      for code in codes {
        try session.perform(code)
        states[session.store.lastSeq] = session.store.state
      }
      let seqs = states.keys.sorted()
      let documentSeq = seqs[codes[0] % seqs.count]
      let viewSeq = seqs[codes[codes.count - 1] % seqs.count]
      try session.store.jump(to: documentSeq, timeline: .document)
      try session.store.jump(to: viewSeq, timeline: .view)
      let state = session.store.state
      #expect(state.document == states[documentSeq]!.document)
      var expectedView = states[viewSeq]!.view
      // The view jump may point at a task the document no longer has: it is repaired.
      if let selection = expectedView.selection, !state.tasks.contains(id: selection) {
        expectedView.selection = nil
      }
      #expect(state.view == expectedView)
      try session.reopen()
      #expect(session.store.state == state)
    }
  }
}
