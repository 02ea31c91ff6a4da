import Foundation
import GRDB
import Testing

@testable import Rewind

// Version 2 of the playlist app: tracks gain `replayGain` (NOT NULL, default -14) and `bpm`
// (nullable), `artist` is renamed `artistName`, and the view's `searchText` becomes `query`.

struct PLTrackV2: Entity {
  static let databaseTableName = "tracks"
  var id: String
  var title: String
  var artistName: String?
  var duration: Double = 0
  var rating: Int64?
  var explicit = false
  var addedAt: Double = 0
  var albumID: Int64?
  var playCount: Int64 = 0
  var serverVersion: Int64?
  var replayGain: Double = -14
  var bpm: Double?

  enum CodingKeys: String, CodingKey {
    case id, title, artistName, duration, rating, explicit, addedAt, playCount, serverVersion, replayGain, bpm
    case albumID = "albumId"
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("title", .text).notNull()
      t.column("artistName", .text)
      t.column("duration", .double).notNull()
      t.column("rating", .integer)
      t.column("explicit", .boolean).notNull()
      t.column("addedAt", .double).notNull()
      t.belongsTo("album", inTable: PLAlbum.databaseTableName, onDelete: .setNull)
      t.column("playCount", .integer).notNull()
      t.column("serverVersion", .integer)
      t.column("replayGain", .double).notNull().defaults(to: -14.0)
      t.column("bpm", .double)
    }
  }

  var asV1: PLTrack {
    PLTrack(
      id: id, title: title, artist: artistName, duration: duration, rating: rating, explicit: explicit,
      addedAt: addedAt, albumID: albumID, playCount: playCount, serverVersion: serverVersion)
  }
}

struct PLViewV2: Codable, Equatable, Sendable {
  var selection: PLView.Selection?
  var sheet: PLView.Sheet?
  var query = ""
  var scrollOffset: Double = 0
  var nowPlaying: String?
  var playlistScroll: [String: Double] = [:]
}

struct PlaylistStateV2: PersistentState, Equatable {
  var albums = EntityTable<PLAlbum>()
  var tracks = EntityTable<PLTrackV2>()
  var playlists = EntityTable<PLPlaylist>()
  var items = EntityTable<PLItem>()
  var library = OrderedIDList<String>()
  var sidebar = OrderedIDList<UUID>()
  var playlistItems = OrderedIDLists<UUID, UUID>()
  var view = PLViewV2()

  mutating func repairViewState() {
    switch view.selection {
    case .playlist(let id)? where !playlists.contains(id: id): view.selection = nil
    case .track(let id)? where !tracks.contains(id: id): view.selection = nil
    default: break
    }
    if let id = view.nowPlaying, !tracks.contains(id: id) { view.nowPlaying = nil }
  }

  static let migration2 = SchemaMigration(
    "2-loudness",
    .addColumn("replayGain", to: "tracks", .double, notNull: true, default: -14.0),
    .addColumn("bpm", to: "tracks", .double, default: nil),
    .renameColumn("artist", to: "artistName", in: "tracks"),
    .renameViewProperty("searchText", to: "query")
  )

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.items),
      .entities(\.tracks),
      .entities(\.albums),
      .entities(\.playlists),
      .list(\.library, named: "library", of: PLTrackV2.self),
      .list(\.sidebar, named: "sidebar", of: PLPlaylist.self),
      .lists(\.playlistItems, named: "playlistItems", of: PLItem.self, ownedBy: PLPlaylist.self),
      .view(\.view)
    )
    .migrations(migration2)
  }

  var asV1: PlaylistPlain {
    var s = PlaylistState()
    s.albums = albums
    for t in tracks.values { s.tracks.insert(t.asV1) }
    s.playlists = playlists
    s.items = items
    s.library = library
    s.sidebar = sidebar
    s.playlistItems = playlistItems
    s.view = PLView(
      selection: view.selection, sheet: view.sheet, searchText: view.query, scrollOffset: view.scrollOffset,
      nowPlaying: view.nowPlaying, playlistScroll: view.playlistScroll)
    return PlaylistPlain(s)
  }
}

