import Foundation
import GRDB
import Testing

@testable import Rewind

/// A plain-Swift reference model of the notebook's history: the reducer's own rules on a
/// plain state, the engine's cascades written out by hand, undo steps as whole document
/// snapshots (exact here, since the only write outside the steps is a sync of
/// `pages.revision`, which undo never overwrites), view state per property.
///
/// View state is one row per top-level property, reverted as the engine does: an undo reverts
/// what the step's latest application (its actions, or the last redo and the repair after it)
/// changed, each property only while it still holds the value that application left; a redo
/// reverts, by the same rule, what the last undo (and the repair after it) changed.
struct NotebookModel {
  var state = NotebookState()

  /// What one application of a step (its actions, an undo or a redo, with the repair after it)
  /// changed in the view state: each property's value before and after.
  struct ViewChanges {
    var before = NBView()
    var after = NBView()
    var properties: Set<NBView.Property> = []

    /// These changes followed by `later`: each property from its first value to its last.
    mutating func merge(_ later: ViewChanges) {
      for property in later.properties {
        if !properties.contains(property) { property.copy(later.before, &before) }
        property.copy(later.after, &after)
      }
      properties.formUnion(later.properties)
    }

    /// `current` with each property changed here set back to its value before, if it still
    /// holds the value after.
    func reverted(in current: NBView) -> NBView {
      var view = current
      for property in properties where !property.differs(current, after) {
        property.copy(before, &view)
      }
      return view
    }
  }

  struct Step {
    var before: NotebookState
    var after: NotebookState
    var group: String?
    /// What the step's latest application changed in the view state: an undo reverts it.
    var applied: ViewChanges
    /// What the step's last undo changed in the view state: a redo reverts it.
    var undone = ViewChanges()
  }
  var undo: [Step] = []
  var redo: [Step] = []
  /// The group of the top step while it may still grow.
  var openGroup: String?
  /// The revision each page had when last seen, for rows undo or redo bring back.
  var lastRevision: [String: Int64] = [:]

  static func cascade(_ s: inout NotebookState) {
    let blocksToGo = s.blocks.values.filter { !s.pages.contains(id: $0.pageID) }.map(\.id)
    for id in blocksToGo { s.blocks.remove(id: id) }
    let tagsToGo = s.pageTags.values.filter { !s.pages.contains(id: $0.pageID) || !s.tags.contains(id: $0.tagID) }
    for t in tagsToGo { s.pageTags.remove(id: t.id) }
    for id in s.sidebar.ids where !s.pages.contains(id: id) { s.sidebar.remove(id) }
    for owner in s.pageBlocks.ownersWithLists {
      if !s.pages.contains(id: owner) {
        s.pageBlocks.removeList(of: owner)
      } else {
        for id in s.pageBlocks[owner].ids where !s.blocks.contains(id: id) { s.pageBlocks.remove(id) }
      }
    }
  }

  static func changes(from before: NBView, to after: NBView) -> ViewChanges {
    ViewChanges(
      before: before, after: after,
      properties: Set(NBView.Property.allCases.filter { $0.differs(before, after) }))
  }

  mutating func remember() {
    for p in state.pages.values { lastRevision[p.id] = p.revision }
  }

  /// Applies `action`. A sync (not undoable) changes the document outside the steps: later
  /// undos keep it, as it touches only `revision`.
  mutating func send(_ action: NBAction) {
    var next = state
    _ = NotebookReducer().reduce(into: &next, action: action)
    Self.cascade(&next)
    let docChanged = NotebookPlain(docOf: next) != NotebookPlain(docOf: state)
    let viewChanged = next.view != state.view
    guard docChanged || viewChanged else { return }
    if action.isUndoable && docChanged {
      let changes = Self.changes(from: state.view, to: next.view)
      if let group = action.undoGroup, group == openGroup, var top = undo.popLast() {
        top.after = next
        top.applied.merge(changes)
        undo.append(top)
      } else {
        undo.append(Step(before: state, after: next, group: action.undoGroup, applied: changes))
      }
      openGroup = action.undoGroup
      redo = []
    }
    state = next
    remember()
  }

