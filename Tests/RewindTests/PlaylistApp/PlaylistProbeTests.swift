import Foundation
import GRDB
import Testing

@testable import Rewind

// An app update that added an optional property to tracks and forgot the migration.
struct PLTrackForgot: Entity {
  static let databaseTableName = "tracks"
  var id: String
  var title: String
  var artist: String?
  var duration: Double = 0
  var rating: Int64?
  var explicit = false
  var addedAt: Double = 0
  var albumID: Int64?
  var playCount: Int64 = 0
  var serverVersion: Int64?
  var bpm: Double?

  enum CodingKeys: String, CodingKey {
    case id, title, artist, duration, rating, explicit, addedAt, playCount, serverVersion, bpm
    case albumID = "albumId"
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("title", .text).notNull()
      t.column("artist", .text)
      t.column("duration", .double).notNull()
      t.column("rating", .integer)
      t.column("explicit", .boolean).notNull()
      t.column("addedAt", .double).notNull()
      t.belongsTo("album", inTable: PLAlbum.databaseTableName, onDelete: .setNull)
      t.column("playCount", .integer).notNull()
      t.column("serverVersion", .integer)
      t.column("bpm", .double)
    }
  }
}

struct PlaylistStateForgot: PersistentState, Equatable {
  var albums = EntityTable<PLAlbum>()
  var tracks = EntityTable<PLTrackForgot>()
  var playlists = EntityTable<PLPlaylist>()
  var items = EntityTable<PLItem>()
  var library = OrderedIDList<String>()
  var sidebar = OrderedIDList<UUID>()
  var playlistItems = OrderedIDLists<UUID, UUID>()
  var view = PLView()

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.items),
      .entities(\.tracks),
      .entities(\.albums),
      .entities(\.playlists),
      .list(\.library, named: "library", of: PLTrackForgot.self),
      .list(\.sidebar, named: "sidebar", of: PLPlaylist.self),
      .lists(\.playlistItems, named: "playlistItems", of: PLItem.self, ownedBy: PLPlaylist.self),
      .view(\.view)
    )
  }
}

enum PLActionForgot: LoggedAction, Equatable {
  case setBPM(id: String, Double?)
  case setTitle(id: String, String)
}

struct PlaylistReducerForgot: Reducer {
  func reduce(into state: inout PlaylistStateForgot, action: PLActionForgot) -> Effect<PLActionForgot> {
    switch action {
    case .setBPM(let id, let bpm): state.tracks[id]?.bpm = bpm
    case .setTitle(let id, let title): state.tracks[id]?.title = title
    }
    return .none
  }
}

