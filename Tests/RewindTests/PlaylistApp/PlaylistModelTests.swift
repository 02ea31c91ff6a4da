import Foundation
import GRDB
import Testing

@testable import Rewind

/// A reference model of the playlist app's history in plain Swift: whole-document snapshots
/// (only undoable actions change the document in these sessions), view state property by
/// property (undo never overwrites a property changed since), groups, jumps, repairs.
struct PlaylistModel {
  struct Application {
    var fromDoc: PlaylistPlain
    var toDoc: PlaylistPlain
    var fromView: PLView
    var toView: PLView
  }

  struct Step {
    var application: Application
    var group: String?
  }

  var state = PlaylistState()
  var undoStack: [Step] = []
  var redoStack: [Step] = []
  /// The group an action with the same key joins.
  var openGroup: String?
  var states: [Int64: PlaylistPlain] = [0: PlaylistPlain(), 1: PlaylistPlain()]

  var plain: PlaylistPlain { PlaylistPlain(state) }

  /// What the engine does after the reducer: cascades, set-null, lists, then repair.
  static func settle(_ s: inout PlaylistState) {
    for t in s.tracks.values where t.albumID != nil && !s.albums.contains(id: t.albumID!) {
      s.tracks[t.id]?.albumID = nil
    }
    for item in Array(s.items.values)
    where !s.tracks.contains(id: item.trackID) || !s.playlists.contains(id: item.playlistID) {
      _ = s.items.remove(id: item.id)
    }
    for owner in s.playlistItems.ownersWithLists where !s.playlists.contains(id: owner) {
      s.playlistItems.removeList(of: owner)
    }
    for owner in s.playlistItems.ownersWithLists {
      for id in s.playlistItems[owner].ids where !s.items.contains(id: id) { _ = s.playlistItems.remove(id) }
    }
    for id in s.library.ids where !s.tracks.contains(id: id) { _ = s.library.remove(id) }
    for id in s.sidebar.ids where !s.playlists.contains(id: id) { _ = s.sidebar.remove(id) }
  }

  static func docOnly(_ p: PlaylistPlain) -> PlaylistPlain {
    var p = p
    p.view = PLView()
    return p
  }

  /// Sets each view property that still has `to`'s value back to `from`'s.
  static func revertView(current: PLView, from: PLView, to: PLView) -> PLView {
    var v = current
    if v.selection == to.selection { v.selection = from.selection }
    if v.sheet == to.sheet { v.sheet = from.sheet }
    if v.searchText == to.searchText { v.searchText = from.searchText }
    if v.scrollOffset == to.scrollOffset { v.scrollOffset = from.scrollOffset }
    if v.nowPlaying == to.nowPlaying { v.nowPlaying = from.nowPlaying }
    if v.playlistScroll == to.playlistScroll { v.playlistScroll = from.playlistScroll }
    return v
  }

  /// Replaces the document with `doc` (a PlaylistPlain) keeping the model's own types.
  static func state(from p: PlaylistPlain) -> PlaylistState {
    var s = PlaylistState()
    for a in p.albums.values { s.albums.insert(a) }
    for t in p.tracks.values { s.tracks.insert(t) }
    for pl in p.playlists.values { s.playlists.insert(pl) }
    for i in p.items.values { s.items.insert(i) }
    for id in p.library { s.library.append(id) }
    for id in p.sidebar { s.sidebar.append(id) }
    for (owner, ids) in p.playlistItems { for id in ids { s.playlistItems[owner].append(id) } }
    s.view = p.view
    return s
  }

  /// An action; returns whether it changed anything (the store returns a seq).
  mutating func send(_ action: PLAction) -> Bool {
    let before = plain
    var next = state
    _ = PlaylistReducer().reduce(into: &next, action: action)
    Self.settle(&next)
    next.repairViewState()
    let after = PlaylistPlain(next)
    guard after != before else { return false }
    state = next
    let docChanged = Self.docOnly(before) != Self.docOnly(after)
    guard action.isUndoable, docChanged else { return true }
    redoStack = []
    if let key = action.undoGroup, key == openGroup, var top = undoStack.popLast() {
      top.application.toDoc = after
      top.application.toView = after.view
      undoStack.append(top)
    } else {
      undoStack.append(
        Step(
          application: Application(fromDoc: before, toDoc: after, fromView: before.view, toView: after.view),
          group: action.undoGroup))
    }
    openGroup = action.undoGroup
    return true
  }