  /// The document of `target` with the revisions as they are now (or were last seen).
  func withCurrentRevisions(_ target: NotebookState) -> NotebookState {
    var t = target
    for p in target.pages.values {
      if let now = state.pages[p.id] {
        t.pages[p.id]?.revision = now.revision
      } else if let seen = lastRevision[p.id] {
        t.pages[p.id]?.revision = seen
      }
    }
    return t
  }

  /// Moves to `target`'s document with `view`, then repairs; returns what changed in the view.
  mutating func applyDocument(_ target: NotebookState, view: NBView) -> ViewChanges {
    let viewBefore = state.view
    var next = withCurrentRevisions(target)
    next.view = view
    next.repairViewState()
    state = next
    remember()
    return Self.changes(from: viewBefore, to: state.view)
  }

  mutating func performUndo() -> Bool {
    guard var step = undo.popLast() else { return false }
    step.undone = applyDocument(step.before, view: step.applied.reverted(in: state.view))
    redo.append(step)
    openGroup = nil
    return true
  }

  mutating func performRedo() -> Bool {
    guard var step = redo.popLast() else { return false }
    step.applied = applyDocument(step.after, view: step.undone.reverted(in: state.view))
    undo.append(step)
    openGroup = nil
    return true
  }
}

extension NBView {
  /// A top-level property: one `view_state` row.
  enum Property: CaseIterable {
    case openPage, selection, mode, search, scroll

    func differs(_ a: NBView, _ b: NBView) -> Bool {
      switch self {
      case .openPage: a.openPage != b.openPage
      case .selection: a.selection != b.selection
      case .mode: a.mode != b.mode
      case .search: a.search != b.search
      case .scroll: a.scroll != b.scroll
      }
    }

    func copy(_ source: NBView, _ target: inout NBView) {
      switch self {
      case .openPage: target.openPage = source.openPage
      case .selection: target.selection = source.selection
      case .mode: target.mode = source.mode
      case .search: target.search = source.search
      case .scroll: target.scroll = source.scroll
      }
    }
  }
}

extension NotebookPlain {
  /// The document alone (view state left at its default).
  init(docOf s: NotebookState) {
    var d = s
    d.view = NBView()
    self.init(d)
  }
}