@MainActor
@Suite struct PlaylistProbeTests {
  /// README, Failures: "an entity that reads a column its table does not have
  /// (`.schemaMismatch` naming the column: an app update that forgot the migration adding
  /// it)" is refused on opening a table with rows. The commonest such update adds an
  /// *optional* property.
  @Test func forgottenMigrationOfAnOptionalColumnIsRefusedOnOpen() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    do {
      let v1 = try openPlaylists(path)
      try seedPlaylists(v1)
    }
    let file = try dump(path)
    var opened: Store<PlaylistStateForgot, PLActionForgot>?
    do {
      opened = try Store(path: path, initialState: PlaylistStateForgot(), reducer: PlaylistReducerForgot())
      Issue.record("the app that forgot the migration adding tracks.bpm opened the file")
    } catch let error as RewindError {
      #expect(error.code == .schemaMismatch, "\(error)")
      #expect(error.message.contains("bpm"), "\(error)")
    }
    #expect(try dump(path) == file)
    // If it opened: what its first write of a track does.
    if let store = opened {
      let seq = store.lastSeq
      let before = try dump(path)
      let error = expectRewindError(.schemaMismatch) { try store.send(.setBPM(id: "trk-1", 120)) }
      #expect(error?.message.contains("bpm") == true, "\(String(describing: error))")
      #expect(store.lastSeq == seq)
      #expect(try dump(path) == before, "nothing written")
      #expect(store.state.tracks["trk-1"]?.bpm == nil, "memory is what the file holds")
      // A write that does not touch the new property: does it succeed, and does memory
      // match the file afterwards?
      do {
        try store.send(.setTitle(id: "trk-2", "Renamed"))
        let again = try Store(path: path, initialState: PlaylistStateForgot(), reducer: PlaylistReducerForgot())
        #expect(again.state == store.state)
      } catch {
        Issue.record("a write of a track row by the app that forgot the migration: \(error)")
      }
    }
  }

  /// A nullable column dropped behind the engine's back (sqlite3) while it held values:
  /// opening should refuse as it does for a NOT NULL column, not read the values as nil.
  @Test func droppedNullableColumnIsRefusedOnOpen() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    do {
      let store = try openPlaylists(path)
      try seedPlaylists(store)
      try store.send(
        .sync([ServerTrack(id: "trk-1", title: "One", artist: "Ann", duration: 215.5, version: 7, playCount: 3)]))
    }
    let queue = try DatabaseQueue(path: path)
    try queue.write { try $0.execute(sql: "ALTER TABLE tracks DROP COLUMN serverVersion") }
    try queue.close()
    let bytes = contents(of: path)
    do {
      let store = try openPlaylists(path)
      Issue.record(
        "opened a file whose tracks lost serverVersion; trk-1 reads serverVersion \(String(describing: store.state.tracks["trk-1"]?.serverVersion))"
      )
      // And a sync that writes the column:
      let error = expectRewindError(.schemaMismatch) {
        try store.send(
          .sync([ServerTrack(id: "trk-2", title: "Two", artist: nil, duration: 1, version: 8, playCount: 1)]))
      }
      #expect(error?.message.contains("serverVersion") == true, "\(String(describing: error))")
    } catch let error as RewindError {
      #expect(error.code == .schemaMismatch, "\(error)")
      #expect(error.message.contains("serverVersion"), "\(error)")
    }
    _ = bytes
  }

  /// A `Double` view property with a value JSON prints in exponent form, and tiny/huge doubles
  /// in entity columns, survive reopen and jumps.
  @Test func extremeDoublesInViewStateAndColumns() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    let store = try openPlaylists(path)
    try seedPlaylists(store)
    for value in [
      1e-300, Double.leastNonzeroMagnitude, 1.7976931348623157e308, -0.0, 0.1 + 0.2, 123_456_789.123_456_78,
    ] {
      try store.send(.scroll(value))
      try store.send(.scrollPlaylist(plMix, value))
      try store.send(.setDuration(id: "trk-4", seconds: value))
      let reopened = try openPlaylists(path)
      #expect(reopened.state.view.scrollOffset == value, "\(value)")
      #expect(reopened.state.view.playlistScroll[plMix.uuidString] == value, "\(value)")
      #expect(reopened.state.tracks["trk-4"]?.duration == value, "\(value)")
    }
    try store.jump(to: 5)
    try store.jump(to: store.lastSeq - 1)
    try expectPlaylistReopenMatches(store, path)
    try expectHealthy(path)
  }

  /// Compaction never cuts into what redo needs: undo three steps, compact keeping 1, redo all.
  @Test func redoAfterCompaction() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    let store = try openPlaylists(path)
    try seedPlaylists(store)
    try store.send(.deleteTrack(id: "trk-1"))
    try store.send(.renamePlaylist(id: plRoad, name: "Road 2"))
    try store.send(.moveItem(item: plUUID(103), to: 0))
    let top = PlaylistPlain(store.state)
    try store.undo()
    try store.undo()
    try store.undo()
    let undone = PlaylistPlain(store.state)
    let result = try runRewindTool(["compact", path, "--keep", "1"])
    #expect(result.status == 0, "\(result.out)\(result.err)")
    try store.reload()
    #expect(PlaylistPlain(store.state) == undone)
    try store.redo()
    try store.redo()
    try store.redo()
    #expect(PlaylistPlain(store.state) == top, "\(PlaylistPlain(store.state))\n\(top)")
    try expectPlaylistReopenMatches(store, path)
    try expectHealthy(path)
  }

  /// A sync recreates a track the user deleted; undoing the delete keeps the recreated row
  /// (README: "a row recreated since is kept") and brings back the playlist items.
  @Test func undoDeleteOfATrackTheServerRecreated() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    let store = try openPlaylists(path)
    try seedPlaylists(store)
    let seeded = PlaylistPlain(store.state)
    try store.send(.deleteTrack(id: "trk-1"))
    try store.send(
      .sync([ServerTrack(id: "trk-1", title: "From server", artist: "S", duration: 1, version: 3, playCount: 10)]))
    #expect(store.state.library.ids.last == "trk-1")
    try store.undo()
    #expect(store.state.tracks["trk-1"]?.title == "From server")
    #expect(store.state.tracks["trk-1"]?.playCount == 10)
    #expect(store.state.playlistItems[plRoad].ids == seeded.playlistItems[plRoad]!, "\(PlaylistPlain(store.state))")
    #expect(store.state.playlistItems[plMix].ids == seeded.playlistItems[plMix]!)
    #expect(store.state.library.count == 4)
    try expectPlaylistReopenMatches(store, path, "after undo")
    try store.redo()
    #expect(store.state.tracks["trk-1"] == nil || store.state.tracks["trk-1"]?.title == "From server")
    try expectPlaylistReopenMatches(store, path, "after redo")
    try expectHealthy(path)
  }
}