  /// Reverts `application` against the current state, then repairs; returns the new application.
  mutating func revert(_ application: Application) -> Application {
    let before = plain
    precondition(
      Self.docOnly(before) == Self.docOnly(application.toDoc), "model: the document is not the step's")
    var next = Self.state(from: application.fromDoc)
    next.view = Self.revertView(current: before.view, from: application.fromView, to: application.toView)
    next.repairViewState()
    state = next
    let after = plain
    return Application(fromDoc: before, toDoc: after, fromView: before.view, toView: after.view)
  }

  mutating func undo() -> Bool {
    guard var step = undoStack.popLast() else { return false }
    step.application = revert(step.application)
    redoStack.append(step)
    openGroup = nil
    return true
  }

  mutating func redo() -> Bool {
    guard var step = redoStack.popLast() else { return false }
    step.application = revert(step.application)
    undoStack.append(step)
    openGroup = nil
    return true
  }

  mutating func jump(to seq: Int64) -> Bool {
    let before = plain
    let target = states[seq]!
    guard target != before else { return false }
    var next = Self.state(from: target)
    next.repairViewState()
    state = next
    let after = plain
    openGroup = nil
    if Self.docOnly(before) != Self.docOnly(after) {
      redoStack = []
      undoStack.append(
        Step(application: Application(fromDoc: before, toDoc: after, fromView: before.view, toView: after.view)))
    }
    return true
  }
}

@MainActor
@Suite struct PlaylistModelTests {
  /// A random action that the model's state makes meaningful.
  func randomAction(_ s: PlaylistState, _ rng: inout SplitMix64, _ counter: inout Int) -> PLAction {
    func pick<T>(_ xs: [T]) -> T? { xs.isEmpty ? nil : xs[Int(rng.next() % UInt64(xs.count))] }
    let tracks = s.tracks.ids.sorted()
    let playlists = s.playlists.ids.sorted()
    let items = s.items.ids.sorted()
    counter += 1
    let titles = [titleEmoji, titleCombining, titleRTL, titleZalgo, "plain", ""]
    switch rng.next() % 20 {
    case 0, 1:
      return .addTrack(
        id: "trk-\(counter)", title: pick(titles)!, artist: rng.next() % 2 == 0 ? nil : "Art \(counter)",
        duration: Double(rng.next() % 100_000) / 7, addedAt: Double(counter) + 0.5)
    case 2:
      if let t = pick(tracks) { return .typeTitle(id: t, text: pick(["a", "é", "🎵", "\u{301}"])!) }
    case 3:
      if let t = pick(tracks) { return .setRating(id: t, rating: rng.next() % 3 == 0 ? nil : Int64(rng.next() % 6)) }
    case 4:
      if let t = pick(tracks) { return .deleteTrack(id: t) }
    case 5, 6:
      return .createPlaylist(
        id: plUUID(1000 + counter), name: "P\(counter) \(pick(titles)!)", createdAt: Double(counter))
    case 7:
      if let p = pick(playlists) { return .renamePlaylist(id: p, name: "R\(counter)") }
    case 8:
      if let p = pick(playlists) { return .deletePlaylist(id: p) }
    case 9, 10, 11:
      if let p = pick(playlists), let t = pick(tracks) {
        return .addToPlaylist(item: plUUID(5000 + counter), playlist: p, track: t)
      }
    case 12:
      if let i = pick(items), let owner = s.playlistItems.owner(of: i) {
        let list = s.playlistItems[owner].ids
        let to = Int(rng.next() % UInt64(list.count))
        if list.firstIndex(of: i) != to { return .moveItem(item: i, to: to) }
      }
    case 13:
      if let i = pick(items) { return .removeItem(item: i) }
    case 14:
      if let t = pick(tracks) {
        let to = Int(rng.next() % UInt64(tracks.count))
        if s.library.firstIndex(of: t) != to { return .moveInLibrary(id: t, to: to) }
      }
    case 15:
      if let t = pick(tracks), rng.next() % 2 == 0 { return .select(.track(t)) }
      if let p = pick(playlists) { return .select(.playlist(p)) }
      return .select(nil)
    case 16:
      return .search(pick(["", "a", "🎸", titleRTL])!)
    case 17:
      return .scroll(Double(rng.next() % 1000) / 4)
    case 18:
      if let t = pick(tracks) {
        return rng.next() % 2 == 0 ? .play(t) : .present(.editTrack(id: t, draft: "d\(counter)"))
      }
      return .present(nil)
    default:
      if let p = pick(playlists) {
        return rng.next() % 2 == 0
          ? .scrollPlaylist(p, Double(rng.next() % 100))
          : .present(.confirmDelete(playlist: p, itemCount: s.playlistItems[p].count))
      }
    }
    return .search("s\(counter)")
  }

