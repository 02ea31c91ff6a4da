import Foundation
import GRDB
import Testing

@testable import Rewind

/// The memory of `store` must equal what a new store and a read-only one read from the file.
@MainActor
func expectPlaylistReopenMatches(
  _ store: PlaylistStore, _ path: String, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let memory = PlaylistPlain(store.state)
  let readOnly = PlaylistPlain(try openPlaylists(path, readOnly: true).state)
  #expect(
    readOnly == memory, "read-only reopen differs \(context)\nmemory:\n\(memory)\nfile:\n\(readOnly)",
    sourceLocation: sourceLocation)
  let reopened = PlaylistPlain(try openPlaylists(path).state)
  #expect(
    reopened == memory, "reopen differs \(context)\nmemory:\n\(memory)\nfile:\n\(reopened)",
    sourceLocation: sourceLocation)
}

let plMix = plUUID(1)
let plRoad = plUUID(2)
let plJazz = plUUID(3)

/// Unicode titles: emoji (with ZWJ and skin tone), combining marks, right-to-left.
let titleEmoji = "🎸 Rock 👩🏽‍🎤 Anthem"
let titleCombining = "Cafe\u{301} del Mar"  // decomposed é
let titleRTL = "\u{5E9}\u{5DC}\u{5D5}\u{5DD} \u{627}\u{644}\u{633}\u{644}\u{627}\u{645}"  // Hebrew + Arabic
let titleZalgo = "Z\u{336}\u{33F}a\u{334}\u{30C}l\u{335}\u{312}g\u{337}o\u{338}"

/// A small library: two albums, four tracks, two playlists sharing a track.
@MainActor
func seedPlaylists(_ store: PlaylistStore) throws {
  try store.send(.addAlbum(id: 1, title: "Blue", year: 1971))
  try store.send(.addAlbum(id: 2, title: "Untitled", year: nil))
  try store.send(.addTrack(id: "trk-1", title: titleEmoji, artist: "Ann", duration: 215.5, addedAt: 1_700_000_000.25))
  try store.send(.addTrack(id: "trk-2", title: titleCombining, artist: nil, duration: 301, addedAt: 1_700_000_100))
  try store.send(.addTrack(id: "trk-3", title: titleRTL, artist: "فيروز", duration: 0.001, addedAt: -1))
  try store.send(.addTrack(id: "trk-4", title: titleZalgo, artist: "", duration: 60, addedAt: 0))
  try store.send(.setAlbum(track: "trk-1", album: 1))
  try store.send(.setAlbum(track: "trk-2", album: 1))
  try store.send(.setRating(id: "trk-1", rating: 5))
  try store.send(.toggleExplicit(id: "trk-3"))
  try store.send(.createPlaylist(id: plMix, name: "Mix 🎧", createdAt: 1.5))
  try store.send(.createPlaylist(id: plRoad, name: "Road trip", createdAt: 2.5))
  try store.send(.addToPlaylist(item: plUUID(101), playlist: plMix, track: "trk-1"))
  try store.send(.addToPlaylist(item: plUUID(102), playlist: plMix, track: "trk-2"))
  try store.send(.addToPlaylist(item: plUUID(103), playlist: plMix, track: "trk-3"))
  try store.send(.addToPlaylist(item: plUUID(104), playlist: plRoad, track: "trk-1"))
  try store.send(.addToPlaylist(item: plUUID(105), playlist: plRoad, track: "trk-1"))  // twice in one playlist
  try store.send(.addToPlaylist(item: plUUID(106), playlist: plRoad, track: "trk-4"))
}
