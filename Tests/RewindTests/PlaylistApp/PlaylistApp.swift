import Foundation
import GRDB

@testable import Rewind

// A music library / playlist editor. Tracks have String keys (server ids, "trk-…"), playlists
// and playlist items UUID keys, albums Int64 keys. A track can be in many playlists: each
// playlist orders its *items* (a keyed list family, playlist → items), and an item refers to a
// track (ON DELETE CASCADE) and to its playlist (CASCADE). A track refers to an album
// (ON DELETE SET NULL). A fixed list orders the library, another the sidebar's playlists.
// Optional fields, doubles, booleans, dates as numbers (seconds since 1970) and one real
// `Date` (lastPlayedAt). A non-undoable `sync` imports tracks from a server.

struct PLAlbum: Entity {
  static let databaseTableName = "albums"
  var id: Int64
  var title: String
  var year: Int64?

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("title", .text).notNull()
      t.column("year", .integer)
    }
  }
}

struct PLTrack: Entity {
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

  enum CodingKeys: String, CodingKey {
    case id, title, artist, duration, rating, explicit, addedAt, playCount, serverVersion
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
    }
  }
}

struct PLPlaylist: Entity {
  static let databaseTableName = "playlists"
  var id: UUID
  var name: String
  var createdAt: Double = 0
  var isSmart = false

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.column("name", .text).notNull()
      t.column("createdAt", .double).notNull()
      t.column("isSmart", .boolean).notNull()
    }
  }
}

struct PLItem: Entity {
  static let databaseTableName = "playlistItems"
  var id: UUID
  var playlistID: UUID
  var trackID: String

  enum CodingKeys: String, CodingKey {
    case id
    case playlistID = "playlistId"
    case trackID = "trackId"
  }

  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .text)
      t.belongsTo("playlist", inTable: PLPlaylist.databaseTableName, onDelete: .cascade).notNull()
      t.belongsTo("track", inTable: PLTrack.databaseTableName, onDelete: .cascade).notNull()
    }
  }
}

struct PLView: Codable, Equatable, Sendable {
  var selection: Selection?
  var sheet: Sheet?
  var searchText = ""
  var scrollOffset: Double = 0
  var nowPlaying: String?
  var playlistScroll: [String: Double] = [:]

  enum Selection: Codable, Equatable, Sendable {
    case playlist(UUID)
    case track(String)
  }

  enum Sheet: Codable, Equatable, Sendable {
    case editTrack(id: String, draft: String)
    case newPlaylist(name: String)
    case confirmDelete(playlist: UUID, itemCount: Int)
  }
}

struct PlaylistState: PersistentState, Equatable {
  var albums = EntityTable<PLAlbum>()
  var tracks = EntityTable<PLTrack>()
  var playlists = EntityTable<PLPlaylist>()
  var items = EntityTable<PLItem>()
  var library = OrderedIDList<String>()
  var sidebar = OrderedIDList<UUID>()
  var playlistItems = OrderedIDLists<UUID, UUID>()
  var view = PLView()

  mutating func repairViewState() {
    switch view.selection {
    case .playlist(let id)? where !playlists.contains(id: id): view.selection = nil
    case .track(let id)? where !tracks.contains(id: id): view.selection = nil
    default: break
    }
    switch view.sheet {
    case .editTrack(let id, _)? where !tracks.contains(id: id): view.sheet = nil
    case .confirmDelete(let id, _)? where !playlists.contains(id: id): view.sheet = nil
    default: break
    }
    if let id = view.nowPlaying, !tracks.contains(id: id) { view.nowPlaying = nil }
  }

  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.items),
      .entities(\.tracks),
      .entities(\.albums),
      .entities(\.playlists),
      .list(\.library, named: "library", of: PLTrack.self),
      .list(\.sidebar, named: "sidebar", of: PLPlaylist.self),
      .lists(\.playlistItems, named: "playlistItems", of: PLItem.self, ownedBy: PLPlaylist.self),
      .view(\.view)
    )
  }
}

/// A track as a server describes it.
struct ServerTrack: Codable, Equatable, Sendable {
  var id: String
  var title: String
  var artist: String?
  var duration: Double
  var version: Int64
  var playCount: Int64
}

