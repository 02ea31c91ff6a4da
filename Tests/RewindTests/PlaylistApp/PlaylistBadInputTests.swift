import Foundation
import GRDB
import Testing

@testable import Rewind

@MainActor
@Suite struct PlaylistBadInputTests {
  /// Sends `action`, expecting `code`; memory and the file must be as before.
  func expectRefused(
    _ store: PlaylistStore, _ path: String, _ action: PLAction, _ code: RewindError.Code,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> RewindError? {
    let memory = PlaylistPlain(store.state)
    let file = try dump(path)
    let seq = store.lastSeq
    let error = expectRewindError(code, sourceLocation: sourceLocation) { try store.send(action) }
    #expect(PlaylistPlain(store.state) == memory, "memory moved", sourceLocation: sourceLocation)
    #expect(try dump(path) == file, "file moved", sourceLocation: sourceLocation)
    #expect(store.lastSeq == seq, sourceLocation: sourceLocation)
    if let error {
      #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
    }
    return error
  }

  @Test func invalidValuesAreRefusedAndChangeNothing() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    let store = try openPlaylists(path)
    try seedPlaylists(store)
    // NaN computed in the reducer, in an entity column.
    var e = try expectRefused(store, path, .computeDuration(id: "trk-1", numerator: 0, denominator: 0), .invalidValue)
    #expect(e.map { "\($0)".contains("NaN") || "\($0)".contains("nan") } == true, "\(String(describing: e))")
    // NaN in a payload.
    e = try expectRefused(store, path, .setDuration(id: "trk-1", seconds: .nan), .invalidValue)
    #expect(e.map { "\($0)".contains("PLAction") } == true, "names the action's type: \(String(describing: e))")
    // Infinity in a payload is refused; computed in the reducer it is held by the column.
    _ = try expectRefused(store, path, .setDuration(id: "trk-1", seconds: .infinity), .invalidValue)
    try store.send(.computeDuration(id: "trk-1", numerator: 1, denominator: 0))
    #expect(store.state.tracks["trk-1"]?.duration == .infinity)
    try store.send(.computeDuration(id: "trk-2", numerator: -1, denominator: 0))
    try expectPlaylistReopenMatches(store, path, "infinities")
    try store.undo()
    try store.undo()
    #expect(store.state.tracks["trk-1"]?.duration == 215.5)
    // NaN or infinity in view state.
    _ = try expectRefused(store, path, .scroll(.nan), .invalidValue)
    _ = try expectRefused(store, path, .scroll(-.infinity), .invalidValue)
    // NUL in an entity's column and in a key.
    e = try expectRefused(store, path, .setTitle(id: "trk-1", title: "a\u{0}b"), .invalidValue)
    _ = try expectRefused(
      store, path, .addTrack(id: "trk-\u{0}", title: "nul key", artist: nil, duration: 1, addedAt: 1), .invalidValue)
    // NUL in view state is fine (JSON escapes it).
    try store.send(.search("a\u{0}b"))
    try expectPlaylistReopenMatches(store, path, "NUL in view state")
    #expect(try openPlaylists(path).state.view.searchText == "a\u{0}b")
    // The other Unicode spelling of an existing key.
    try store.send(.addTrack(id: "trk-caf\u{E9}", title: "composed", artist: nil, duration: 1, addedAt: 1))
    _ = try expectRefused(
      store, path, .addTrack(id: "trk-cafe\u{301}", title: "decomposed", artist: nil, duration: 1, addedAt: 1),
      .invalidValue)
    try expectHealthy(path)
  }