enum PLActionV2: LoggedAction, Equatable {
  case setGain(id: String, Double)
  case setBPM(id: String, Double?)
  case setArtist(id: String, String?)
  case query(String)
  case deleteTrack(id: String)
}

struct PlaylistReducerV2: Reducer {
  func reduce(into state: inout PlaylistStateV2, action: PLActionV2) -> Effect<PLActionV2> {
    switch action {
    case .setGain(let id, let gain): state.tracks[id]?.replayGain = gain
    case .setBPM(let id, let bpm): state.tracks[id]?.bpm = bpm
    case .setArtist(let id, let name): state.tracks[id]?.artistName = name
    case .query(let text): state.view.query = text
    case .deleteTrack(let id): state.tracks.remove(id: id)
    }
    return .none
  }
}

typealias PlaylistStoreV2 = Store<PlaylistStateV2, PLActionV2>

@MainActor
func openPlaylistsV2(_ path: String, readOnly: Bool = false) throws -> PlaylistStoreV2 {
  try PlaylistStoreV2(path: path, initialState: PlaylistStateV2(), reducer: PlaylistReducerV2(), readOnly: readOnly)
}

@MainActor
@Suite struct PlaylistMigrationTests {
  /// A v1 file with history; returns the states by seq.
  func makeV1File(_ path: String) throws -> [Int64: PlaylistPlain] {
    var states: [Int64: PlaylistPlain] = [0: PlaylistPlain(), 1: PlaylistPlain()]
    let v1 = try openPlaylists(path)
    for action: PLAction in [
      .addAlbum(id: 1, title: "Blue", year: 1971),
      .addTrack(id: "trk-1", title: titleEmoji, artist: "Ann", duration: 215.5, addedAt: 1.25),
      .addTrack(id: "trk-2", title: titleCombining, artist: nil, duration: 301, addedAt: 2),
      .createPlaylist(id: plMix, name: "Mix", createdAt: 3),
      .addToPlaylist(item: plUUID(101), playlist: plMix, track: "trk-1"),
      .addToPlaylist(item: plUUID(102), playlist: plMix, track: "trk-2"),
      .search("caf"),
      .typeTitle(id: "trk-1", text: "!"),
      .sync([ServerTrack(id: "trk-3", title: "Three", artist: "Srv", duration: 3, version: 2, playCount: 9)]),
      .deleteTrack(id: "trk-2"),
    ] {
      try v1.send(action)
      states[v1.lastSeq] = PlaylistPlain(v1.state)
    }
    return states
  }