enum PLAction: LoggedAction, Equatable {
  case addAlbum(id: Int64, title: String, year: Int64?)
  case deleteAlbum(id: Int64)
  case addTrack(id: String, title: String, artist: String?, duration: Double, addedAt: Double)
  case typeTitle(id: String, text: String)
  case setTitle(id: String, title: String)
  case setRating(id: String, rating: Int64?)
  case setDuration(id: String, seconds: Double)
  /// Computed in the reducer (0/0 is NaN).
  case computeDuration(id: String, numerator: Double, denominator: Double)
  case toggleExplicit(id: String)
  case setAlbum(track: String, album: Int64?)
  case deleteTrack(id: String)
  case moveInLibrary(id: String, to: Int)
  case createPlaylist(id: UUID, name: String, createdAt: Double)
  case renamePlaylist(id: UUID, name: String)
  case deletePlaylist(id: UUID)
  case addToPlaylist(item: UUID, playlist: UUID, track: String)
  case moveItem(item: UUID, to: Int)
  case removeItem(item: UUID)
  // View state only.
  case select(PLView.Selection?)
  case present(PLView.Sheet?)
  case search(String)
  case scroll(Double)
  case scrollPlaylist(UUID, Double)
  case play(String?)
  /// Not undoable: what the server says (new tracks are appended to the library; known ones
  /// take the server's title, artist, duration, version and play count).
  case sync([ServerTrack])
  /// Not undoable: a play counted.
  case countPlay(id: String)
  /// Not undoable: a collaborator's item in a shared playlist, pushed by the server.
  case syncItem(item: UUID, playlist: UUID, track: String)
  /// Reducer bugs.
  case insertItemRaw(PLItem)
  case listTrackWithoutRow(String)

  var undoGroup: String? {
    if case .typeTitle(let id, _) = self { return "title-\(id)" }
    return nil
  }

  var isUndoable: Bool {
    switch self {
    case .sync, .countPlay, .syncItem: false
    default: true
    }
  }
}

struct PlaylistReducer: Reducer {
  func reduce(into state: inout PlaylistState, action: PLAction) -> Effect<PLAction> {
    switch action {
    case .addAlbum(let id, let title, let year):
      state.albums.insert(PLAlbum(id: id, title: title, year: year))
    case .deleteAlbum(let id):
      state.albums.remove(id: id)  // the engine sets tracks.albumId to NULL
    case .addTrack(let id, let title, let artist, let duration, let addedAt):
      state.tracks.insert(PLTrack(id: id, title: title, artist: artist, duration: duration, addedAt: addedAt))
      if !state.library.contains(id) { state.library.append(id) }
    case .typeTitle(let id, let text):
      state.tracks[id]?.title += text
    case .setTitle(let id, let title):
      state.tracks[id]?.title = title
    case .setRating(let id, let rating):
      state.tracks[id]?.rating = rating
    case .setDuration(let id, let seconds):
      state.tracks[id]?.duration = seconds
    case .computeDuration(let id, let n, let d):
      state.tracks[id]?.duration = n / d
    case .toggleExplicit(let id):
      state.tracks[id]?.explicit.toggle()
    case .setAlbum(let track, let album):
      state.tracks[track]?.albumID = album
    case .deleteTrack(let id):
      state.tracks.remove(id: id)  // the engine cascades to its items and their entries
      if state.view.selection == .track(id) { state.view.selection = nil }
      if case .editTrack(id, _)? = state.view.sheet { state.view.sheet = nil }
      if state.view.nowPlaying == id { state.view.nowPlaying = nil }
    case .moveInLibrary(let id, let offset):
      guard state.library.contains(id) else { break }
      state.library.move(id, to: min(max(offset, 0), state.library.count - 1))
    case .createPlaylist(let id, let name, let createdAt):
      state.playlists.insert(PLPlaylist(id: id, name: name, createdAt: createdAt))
      state.sidebar.append(id)
      state.view.selection = .playlist(id)
    case .renamePlaylist(let id, let name):
      state.playlists[id]?.name = name
    case .deletePlaylist(let id):
      state.playlists.remove(id: id)
      if state.view.selection == .playlist(id) { state.view.selection = nil }
      if case .confirmDelete(id, _)? = state.view.sheet { state.view.sheet = nil }
    case .addToPlaylist(let item, let playlist, let track):
      guard state.playlists.contains(id: playlist), state.tracks.contains(id: track) else { break }
      state.items.insert(PLItem(id: item, playlistID: playlist, trackID: track))
      state.playlistItems[playlist].append(item)
    case .moveItem(let item, let offset):
      guard let playlist = state.playlistItems.owner(of: item) else { break }
      let count = state.playlistItems[playlist].count
      state.playlistItems[playlist].move(item, to: min(max(offset, 0), count - 1))
    case .removeItem(let item):
      state.items.remove(id: item)
    case .select(let selection):
      state.view.selection = selection
    case .present(let sheet):
      state.view.sheet = sheet
    case .search(let text):
      state.view.searchText = text
    case .scroll(let offset):
      state.view.scrollOffset = offset
    case .scrollPlaylist(let id, let offset):
      state.view.playlistScroll[id.uuidString] = offset
    case .play(let id):
      state.view.nowPlaying = id
    case .sync(let serverTracks):
      for t in serverTracks {
        if state.tracks.contains(id: t.id) {
          state.tracks[t.id]?.title = t.title
          state.tracks[t.id]?.artist = t.artist
          state.tracks[t.id]?.duration = t.duration
          state.tracks[t.id]?.serverVersion = t.version
          state.tracks[t.id]?.playCount = t.playCount
        } else {
          state.tracks.insert(
            PLTrack(
              id: t.id, title: t.title, artist: t.artist, duration: t.duration, playCount: t.playCount,
              serverVersion: t.version))
          if !state.library.contains(t.id) { state.library.append(t.id) }
        }
      }
    case .countPlay(let id):
      state.tracks[id]?.playCount += 1
    case .syncItem(let item, let playlist, let track):
      guard state.playlists.contains(id: playlist), state.tracks.contains(id: track) else { break }
      state.items.insert(PLItem(id: item, playlistID: playlist, trackID: track))
      state.playlistItems[playlist].append(item)
    case .insertItemRaw(let item):
      state.items.insert(item)
      state.playlistItems[item.playlistID].append(item.id)
    case .listTrackWithoutRow(let id):
      state.library.append(id)
    }
    return .none
  }
}