  func runSession(seed: UInt64, steps: Int) throws -> Bool {
    let dir = try TemporaryDirectory()
    let path = dir.path("model.sqlite")
    var rng = SplitMix64(seed: seed)
    var model = PlaylistModel()
    var stores = [try openPlaylists(path), try openPlaylists(path)]
    var counter = 0
    var trace: [String] = []
    let traceLength = Int(ProcessInfo.processInfo.environment["PLAYLIST_MODEL_TRACE"] ?? "") ?? 12
    for n in 0..<steps {
      let which = Int(rng.next() % 2)
      let store = stores[which]
      let roll = rng.next() % 100
      var expectedChange = false
      var seq: Int64?
      do {
        switch roll {
        case 0..<60:
          let action = randomAction(model.state, &rng, &counter)
          trace.append("\(n) s\(which) send \(action)")
          expectedChange = model.send(action)
          seq = try store.send(action)
        case 60..<72:
          trace.append("\(n) s\(which) undo")
          expectedChange = model.undo()
          seq = try store.undo()
        case 72..<82:
          trace.append("\(n) s\(which) redo")
          expectedChange = model.redo()
          seq = try store.redo()
        case 82..<92:
          let keys = model.states.keys.sorted()
          let target = keys[Int(rng.next() % UInt64(keys.count))]
          trace.append("\(n) s\(which) jump \(target)")
          expectedChange = model.jump(to: target)
          seq = try store.jump(to: target)
        default:
          trace.append("\(n) s\(which) reopen")
          stores[which] = try openPlaylists(path)
          let memory = PlaylistPlain(stores[which].state)
          if memory != model.plain {
            Issue.record(
              "seed \(seed) step \(n): reopen differs\nstore:\n\(memory)\nmodel:\n\(model.plain)\n\(trace.suffix(traceLength).joined(separator: "\n"))"
            )
            return false
          }
          continue
        }
      } catch {
        Issue.record("seed \(seed) step \(n): \(error)\n\(trace.suffix(traceLength).joined(separator: "\n"))")
        return false
      }
      let acting = stores[which]
      if (seq != nil) != expectedChange {
        Issue.record(
          "seed \(seed) step \(n): store returned \(String(describing: seq)), model expected a change: \(expectedChange)\n\(trace.suffix(traceLength).joined(separator: "\n"))\nstore:\n\(PlaylistPlain(acting.state))\nmodel:\n\(model.plain)"
        )
        return false
      }
      if seq != nil { model.states[acting.lastSeq] = model.plain }
      trace[trace.count - 1] +=
        " -> \(String(describing: seq)) last \(acting.lastSeq) scroll \(acting.state.view.scrollOffset) model \(model.state.view.scrollOffset) undo \(model.undoStack.count) redo \(model.redoStack.count)"
      if PlaylistPlain(acting.state) != model.plain {
        Issue.record(
          "seed \(seed) step \(n): state differs\n\(trace.suffix(traceLength).joined(separator: "\n"))\nstore:\n\(PlaylistPlain(acting.state))\nmodel:\n\(model.plain)"
        )
        return false
      }
    }
    for store in stores {
      try store.reload()
      #expect(PlaylistPlain(store.state) == model.plain, "seed \(seed): final reload")
    }
    #expect(PlaylistPlain(try openPlaylists(path).state) == model.plain, "seed \(seed): final reopen")
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(report.isHealthy, "seed \(seed): \(report.problems)")
    return true
  }

  @Test func randomSessionsAgainstTheModel() throws {
    let count = Int(ProcessInfo.processInfo.environment["PLAYLIST_MODEL_COUNT"] ?? "") ?? 12
    let steps = Int(ProcessInfo.processInfo.environment["PLAYLIST_MODEL_STEPS"] ?? "") ?? 60
    let first = UInt64(ProcessInfo.processInfo.environment["PLAYLIST_MODEL_SEED"] ?? "") ?? 1
    for seed in first..<(first + UInt64(count)) {
      if try !runSession(seed: seed, steps: steps) { break }
    }
  }
}
