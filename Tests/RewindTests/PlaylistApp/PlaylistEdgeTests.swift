import Foundation
import GRDB
import Testing

@testable import Rewind

@MainActor
@Suite struct PlaylistEdgeTests {
  @Test func unknownSeqsAndToolMisuseChangeNothing() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    let store = try openPlaylists(path)
    try seedPlaylists(store)
    let file = try dump(path)
    let state = PlaylistPlain(store.state)
    for seq in [store.lastSeq + 1, -1, Int64.max, Int64.min] {
      let e = expectRewindError(.unknownSeq) { try store.jump(to: seq) }
      #expect(e.map { "\($0)".contains("\(seq)") } == true, "\(String(describing: e))")
    }
    #expect(PlaylistPlain(store.state) == state)
    #expect(try dump(path) == file)
    // export -o onto the database itself.
    var result = try runRewindTool(["export", path, "-o", path])
    #expect(result.status != 0)
    #expect(!result.err.isEmpty)
    #expect(try dump(path) == file)
    // Imports that do not fit: a duplicate id, an item naming a missing track.
    let export = try RewindDatabase(path: path, readOnly: true).export()
    let duplicate = export.replacingOccurrences(of: plUUID(102).uuidString, with: plUUID(101).uuidString)
    let missing = export.replacingOccurrences(of: "\"trackId\":\"trk-4\"", with: "\"trackId\":\"trk-404\"")
    #expect(missing != export)
    for (name, text) in [("duplicate", duplicate), ("missing", missing), ("truncated", String(export.prefix(100)))] {
      let jsonPath = dir.path("\(name).json")
      try text.write(toFile: jsonPath, atomically: true, encoding: .utf8)
      result = try runRewindTool(["import", path, jsonPath])
      #expect(result.status != 0, "\(name) imported")
      #expect(result.err.hasPrefix("Error:"), "\(name): \(result.err)")
      #expect(result.err.split(separator: "\n").count == 1, "\(name): one line: \(result.err)")
      #expect(try dump(path) == file, "\(name) changed the file")
    }
    try store.reload()
    #expect(PlaylistPlain(store.state) == state)
  }

  @Test func olderAppReadOnlyOnANewerFileIsRefused() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    do {
      let v1 = try openPlaylists(path)
      try seedPlaylists(v1)
    }
    do {
      let v2 = try openPlaylistsV2(path)
      try v2.send(.setGain(id: "trk-1", -3))
    }
    let bytes = contents(of: path)
    let e = expectRewindError(.newerAppSchema) { try openPlaylists(path, readOnly: true) }
    #expect(e.map { "\($0)".contains("2-loudness") } == true, "\(String(describing: e))")
    #expect(contents(of: path) == bytes)
  }

  @Test func toolViewRestoreAcrossTheRenamedViewProperty() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    var searchSeq: Int64 = 0
    do {
      let v1 = try openPlaylists(path)
      try seedPlaylists(v1)
      try v1.send(.search("café"))
      searchSeq = v1.lastSeq
      try v1.send(.search("later"))
    }
    let v2 = try openPlaylistsV2(path)
    #expect(v2.state.view.query == "later")
    try v2.send(.query("now"))
    let result = try runRewindTool(["restore", path, "--to", "\(searchSeq)", "--timeline", "view"])
    #expect(result.status == 0, "\(result.err)")
    try v2.reload()
    #expect(v2.state.view.query == "café")
    #expect(try openPlaylistsV2(path).state == v2.state)
    let rows = try DatabaseQueue(path: path).read { db in
      try String.fetchAll(db, sql: "SELECT path FROM view_state ORDER BY path")
    }
    #expect(!rows.contains("searchText"), "\(rows)")
    try expectHealthy(path)
  }

  @Test func jumpToZeroAndBackWithEverythingDeleted() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    let store = try openPlaylists(path)
    try seedPlaylists(store)
    try store.send(.select(.playlist(plMix)))
    try store.send(.present(.confirmDelete(playlist: plMix, itemCount: 3)))
    let before = PlaylistPlain(store.state)
    try store.jump(to: 0)
    #expect(PlaylistPlain(store.state) == PlaylistPlain())
    try expectPlaylistReopenMatches(store, path, "at 0")
    try store.undo()
    #expect(PlaylistPlain(store.state) == before, "\(PlaylistPlain(store.state))\n\(before)")
    try expectPlaylistReopenMatches(store, path, "undo of jump")
    try store.jump(to: 0, timeline: .document)
    #expect(store.state.view.selection == nil)
    #expect(store.state.view.sheet == nil)
    try store.undo()
    #expect(PlaylistPlain(store.state) == before)
    try expectHealthy(path)
  }

  /// Found by the model test (seed 5, 80 steps): undo of a jump step leaves a view property
  /// alone when an intermediate jump turned its default-valued row into "no row", which the
  /// store otherwise treats as the same value (README: "a view-state property with no row
  /// loads as its default").
  @Test func undoOfJumpRestoresScrollAfterAnotherJumpWroteTheDefault() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    let store = try openPlaylists(path)
    try store.send(.createPlaylist(id: plMix, name: "One", createdAt: 1))
    let one = store.lastSeq
    try store.send(.scroll(21))
    try store.send(.createPlaylist(id: plRoad, name: "Two", createdAt: 2))
    // A document-changing jump: scroll 21 -> 0 (the default) in the same step.
    try store.jump(to: one)
    #expect(store.state.view.scrollOffset == 0)
    // A view-only jump to 0 (no view rows at all): not an undo step; the scroll shows 0 before
    // and after.
    try store.jump(to: 0, timeline: .view)
    #expect(store.state.view.scrollOffset == 0)
    let rows = try DatabaseQueue(path: path).read { db in
      try String.fetchAll(db, sql: "SELECT path || '=' || value FROM view_state ORDER BY path")
    }
    // Undo the document jump: the scroll it set to 0 is still 0, so it goes back to 21.
    try store.undo()
    #expect(store.state.playlists.count == 2)
    #expect(store.state.view.scrollOffset == 21, "view rows before the undo: \(rows)")
    try expectPlaylistReopenMatches(store, path)
  }
}