typealias PlaylistStore = Store<PlaylistState, PLAction>

@MainActor
func openPlaylists(_ path: String, readOnly: Bool = false) throws -> PlaylistStore {
  try PlaylistStore(path: path, initialState: PlaylistState(), reducer: PlaylistReducer(), readOnly: readOnly)
}

/// Fixed UUIDs, readable in failures.
func plUUID(_ n: Int) -> UUID {
  UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", n))!
}

/// The state as plain values, for comparisons and readable failures.
struct PlaylistPlain: Equatable, CustomStringConvertible {
  var albums: [Int64: PLAlbum]
  var tracks: [String: PLTrack]
  var playlists: [UUID: PLPlaylist]
  var items: [UUID: PLItem]
  var library: [String]
  var sidebar: [UUID]
  var playlistItems: [UUID: [UUID]]
  var view: PLView

  init(_ s: PlaylistState) {
    albums = Dictionary(uniqueKeysWithValues: s.albums.values.map { ($0.id, $0) })
    tracks = Dictionary(uniqueKeysWithValues: s.tracks.values.map { ($0.id, $0) })
    playlists = Dictionary(uniqueKeysWithValues: s.playlists.values.map { ($0.id, $0) })
    items = Dictionary(uniqueKeysWithValues: s.items.values.map { ($0.id, $0) })
    library = s.library.ids
    sidebar = s.sidebar.ids
    playlistItems = Dictionary(
      uniqueKeysWithValues: s.playlistItems.ownersWithLists.map { ($0, s.playlistItems[$0].ids) })
    view = s.view
  }

  init() { self.init(PlaylistState()) }

  var description: String {
    let t = tracks.values.sorted { $0.id < $1.id }.map {
      "\($0.id)'\($0.title)' a=\($0.artist ?? "-") d=\($0.duration) r=\($0.rating.map(String.init) ?? "-") x=\($0.explicit) al=\($0.albumID.map(String.init) ?? "-") pc=\($0.playCount) sv=\($0.serverVersion.map(String.init) ?? "-")"
    }
    return """
      albums: \(albums.values.sorted { $0.id < $1.id }.map { "\($0.id):\($0.title)" })
      tracks: \(t)
      playlists: \(playlists.values.sorted { $0.id < $1.id }.map { "\($0.id.uuidString.suffix(4)):\($0.name)" })
      items: \(items.values.sorted { $0.id < $1.id }.map { "\($0.id.uuidString.suffix(4))@\($0.playlistID.uuidString.suffix(4))->\($0.trackID)" })
      library: \(library) sidebar: \(sidebar.map { $0.uuidString.suffix(4) })
      playlistItems: \(playlistItems.sorted { $0.key < $1.key }.map { "\($0.key.uuidString.suffix(4)): \($0.value.map { $0.uuidString.suffix(4) })" })
      view: \(view)
      """
  }
}
