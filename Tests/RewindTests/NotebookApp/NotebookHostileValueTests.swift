import Foundation
import GRDB
import Testing

@testable import Rewind

@MainActor
@Suite(.serialized) struct NotebookHostileValueTests {
  static let slugs = [
    nbSlugCafe, nbSlugEmoji, nbSlugSQL, nbSlugJSON, nbSlugQuote, nbSlugControl, nbSlugLong, nbSlugEmpty,
  ]

  @Test func hostileSlugsAsKeysOwnersAndJoinKeys() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("n.sqlite")
    let store = try openNotebook(path)
    try store.send(.addTag(name: nbSlugJSON, color: nbSlugSQL))
    for (i, slug) in Self.slugs.enumerated() {
      try store.send(.addPage(slug: slug, title: slug, createdAt: Double(i)))
      try store.send(.addBlock(id: "blk-\(i)", page: slug, text: slug, at: nil))
      try store.send(.addBlock(id: slug, page: slug, text: "", at: 0))  // a block keyed by the slug too
      try store.send(.tag(page: slug, tag: nbSlugJSON))
      try store.send(.scroll(page: slug, Double(i) + 0.5))
    }
    #expect(store.state.pages.count == Self.slugs.count)
    #expect(store.state.pageTags.count == Self.slugs.count)
    try expectNotebookReopenMatches(store, path, "after adds")
    try expectHealthy(path)
    // Moves between hostile owners, deletes, undo.
    try store.send(.moveBlockToPage(id: "blk-0", page: nbSlugEmpty, at: 0))
    try store.send(.moveBlockToPage(id: nbSlugLong, page: nbSlugControl, at: 1))
    try store.send(.deletePage(slug: nbSlugLong))
    try store.send(.deletePage(slug: nbSlugEmpty))
    #expect(store.state.blocks["blk-0"] == nil)
    #expect(store.state.blocks[nbSlugLong]?.pageID == nbSlugControl)
    try expectNotebookReopenMatches(store, path, "after deletes")
    for _ in 0..<4 { try store.undo() }
    try expectNotebookReopenMatches(store, path, "after undos")
    #expect(store.state.pageBlocks[nbSlugCafe].ids == ["café-✨", "blk-0"])
    try expectHealthy(path)
    // The tool exports and re-imports the same state: nothing to restore.
    let exported = dir.path("e.json")
    var r = try runRewindTool(["export", path, "-o", exported])
    #expect(r.status == 0, "\(r.err)")
    r = try runRewindTool(["import", path, exported])
    #expect(r.status == 0 && r.out.contains("Nothing to import"), "\(r.out)\(r.err)")
  }

  @Test func hugeAndEmptyStrings() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("n.sqlite")
    let store = try openNotebook(path)
    try store.send(.addPage(slug: "p", title: "", createdAt: 0))
    let huge = String(repeating: "🧪\\\"\u{1}é", count: 400_000)  // about 4 MB, escapes mixed in
    try store.send(.addBlock(id: "b", page: "p", text: huge, at: nil))
    try store.send(.typeText(id: "b", text: "!"))
    try store.send(.typeText(id: "b", text: "?"))
    #expect(store.state.blocks["b"]?.text == huge + "!?")
    try store.send(.search(huge))
    try expectNotebookReopenMatches(store, path)
    try store.undo()
    #expect(store.state.blocks["b"]?.text == huge)
    try store.send(.setText(id: "b", text: ""))
    try expectNotebookReopenMatches(store, path)
    try expectHealthy(path)
  }

  @Test func nonFiniteDoubles() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("n.sqlite")
    let store = try openNotebook(path)
    try seedNotebook(store)
    let before = try dump(path)
    let seq = store.lastSeq
    // NaN computed in the reducer: refused, nothing written.
    expectRewindError(.invalidValue) { try store.send(.computeWeight(id: "b1", numerator: 0, denominator: 0)) }
    #expect(store.state.blocks["b1"]?.weight == 0)
    #expect(try dump(path) == before)
    #expect(store.lastSeq == seq)
    // Non-finite values in a payload: refused.
    expectRewindError(.invalidValue) { try store.send(.setWeight(id: "b1", .nan)) }
    expectRewindError(.invalidValue) { try store.send(.setGoal(slug: nbSlugCafe, .infinity)) }
    expectRewindError(.invalidValue) { try store.send(.scroll(page: nbSlugCafe, -.infinity)) }
    #expect(try dump(path) == before)
    // An infinity computed in the reducer is stored.
    try store.send(.computeWeight(id: "b1", numerator: 1, denominator: 0))
    try store.send(.computeWeight(id: "b2", numerator: -1, denominator: 0))
    let minusZero = try store.send(.computeWeight(id: "b4", numerator: -0.0, denominator: 1))
    #expect(minusZero == nil, "0 to -0.0 changes nothing")
    #expect(store.state.blocks["b1"]?.weight == .infinity)
    try expectNotebookReopenMatches(store, path)
    try expectHealthy(path)
    let r = try runRewindTool(["export", path])
    #expect(r.out.contains(#""$real":"inf""#) && r.out.contains(#""$real":"-inf""#), "\(r.out)")
    try store.undo()
    try store.undo()
    #expect(store.state.blocks["b2"]?.weight == 0)
    try store.redo()
    #expect(store.state.blocks["b1"]?.weight == .infinity && store.state.blocks["b2"]?.weight == 0)
    try expectNotebookReopenMatches(store, path)
    // Values that look like the log's own tags.
    try store.send(.setText(id: "b3", text: #"{"$real":"inf"}"#))
    try store.send(.scroll(page: "$real", 1))
    try store.send(.scroll(page: "$blob", 2))
    try store.send(.select([#"{"$blob":"00"}"#, "$real"]))
    try store.send(.addPage(slug: "$real", title: #"{"$blob":"zz"}"#, createdAt: 0))
    try expectNotebookReopenMatches(store, path)
    try expectHealthy(path)
    let export = try runRewindTool(["export", path, "--at", "\(store.lastSeq - 1)"])
    #expect(export.status == 0, "\(export.err)")
    try store.undo()
    try expectNotebookReopenMatches(store, path)
  }

  /// JSON keeps the sign of zero, so a view state (and a payload) holding `-0.0` reads back as
  /// it was written: after a reopen, a view jump back to it, and in the logged action. (A change
  /// from `-0.0` to `0.0` alone is none: view state is compared with `==`, as documented.)
  @Test func negativeZeroInViewStateAndPayloadKeepsItsSign() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("z.sqlite")
    let store = try openNotebook(path)
    try seedNotebook(store)
    let seq = try #require(try store.send(.scroll(page: nbSlugCafe, -0.0)))
    #expect(store.state.view.scroll[nbSlugCafe]?.sign == .minus)
    #expect(try openNotebook(path, readOnly: true).state.view.scroll[nbSlugCafe]?.sign == .minus)
    let payload = try RewindDatabase(path: path, readOnly: true).entry(seq).payload
    #expect(payload.contains("-0.0"), "\(payload)")
    try store.send(.scroll(page: nbSlugCafe, 5))
    try store.jump(to: seq, timeline: .view)
    #expect(store.state.view.scroll[nbSlugCafe]?.sign == .minus)
    #expect(try openNotebook(path, readOnly: true).state.view.scroll[nbSlugCafe]?.sign == .minus)
    try expectHealthy(path)
  }

  @Test func nulAndUnicodeNormalization() throws {
    let dir = try TemporaryDirectory()
    let path = dir.path("n.sqlite")
    let store = try openNotebook(path)
    try seedNotebook(store)
    let before = try dump(path)
    expectRewindError(.invalidValue) { try store.send(.addPage(slug: "nul\u{0}slug", title: "x", createdAt: 0)) }
    expectRewindError(.invalidValue) { try store.send(.setText(id: "b1", text: "a\u{0}b")) }
    #expect(try dump(path) == before)
    // NUL in view state is JSON: kept.
    try store.send(.search("a\u{0}b"))
    try expectNotebookReopenMatches(store, path)

    // The page "café-✨" was created composed; the app now reaches it decomposed.
    let decomposed = "cafe\u{301}-✨"
    #expect(decomposed == nbSlugCafe)
    try store.send(.setTitle(slug: decomposed, title: "Renamed"))
    #expect(store.state.pages[nbSlugCafe]?.title == "Renamed")
    try expectNotebookReopenMatches(store, path, "title via other spelling")
    // A block moved to the page by its other spelling: the row's pageId bytes differ from the
    // page's key bytes. Either refused, or stored so that the relation holds.
    let before2 = try dump(path)
    let refused = expectRewindError(.relationViolation) {
      try store.send(.addBlock(id: "nb", page: decomposed, text: "new", at: nil))
    }
    #expect(refused?.description.contains("normalization") == true)
    #expect(try dump(path) == before2)
    try expectNotebookReopenMatches(store, path, "addBlock via other spelling")
    try expectHealthy(path)
    let fk = try sqlite3Shell(path, "pragma foreign_key_check")
    #expect(fk.out.isEmpty, "foreign keys broken: \(fk.out)")
    // Tag it by the other spelling: the join row's pageId.
    try store.send(.untag(page: nbSlugCafe, tag: "日本語"))
    expectRewindError(.relationViolation) { try store.send(.tag(page: decomposed, tag: "日本語")) }
    expectRewindError(.relationViolation) { try store.send(.moveBlockToPage(id: "b3", page: decomposed, at: 0)) }
    try expectNotebookReopenMatches(store, path, "tag via other spelling")
    let fk2 = try sqlite3Shell(path, "pragma foreign_key_check")
    #expect(fk2.out.isEmpty, "foreign keys broken: \(fk2.out)")
    // Deleting the page must take every block and join row with it.
    try store.send(.deletePage(slug: nbSlugCafe))
    #expect(!store.state.blocks.values.contains { $0.pageID == nbSlugCafe })
    try expectNotebookReopenMatches(store, path, "after delete")
    try store.undo()
    try expectNotebookReopenMatches(store, path, "after undo")
    try expectHealthy(path)
  }
}