@MainActor
@Suite(.serialized) struct NotebookModelTests {
  static let slugs = ["a", nbSlugCafe, nbSlugEmoji, nbSlugSQL, nbSlugQuote, nbSlugControl, "", "z"]
  static let blockIDs = ["b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8"]
  static let tagNames = ["t", "日本語", #"{"$real":1}"#]

  func randomAction(_ rng: inout SplitMix64, _ s: NotebookState) -> NBAction {
    func pick<T>(_ a: [T]) -> T { a[Int(rng.next() % UInt64(a.count))] }
    let slug = pick(Self.slugs)
    let block = pick(Self.blockIDs)
    let n = Int(rng.next() % 5)
    switch rng.next() % 22 {
    case 0, 1: return .addPage(slug: slug, title: "T\(n)", createdAt: Double(n))
    case 2: return .setTitle(slug: slug, title: pick(["", "x", "🧪", "a'b"]))
    case 3: return .typeTitle(slug: slug, text: "\(n)")
    case 4: return .deletePage(slug: slug)
    case 5: return .movePage(slug: slug, to: n)
    case 6, 7: return .addBlock(id: block, page: slug, text: "t\(n)", at: n % 2 == 0 ? nil : n)
    case 8, 9: return .typeText(id: block, text: pick(["a", "é", "\n", "\""]))
    case 10: return .deleteBlock(id: block)
    case 11: return .moveBlock(id: block, to: n)
    case 12, 13: return .moveBlockToPage(id: block, page: slug, at: n)
    case 14: return .setWeight(id: block, Double(n) / 3)
    case 15: return .addTag(name: pick(Self.tagNames), color: n % 2 == 0 ? nil : "c\(n)")
    case 16:
      return rng.next() % 3 == 0 ? .deleteTag(name: pick(Self.tagNames)) : .tag(page: slug, tag: pick(Self.tagNames))
    case 17: return .untag(page: slug, tag: pick(Self.tagNames))
    case 18: return .open(n == 0 ? nil : slug)
    case 19:
      return n == 0
        ? .select([block, pick(Self.blockIDs)]) : (n == 1 ? .setMode(.editing(block: block)) : .search("q\(n)"))
    case 20: return .scroll(page: slug, Double(n))
    default: return .syncRevision(slug: slug, revision: Int64(rng.next() % 100))
    }
  }

  /// `NOTEBOOK_MODEL_COUNT` sessions (default 6) of `NOTEBOOK_MODEL_STEPS` ops (default 60),
  /// from a random seed or `NOTEBOOK_MODEL_SEED`; a failing session is shrunk and printed with
  /// its seed (`NOTEBOOK_MODEL_SEED=<seed> NOTEBOOK_MODEL_COUNT=1` runs it again).
  @Test func randomSessionsMatchTheModel() throws {
    let count = Int(ProcessInfo.processInfo.environment["NOTEBOOK_MODEL_COUNT"] ?? "") ?? 6
    let steps = Int(ProcessInfo.processInfo.environment["NOTEBOOK_MODEL_STEPS"] ?? "") ?? 60
    let baseSeed =
      UInt64(ProcessInfo.processInfo.environment["NOTEBOOK_MODEL_SEED"] ?? "")
      ?? UInt64.random(in: 0...UInt64(UInt32.max))
    let useTool = ProcessInfo.processInfo.environment["NOTEBOOK_MODEL_TOOL"] != "0"
    for session in 0..<count {
      let seed = baseSeed &+ UInt64(session)
      if try !runSession(seed: seed, steps: steps, useTool: useTool) { break }
    }
  }

  enum Op: CustomStringConvertible {
    case send(NBAction, second: Bool)
    case undo, redo, reopen, secondStore, toolUndo, toolRedo, reload
    var description: String {
      switch self {
      case .send(let a, let second): "send\(second ? " (store b)" : "") \(a)"
      case .undo: "undo"
      case .redo: "redo"
      case .reopen: "reopen"
      case .secondStore: "second store"
      case .toolUndo: "tool undo"
      case .toolRedo: "tool redo"
      case .reload: "reload"
      }
    }
  }

  func ops(seed: UInt64, steps: Int, useTool: Bool) -> [Op] {
    var rng = SplitMix64(seed: seed)
    var result: [Op] = []
    var hasB = false
    for _ in 0..<steps {
      let roll = rng.next() % 100
      switch roll {
      case 0..<62:
        let action = randomAction(&rng, NotebookState())
        result.append(.send(action, second: hasB && rng.next() % 3 == 0))
      case 62..<75: result.append(.undo)
      case 75..<85: result.append(.redo)
      case 85..<90: result.append(.reopen)
      case 90..<94:
        hasB = true
        result.append(.secondStore)
      case 94..<97 where useTool: result.append(.toolUndo)
      case 97..<100 where useTool: result.append(.toolRedo)
      default: result.append(.reload)
      }
    }
    return result
  }

  func runSession(seed: UInt64, steps: Int, useTool: Bool) throws -> Bool {
    let all = ops(seed: seed, steps: steps, useTool: useTool)
    guard let failure = try run(all) else { return true }
    // Shrink: drop ops one at a time while the session still fails.
    var current = all
    var changed = true
    while changed {
      changed = false
      var i = 0
      while i < current.count {
        var candidate = current
        candidate.remove(at: i)
        if try run(candidate) != nil {
          current = candidate
          changed = true
        } else {
          i += 1
        }
      }
    }
    let last = try run(current) ?? "?"
    Issue.record(
      "seed \(seed): \(failure.split(separator: "\n").first ?? "")\nshrunk to \(current.count) ops:\n\(current.map(\.description).joined(separator: "\n"))\n\(last)"
    )
    return false
  }

  /// Runs `ops`; returns the first difference, or nil.
  func run(_ ops: [Op]) throws -> String? {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    var a = try openNotebook(path)
    var b: NotebookStore? = nil
    var model = NotebookModel()
    for (step, op) in ops.enumerated() {
      var usedB = false
      switch op {
      case .send(let action, let second):
        usedB = second && b != nil
        let store = usedB ? b! : a
        do {
          try store.send(action)
          model.send(action)
        } catch {
          return "step \(step): send threw \(error)"
        }
      case .undo:
        let did = try a.undo() != nil
        let expected = model.performUndo()
        if did != expected { return "step \(step): undo did \(did), model \(expected)" }
      case .redo:
        let did = try a.redo() != nil
        let expected = model.performRedo()
        if did != expected { return "step \(step): redo did \(did), model \(expected)" }
      case .reopen:
        a = try openNotebook(path)
      case .secondStore:
        b = try openNotebook(path)
      case .toolUndo, .toolRedo:
        let isUndo = if case .toolUndo = op { true } else { false }
        let r = try runRewindTool([isUndo ? "undo" : "redo", path])
        let expected = isUndo ? model.performUndo() : model.performRedo()
        if (r.status == 0) != expected { return "step \(step): tool \(r), model \(expected)" }
        try a.reload()
      case .reload:
        try a.reload()
      }
      if usedB { try a.reload() }
      let expected = NotebookPlain(model.state)
      let memory = NotebookPlain(a.state)
      if memory != expected {
        return "step \(step): memory differs from the model\nmemory:\n\(memory)\nmodel:\n\(expected)"
      }
      let file = NotebookPlain(try openNotebook(path, readOnly: true).state)
      if file != expected {
        return "step \(step): file differs from the model\nfile:\n\(file)\nmodel:\n\(expected)"
      }
      if step % 15 == 14 {
        let report = try RewindDatabase(path: path, readOnly: true).verify()
        if !report.isHealthy { return "step \(step): verify \(report.problems)" }
      }
    }
    return nil
  }
}

@MainActor
@Suite(.serialized) struct NotebookUndoViewTests {
  /// Shrunk from model seed 1141. `toolUndo`: the 7th op is the tool's undo (else the app's).
  func run(toolUndo: Bool, path: String) throws -> NBView {
    let e = nbSlugEmoji
    var store = try openNotebook(path)
    try store.send(.addPage(slug: e, title: "T1", createdAt: 1))
    try store.send(.addPage(slug: "a", title: "T2", createdAt: 2))
    try store.send(.addTag(name: "日本語", color: "c3"))
    try store.undo()
    try store.undo()  // page a gone, open page E again
    try store.send(.addPage(slug: nbSlugControl, title: "T2", createdAt: 2))
    if toolUndo {
      let r = try runRewindTool(["undo", path])
      #expect(r.status == 0, "\(r.err)")
      try store.reload()
    } else {
      try store.undo()
    }
    #expect(store.state.view.openPage == e)
    try store.send(.deletePage(slug: e))
    #expect(store.state.view.openPage == nil)
    try store.undo()
    #expect(store.state.view.openPage == e, "undoing the delete opens E again")
    try store.send(.open(nbSlugCafe))  // no such page: the reducer's repair writes nil
    try store.redo()
    #expect(store.state.view.openPage == nil)
    try store.undo()
    // The open action (seq 11) had already written openPage's nil, so the redo changed no view
    // state; the undo reverts what the step's latest application (that redo) changed, so E is
    // not opened again, though openPage holds the value the step's first application left.
    #expect(store.state.view.openPage == nil, "memory after the last undo, tool: \(toolUndo)")
    store = try openNotebook(path, readOnly: true)
    return store.state.view
  }

  @Test func undoAfterRedoWithRepairSameWithToolOrApp() throws {
    let dir = try TemporaryDirectory()
    let app = try run(toolUndo: false, path: dir.path("app.sqlite"))
    let tool = try run(toolUndo: true, path: dir.path("tool.sqlite"))
    #expect(app.openPage == nil, "\(app)")
    #expect(app == tool, "app: \(app)\ntool: \(tool)")
  }
}
