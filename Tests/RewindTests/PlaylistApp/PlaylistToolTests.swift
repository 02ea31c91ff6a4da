import Foundation
import GRDB
import Testing

@testable import Rewind

@MainActor
@Suite struct PlaylistToolTests {
  /// Sends actions recording the state (and the tool's export) at each seq.
  struct Recorder {
    var states: [Int64: PlaylistPlain] = [0: PlaylistPlain(), 1: PlaylistPlain()]
    var exports: [Int64: String] = [:]
  }

  @Test func snapshotsCompactionThenRestoreAndExportOldSeqs() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    let store = try openPlaylists(path)
    var rec = Recorder()
    try seedPlaylists(store)
    rec.states[store.lastSeq] = PlaylistPlain(store.state)
    let seeded = store.lastSeq
    // A labelled snapshot of the seeded state, by the tool.
    var result = try runRewindTool(["snapshot", path, "--label", "seeded 🌱"])
    #expect(result.status == 0, "\(result.err)")
    #expect(result.out.contains("at seq \(seeded)"), "\(result.out)")
    for action: PLAction in [
      .typeTitle(id: "trk-1", text: " (live)"), .deleteTrack(id: "trk-2"), .search("live"),
      .sync([ServerTrack(id: "trk-8", title: "Eight", artist: nil, duration: 8, version: 1, playCount: 2)]),
      .addToPlaylist(item: plUUID(110), playlist: plRoad, track: "trk-8"), .moveItem(item: plUUID(110), to: 0),
      .deletePlaylist(id: plMix), .setRating(id: "trk-8", rating: 4), .renamePlaylist(id: plRoad, name: "Road 🚗"),
    ] {
      try store.send(action)
      rec.states[store.lastSeq] = PlaylistPlain(store.state)
    }
    let last = store.lastSeq
    let db = try RewindDatabase(path: path, readOnly: true)
    for seq in 0...last { rec.exports[seq] = try db.export(at: seq) }
    // compact as a process, keeping 4 entries.
    result = try runRewindTool(["compact", path, "--keep", "4"])
    #expect(result.status == 0, "\(result.out)\(result.err)")
    let base = try RewindDatabase(path: path, readOnly: true).inspect().baseSeq
    #expect(base >= last - 4 && base < last, "base \(base), last \(last)")
    // The store did not reload; it shows the same state and works on.
    #expect(PlaylistPlain(store.state) == rec.states[last]!)
    try expectPlaylistReopenMatches(store, path, "after compact")
    // Every seq from the base on exports as before; older ones are refused by name.
    let after = try RewindDatabase(path: path, readOnly: true)
    for seq in 0...last {
      if seq >= base {
        #expect(try after.export(at: seq) == rec.exports[seq]!, "export at \(seq) changed by compaction")
      } else {
        expectRewindError(.unknownSeq) { try after.export(at: seq) }
      }
    }
    result = try runRewindTool(["export", path, "--at", "\(seeded)"])
    #expect(result.status != 0)
    #expect(result.err.contains("\(seeded)"), "\(result.err)")
    // The labelled snapshot from before the base still restores by its label.
    result = try runRewindTool(["restore", path, "--snapshot", "seeded 🌱"])
    #expect(result.status == 0, "\(result.out)\(result.err)")
    try store.reload()
    var expected = rec.states[seeded]!
    #expect(PlaylistPlain(store.state).tracks == expected.tracks)
    #expect(PlaylistPlain(store.state).playlistItems == expected.playlistItems)
    expected.view = store.state.view
    #expect(PlaylistPlain(store.state) == expected, "\(PlaylistPlain(store.state))\n\(expected)")
    try expectPlaylistReopenMatches(store, path, "after restore of snapshot")
    // Undo the restore from the app: back to the last state.
    try store.undo()
    #expect(PlaylistPlain(store.state) == rec.states[last]!, "\(PlaylistPlain(store.state))\n\(rec.states[last]!)")
    // Undo stops at the base.
    var undos = 0
    while try store.undo() != nil {
      undos += 1
      if undos > 30 { break }
    }
    #expect(undos <= 4, "undid \(undos) steps past a base that keeps 4 entries")
    try expectPlaylistReopenMatches(store, path, "after undos to the base")
    result = try runRewindTool(["verify", path])
    #expect(result.status == 0, "\(result.out)\(result.err)")
    // Compacting again (nothing much to fold) and verify.
    result = try runRewindTool(["compact", path, "--keep", "1"])
    #expect(result.status == 0, "\(result.out)\(result.err)")
    try expectPlaylistReopenMatches(store, path, "after second compact")
    try expectHealthy(path)
  }

  @Test func toolRestoreDocumentOnlyThenAppRepairsAndUndoes() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    let store = try openPlaylists(path)
    try store.send(.addTrack(id: "trk-1", title: "One", artist: nil, duration: 1, addedAt: 1))
    let early = store.lastSeq
    try store.send(.createPlaylist(id: plJazz, name: "Jazz", createdAt: 1))
    try store.send(.addToPlaylist(item: plUUID(1), playlist: plJazz, track: "trk-1"))
    try store.send(.present(.confirmDelete(playlist: plJazz, itemCount: 1)))
    try store.send(.play("trk-1"))
    let before = PlaylistPlain(store.state)
    let result = try runRewindTool(["restore", path, "--to", "\(early)", "--timeline", "document"])
    #expect(result.status == 0, "\(result.err)")
    try store.reload()
    #expect(store.state.playlists.isEmpty)
    #expect(store.state.view.selection == nil, "selection of a missing playlist is repaired")
    #expect(store.state.view.sheet == nil)
    #expect(store.state.view.nowPlaying == "trk-1")
    try expectPlaylistReopenMatches(store, path, "after repair")
    try store.undo()
    #expect(PlaylistPlain(store.state) == before, "\(PlaylistPlain(store.state))\n\(before)")
    try expectPlaylistReopenMatches(store, path, "after undo of the tool's restore")
    try expectHealthy(path)
  }

  @Test func exportImportRoundTripThroughTheTool() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    let store = try openPlaylists(path)
    try seedPlaylists(store)
    try store.send(.scrollPlaylist(plRoad, 99.5))
    try store.send(.present(.newPlaylist(name: "נגן \u{200F}🎵")))
    let seeded = PlaylistPlain(store.state)
    let out = dir.path("seeded.json")
    var result = try runRewindTool(["export", path, "-o", out])
    #expect(result.status == 0, "\(result.err)")
    try store.send(.deletePlaylist(id: plRoad))
    try store.send(.deleteTrack(id: "trk-3"))
    result = try runRewindTool(["import", path, out])
    #expect(result.status == 0, "\(result.err)")
    try store.reload()
    #expect(PlaylistPlain(store.state) == seeded, "\(PlaylistPlain(store.state))\n\(seeded)")
    try expectPlaylistReopenMatches(store, path, "after import")
    // Export again: byte for byte the same as the first export.
    let again = try RewindDatabase(path: path, readOnly: true).export()
    #expect(again == (try String(contentsOfFile: out, encoding: .utf8)))
    try expectHealthy(path)
  }
}