  @Test func hugeStringsAndExtremeNumbersRoundTrip() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    let store = try openPlaylists(path)
    let huge = String(repeating: "🎶a\u{301}", count: 300_000)  // ~2.7 MB of UTF-8
    try store.send(
      .addTrack(id: "trk-big", title: huge, artist: nil, duration: .greatestFiniteMagnitude, addedAt: -0.0))
    try store.send(.setRating(id: "trk-big", rating: Int64.min))
    try store.send(
      .addTrack(
        id: String(repeating: "k", count: 10_000), title: "", artist: nil, duration: .leastNonzeroMagnitude,
        addedAt: 1e300))
    try store.send(.search(huge))
    try expectPlaylistReopenMatches(store, path, "huge")
    try store.undo()
    try store.undo()
    #expect(store.state.tracks["trk-big"]?.rating == nil)
    try expectPlaylistReopenMatches(store, path, "huge after undo")
    try expectHealthy(path)
    let result = try runRewindTool(["export", path])
    #expect(result.status == 0)
    #expect(result.out.utf8.count > huge.utf8.count)
  }

  @Test func referencesToMissingRowsAndListBugsAreRefused() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    let store = try openPlaylists(path)
    try seedPlaylists(store)
    // An item referring to a missing track.
    var e = try expectRefused(
      store, path, .insertItemRaw(PLItem(id: plUUID(900), playlistID: plMix, trackID: "trk-missing")),
      .relationViolation)
    #expect(e.map { "\($0)".contains("trk-missing") } == true, "\(String(describing: e))")
    // An item in a missing playlist.
    e = try expectRefused(
      store, path, .insertItemRaw(PLItem(id: plUUID(901), playlistID: plUUID(999), trackID: "trk-1")),
      .relationViolation)
    // The library naming a track with no row.
    e = try expectRefused(store, path, .listTrackWithoutRow("trk-ghost"), .relationViolation)
    #expect(e.map { "\($0)".contains("trk-ghost") } == true, "\(String(describing: e))")
    // Duplicate id: the same item id added again to another playlist moves it there (insert
    // replaces); the old playlist's list must not keep a second entry.
    try store.send(.insertItemRaw(PLItem(id: plUUID(101), playlistID: plRoad, trackID: "trk-2")))
    #expect(store.state.playlistItems.owner(of: plUUID(101)) == plRoad)
    #expect(!store.state.playlistItems[plMix].contains(plUUID(101)))
    try expectPlaylistReopenMatches(store, path, "after duplicate id")
    try expectHealthy(path)
  }

  @Test func tamperedTitleIsReadAsIsAndVerifyNamesIt() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    do {
      let store = try openPlaylists(path)
      try seedPlaylists(store)
      try store.send(.setTitle(id: "trk-4", title: "Before"))
    }
    let queue = try DatabaseQueue(path: path)
    try queue.write { try $0.execute(sql: "UPDATE tracks SET title = 'Tampered' WHERE id = 'trk-4'") }
    let report = try RewindDatabase(path: path, readOnly: true).verify()
    #expect(!report.isHealthy)
    #expect(report.problems.contains { $0.contains("trk-4") && $0.contains("Tampered") }, "\(report.problems)")
    // The app opens it; undoing the setTitle keeps the edit (changed since by someone else).
    let store = try openPlaylists(path)
    #expect(store.state.tracks["trk-4"]?.title == "Tampered")
    try store.undo()
    #expect(store.state.tracks["trk-4"]?.title == "Tampered")
    try expectPlaylistReopenMatches(store, path)
  }

  @Test func tamperedRowsRefusedOnOpenWithTheFileUnchanged() throws {
    let dir = try TemporaryDirectory()
    let base = dir.path("base.sqlite")
    do {
      let store = try openPlaylists(base)
      try seedPlaylists(store)
    }
    struct Case {
      var name: String
      var sql: String
      var code: RewindError.Code?
      var mentions: String
    }
    let cases = [
      // A track deleted behind the engine's back (foreign keys off in the shell by default):
      // the library and items name it.
      Case(name: "deleted track", sql: "DELETE FROM tracks WHERE id = 'trk-4'", code: .corruptData, mentions: "trk-4"),
      Case(
        name: "wrong type in an engine column", sql: "UPDATE list_entries SET position = 7 WHERE id = 'trk-1'",
        code: .corruptData, mentions: "list_entries"),
      Case(
        name: "dropped column", sql: "ALTER TABLE tracks DROP COLUMN duration", code: .schemaMismatch,
        mentions: "duration"),
      Case(name: "dropped table", sql: "DROP TABLE playlistItems", code: .schemaMismatch, mentions: "playlistItems"),
    ]
    for c in cases {
      let path = dir.path("\(c.name).sqlite")
      try FileManager.default.copyItem(atPath: base, toPath: path)
      let queue = try DatabaseQueue(path: path)
      try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA foreign_keys = OFF")
        try db.execute(sql: c.sql)
      }
      try queue.close()
      let bytes = contents(of: path)
      do {
        let store = try openPlaylists(path)
        Issue.record("\(c.name): opened: \(PlaylistPlain(store.state))")
      } catch let error as RewindError {
        if let code = c.code { #expect(error.code == code, "\(c.name): \(error)") }
        #expect("\(error)".contains(c.mentions), "\(c.name): \(error)")
      } catch {
        Issue.record("\(c.name): not a RewindError: \(error)")
      }
      #expect(contents(of: path) == bytes, "\(c.name): file changed")
    }
  }

  @Test func deletedLogEntryRefusesJumpsAcrossIt() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    let store = try openPlaylists(path)
    try seedPlaylists(store)
    let queue = try DatabaseQueue(path: path)
    try queue.write { try $0.execute(sql: "DELETE FROM action_log WHERE seq = 5") }
    try queue.close()
    let file = try dump(path)
    let e = expectRewindError(.corruptData) { try store.jump(to: 3) }
    #expect(e.map { "\($0)".contains("5") } == true, "\(String(describing: e))")
    #expect(try dump(path) == file)
    let result = try runRewindTool(["export", path, "--at", "2"])
    #expect(result.status != 0)
    #expect(result.err.contains("5"), "\(result.err)")
  }

  @Test func notAFileOrGarbage() throws {
    let dir = try TemporaryDirectory()
    let garbage = dir.path("g.sqlite")
    try Data("this is a playlist, honest".utf8).write(to: URL(fileURLWithPath: garbage))
    expectRewindError(.notSQLite) { try openPlaylists(garbage) }
    #expect(contents(of: garbage) == Data("this is a playlist, honest".utf8))
    let other = dir.path("other.sqlite")
    let queue = try DatabaseQueue(path: other)
    try queue.write { try $0.execute(sql: "CREATE TABLE songs (id INTEGER PRIMARY KEY)") }
    try queue.close()
    expectRewindError(.notRewindDatabase) { try openPlaylists(other) }
    expectRewindError(.fileNotFound) { try openPlaylists(dir.path("missing.sqlite"), readOnly: true) }
    expectRewindError(.invalidPath) { try openPlaylists(":memory:") }
    // Another app's Rewind file: none of its entity tables is ours.
    let planner = dir.path("planner.sqlite")
    do {
      let p = try openPlanner(planner)
      try seedPlanner(p)
    }
    let before = contents(of: planner)
    expectRewindError(.schemaMismatch) { try openPlaylists(planner) }
    #expect(contents(of: planner) == before)
  }
}