  @Test func version2OpensAVersion1FileWithHistoryIntact() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    let states = try makeV1File(path)
    let v1Last = states.keys.max()!
    var v1Exports: [Int64: String] = [:]
    do {
      let db = try RewindDatabase(path: path, readOnly: true)
      for seq in 0...v1Last { v1Exports[seq] = try db.export(at: seq) }
    }
    let store = try openPlaylistsV2(path)
    #expect(store.state.asV1 == states[v1Last]!, "\(store.state.asV1)\n\(states[v1Last]!)")
    #expect(store.state.tracks.values.allSatisfy { $0.replayGain == -14 && $0.bpm == nil })
    #expect(store.state.view.query == "caf")
    try expectHealthy(path)
    // The migration is an entry of the log.
    let log = try RewindDatabase(path: path, readOnly: true).log(from: v1Last + 1)
    #expect(log.first?.kind == "migration", "\(log.map(\.kind))")
    // Past seqs export in the new shape: the new columns with their defaults, renamed names.
    let db = try RewindDatabase(path: path, readOnly: true)
    for seq in 0...v1Last {
      let now = try db.export(at: seq)
      #expect(!now.contains("\"artist\""), "seq \(seq) still has the old column")
      if states[seq]!.tracks.isEmpty == false {
        #expect(now.contains("\"artistName\""), "seq \(seq)")
        #expect(now.contains("\"replayGain\""), "seq \(seq)")
      }
      if v1Exports[seq]!.contains("searchText") {
        #expect(now.contains("\"query\""), "seq \(seq)")
        #expect(!now.contains("searchText"), "seq \(seq)")
      }
    }
    // Write in v2, then undo across the migration.
    try store.send(.setGain(id: "trk-1", -9.5))
    try store.send(.setArtist(id: "trk-3", "Local"))
    try store.undo()
    try store.undo()
    #expect(store.state.asV1 == states[v1Last]!)
    try store.undo()  // v1's deleteTrack: trk-2 back, new columns at their defaults
    #expect(store.state.tracks["trk-2"]?.replayGain == -14)
    #expect(store.state.tracks["trk-2"]?.title == titleCombining)
    #expect(store.state.playlistItems[plMix].ids == [plUUID(101), plUUID(102)])
    #expect(PlaylistPlain(try openPlaylistsV2Plain(path)) == PlaylistPlain(store.state.asV1State))
    // Jump to every v1 seq and compare with what v1 had.
    for seq in states.keys.sorted() {
      try store.jump(to: seq)
      #expect(store.state.asV1 == states[seq]!, "jump \(seq)\n\(store.state.asV1)\n\(states[seq]!)")
    }
    try store.jump(to: store.lastSeq - 1)
    #expect(try openPlaylistsV2(path).state == store.state)
    try expectHealthy(path)
    // The old app can no longer open the file: a clear error, the file unchanged.
    let file = try dump(path)
    let error = expectRewindError(.newerAppSchema) { try openPlaylists(path) }
    let text = error.map { "\($0)" } ?? ""
    #expect(text.contains("2-loudness"), "the error names the migration it does not know: \(text)")
    #expect(try dump(path) == file)
    // The tool's undo reads the file as any version.
    let result = try runRewindTool(["undo", path])
    #expect(result.status == 0, "\(result.err)")
    try expectHealthy(path)
  }

  @Test func anOldAppStillRunningStopsWritingAfterTheUpgrade() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    _ = try makeV1File(path)
    let old = try openPlaylists(path)
    let v2 = try openPlaylistsV2(path)
    try v2.send(.setBPM(id: "trk-1", 128))
    let file = try dump(path)
    let error = expectRewindError(.newerAppSchema) { try old.send(.setRating(id: "trk-1", rating: 1)) }
    #expect(error != nil)
    #expect(try dump(path) == file)
    expectRewindError(.newerAppSchema) { try old.undo() }
    #expect(try dump(path) == file)
    #expect(try openPlaylistsV2(path).state.tracks["trk-1"]?.bpm == 128)
  }

  @Test func oldExportImportsIntoTheNewVersion() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("m.sqlite")
    let states = try makeV1File(path)
    let export = try RewindDatabase(path: path, readOnly: true).export(at: 6)
    let store = try openPlaylistsV2(path)
    #expect(try RewindDatabase(path: path).importState(export) != nil)
    try store.reload()
    #expect(store.state.asV1 == states[6]!, "\(store.state.asV1)\n\(states[6]!)")
    #expect(store.state.tracks["trk-2"]?.replayGain == -14)
    try expectHealthy(path)
  }
}

extension PlaylistStateV2 {
  var asV1State: PlaylistState {
    var s = PlaylistState()
    s.albums = albums
    for t in tracks.values { s.tracks.insert(t.asV1) }
    s.playlists = playlists
    s.items = items
    s.library = library
    s.sidebar = sidebar
    s.playlistItems = playlistItems
    s.view = PLView(
      selection: view.selection, sheet: view.sheet, searchText: view.query, scrollOffset: view.scrollOffset,
      nowPlaying: view.nowPlaying, playlistScroll: view.playlistScroll)
    return s
  }
}

@MainActor
func openPlaylistsV2Plain(_ path: String) throws -> PlaylistState {
  try openPlaylistsV2(path).state.asV1State
}
