import Foundation
import GRDB
import Rewind
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `rewind ui`: its JSON API over HTTP, and its page in a real headless Chromium, each on a
/// file written by `tasks demo` while separate `tasks` processes keep writing.
@Suite(.serialized)
struct TimelineUITests {
  let directory: TemporaryDirectory
  let runner: ProcessRunner
  var path: String { directory.path("demo.sqlite") }

  init() throws {
    directory = try TemporaryDirectory()
    runner = ProcessRunner(directory: directory.url)
    #expect(try runner.tasks("demo").status == 0)
  }

  /// `rewind ui` on the demo file, and the address it printed.
  func startUI() throws -> (RunningProcess, URL) {
    let ui = try RunningProcess("rewind", ["ui", "demo.sqlite"], directory: directory.url)
    let line = ui.readLines(1).first ?? ""
    guard line.hasPrefix("rewind ui: demo.sqlite at http://127.0.0.1:"), let address = line.split(separator: " ").last,
      let url = URL(string: String(address))
    else {
      ui.kill()
      throw WebDriver.Failure(description: "rewind ui printed '\(line)'")
    }
    return (ui, url)
  }

  /// `GET` or `POST` an API path, with the page's token unless `token` says otherwise.
  func call(
    _ page: URL, _ path: String, method: String = "GET", body: String? = nil, token: String? = nil
  ) async throws -> (status: Int, json: [String: Any]) {
    let pageToken = URLComponents(url: page, resolvingAgainstBaseURL: false)?.queryItems?.first?.value ?? ""
    var request = URLRequest(url: URL(string: path, relativeTo: page)!)
    request.httpMethod = method
    request.setValue(token ?? pageToken, forHTTPHeaderField: "X-Rewind-Token")
    request.httpBody = body.map { Data($0.utf8) }
    let (data, response) = try await URLSession.shared.data(for: request)
    return (
      (response as? HTTPURLResponse)?.statusCode ?? 0,
      (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    )
  }

  func text(_ page: URL, _ path: String) async throws -> String {
    let pageToken = URLComponents(url: page, resolvingAgainstBaseURL: false)?.queryItems?.first?.value ?? ""
    var request = URLRequest(url: URL(string: path, relativeTo: page)!)
    request.setValue(pageToken, forHTTPHeaderField: "X-Rewind-Token")
    let (data, _) = try await URLSession.shared.data(for: request)
    return String(decoding: data, as: UTF8.self)
  }

  @Test func lookingAtAFileOfAnEarlierReleaseLeavesItAsItWas() async throws {
    let release = directory.path("release-0.1.sqlite")
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("RewindTests/Fixtures/release-0.1.sqlite")
    try FileManager.default.copyItem(atPath: fixture.path, toPath: release)
    // The engine's record: in grdb_migrations up to release 0.2, in rewind_engine_migrations since.
    func migrations() throws -> [String] {
      try DatabaseQueue(path: release).read { db in
        let table = try db.tableExists("rewind_engine_migrations") ? "rewind_engine_migrations" : "grdb_migrations"
        return try String.fetchAll(db, sql: "SELECT identifier FROM \(table)")
      }
    }
    let before = try migrations()
    let ui = try RunningProcess("rewind", ["ui", "release-0.1.sqlite"], directory: directory.url)
    defer { ui.kill() }
    let page = try #require(ui.readLines(1).first?.split(separator: " ").last.flatMap { URL(string: String($0)) })
    #expect(try await call(page, "/api/head").json["lastSeq"] as? Int == 24)
    #expect(try await call(page, "/api/state?at=12").status == 200)
    #expect((try await call(page, "/api/log?limit=5").json["entries"] as? [Any])?.count == 5)
    #expect(try migrations() == before)  // still the earlier release's schema
    // A write is a write: it upgrades the file first, as the tool's commands do.
    #expect(try await call(page, "/api/snapshot", method: "POST", body: #"{"label":"seen"}"#).status == 200)
    #expect(try migrations().count > before.count)
    #expect(try await call(page, "/api/head").json["lastSeq"] as? Int == 24)
  }

  @Test func theAPIAnswersWithTheTokenOnLoopbackOnlyAndRefusesBadInput() async throws {
    let (ui, page) = try startUI()
    defer { ui.kill() }
    #expect(page.host == "127.0.0.1")
    // Listening on 127.0.0.1 only: /proc/net/tcp lists the socket's local address.
    let port = String(format: "%04X", page.port ?? 0)
    let sockets = try String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)
    #expect(sockets.contains("0100007F:\(port) 00000000:0000 0A"))
    #expect(!sockets.contains("00000000:\(port) 00000000:0000 0A"))

    #expect(try await call(page, "/api/head", token: "").status == 403)
    #expect(try await call(page, "/api/head", token: "wrong").status == 403)
    let head = try await call(page, "/api/head")
    #expect(head.status == 200 && head.json["lastSeq"] as? Int == 12 && head.json["canUndo"] as? Bool == true)

    let log = try await call(page, "/api/log?from=1&limit=5")
    #expect((log.json["entries"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [1, 2, 3, 4, 5])
    let appends = try await call(page, "/api/log?action=append")
    #expect((appends.json["entries"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [9])
    let lists = try await call(page, "/api/log?table=list_entries&limit=2")
    #expect((lists.json["entries"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [6, 7])
    let search = try await call(page, "/api/log?q=Plan%20the%20trip")
    #expect((search.json["entries"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [12])

    let brief = try await call(page, "/api/log?before=13&limit=1&brief=1")
    let briefEntry = (brief.json["entries"] as? [[String: Any]])?.first
    #expect(briefEntry?["seq"] as? Int == 12 && briefEntry?["summary"] as? String == "view_state +1")
    #expect(briefEntry?["payload"] == nil && briefEntry?["changes"] == nil)

    // The export is the library's own bytes, for any pair of document and view seqs.
    #expect(try await text(page, "/api/export?at=4") == RewindDatabase(path: path, readOnly: true).export(at: 4))
    #expect(
      try await text(page, "/api/export?at=4&view_at=12")
        == RewindDatabase(path: path, readOnly: true).export(at: 4, viewAt: 12))

    let unknown = try await call(page, "/api/entry/99")
    #expect(unknown.status == 404)
    #expect(unknown.json["error"] as? String == "there is no entry 99 in the log (it holds 1 to 12)")
    #expect(try await call(page, "/api/entry/x").status == 400)
    #expect(try await call(page, "/api/state?at=99").status == 404)
    let malformed = try await call(page, "/api/restore", method: "POST", body: "{to: 3")
    #expect(malformed.status == 400)
    #expect((malformed.json["error"] as? String)?.hasPrefix(#"the request body must be JSON like {"to": 12"#) == true)
    let badTimeline = try await call(page, "/api/restore", method: "POST", body: #"{"to":3,"timeline":"both"}"#)
    #expect(badTimeline.status == 400)
    let nowhere = try await call(page, "/api/nowhere")
    #expect(
      nowhere.status == 404
        && nowhere.json["error"] as? String == "there is no GET /api/nowhere (see the README's API table)")
    #expect(try await call(page, "/api/undo").status == 404)  // undo is a POST
    let huge = try await call(page, "/api/snapshot", method: "POST", body: String(repeating: " ", count: 70_000))
    #expect(huge.status == 413)
    let longSearch = try await call(page, "/api/log?q=" + String(repeating: "a", count: 2_000))
    #expect(longSearch.status == 400 && longSearch.json["error"] as? String == "q must be at most 1000 bytes, not 2000")
    #expect(try await call(page, "/api/snapshot", method: "POST", body: #"{"label":""}"#).status == 400)
    #expect(try await call(page, "/api/snapshot", method: "POST", body: #"{"label":"a\u0000b"}"#).status == 400)
    #expect(try RewindDatabase(path: path, readOnly: true).inspect().lastSeq == 12)  // nothing was written

    // Writes go through the library: logged, undoable, refused by its rules.
    let restore = try await call(page, "/api/restore", method: "POST", body: #"{"to":4,"timeline":"document"}"#)
    #expect(restore.status == 200 && restore.json["seq"] as? Int == 13)
    let database = try RewindDatabase(path: path, readOnly: true)
    #expect(try database.entry(13).payload == #"{"timeline":"document","to":4}"#)
    #expect(try database.export(at: 13).contains(#""selection": 2"#))  // the view state stayed
    let undo = try await call(page, "/api/undo", method: "POST")
    #expect(undo.status == 200 && undo.json["step"] as? String == "restore (seq 13)")
    #expect(try await call(page, "/api/redo", method: "POST").status == 200)
    #expect(try await call(page, "/api/redo", method: "POST").json["error"] as? String == "nothing to redo")
    #expect(try await call(page, "/api/snapshot", method: "POST", body: #"{"label":"a"}"#).status == 200)
    #expect(try await call(page, "/api/snapshot", method: "POST", body: #"{"label":"a"}"#).status == 409)
    // A labelled snapshot restores by name; a missing one is 404, neither target is 400.
    #expect(try await call(page, "/api/undo", method: "POST").status == 200)
    let back = try await call(page, "/api/restore", method: "POST", body: #"{"snapshot":"a"}"#)
    #expect(back.status == 200 && back.json["seq"] as? Int != nil)
    #expect(try await call(page, "/api/restore", method: "POST", body: #"{"snapshot":"nope"}"#).status == 404)
    #expect(try await call(page, "/api/restore", method: "POST", body: "{}").status == 400)
    #expect(try RewindDatabase(path: path, readOnly: true).verify().problems == [])
  }

  @Test func aFileItMayOnlyReadIsShownReadOnly() async throws {
    try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
    try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.url.path)
    defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path) }
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let ui = try RunningProcess(
      "rewind", ["ui", "demo.sqlite"], directory: directory.url,
      launcher: ProcessRunner.unprivileged)
    defer { ui.kill() }
    let line = ui.readLines(1).first ?? ""
    let page = try #require(line.split(separator: " ").last.flatMap { URL(string: String($0)) }, "\(line)")
    let head = try await call(page, "/api/head")
    #expect(head.json["readOnly"] as? Bool == true && head.json["lastSeq"] as? Int == 12)
    #expect((try await call(page, "/api/log?limit=3").json["entries"] as? [Any])?.count == 3)
    let undo = try await call(page, "/api/undo", method: "POST")
    #expect(undo.status == 409)
    #expect(
      undo.json["error"] as? String == "demo.sqlite is read-only for this process: the page can show it, not change it")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
  }

  /// A page opened on hand-edited tables shows the edits (states near the last seq are read
  /// back from the tables); once `rewind rebuild-tables` put the log's rows back, it reads the
  /// states again rather than showing the ones it cached.
  @Test func aPageOpenAcrossARebuildShowsTheLogsStateAfterIt() async throws {
    let (ui, page) = try startUI()
    defer { ui.kill() }
    let edited = try await DatabaseQueue(path: path).write { db in
      try db.execute(sql: "UPDATE tasks SET title = 'Edited by hand' WHERE title = 'Write report by Friday'")
      return db.changesCount
    }
    #expect(edited == 1)
    #expect(try await call(page, "/api/head").json["tablesRebuilt"] as? Int == 0)
    let browser = try await WebDriver()
    do {
      try await browser.open(page)
      let shown = "document.getElementById('state-entities').textContent"
      try await browser.wait("the hand edit", until: "return \(shown).includes('Edited by hand')")
      let rebuild = try runner.run("rewind", ["rebuild-tables", "demo.sqlite"])
      #expect(rebuild.status == 0, "\(rebuild.stderr)")
      #expect(try await call(page, "/api/head").json["tablesRebuilt"] as? Int == 1)
      try await browser.wait(
        "the log's title", seconds: 30,
        until: "return \(shown).includes('Write report by Friday') && !\(shown).includes('Edited by hand')")
    } catch {
      await browser.quit()
      throw error
    }
    await browser.quit()
  }

  @Test func thePageShowsTheTimelineDiffsAndStatesAndActsInARealBrowser() async throws {
    let (ui, page) = try startUI()
    defer { ui.kill() }
    let browser = try await WebDriver()
    do {
      try await browser.open(page)
      try await browser.wait(
        "the timeline", until: "return document.querySelectorAll('#timeline tbody tr').length === 12")
      #expect(
        try await browser.run(
          "return [...document.querySelectorAll('#timeline tbody tr')].map(r => Number(r.dataset.seq))")
          as? [Int] == Array(1...12))
      #expect(
        try await browser.run("return document.querySelector('#timeline tbody tr.now').dataset.seq") as? String == "12")

      // Selecting the append shows its row change, the changed column highlighted.
      try await browser.click(#"#timeline tbody tr[data-seq="9"]"#)
      try await browser.wait(
        "the entry", until: "return !!document.querySelector('#entry-detail table[data-table=tasks]')")
      #expect(
        try await browser.run("return document.querySelector('#entry-detail tr.before td.changed').textContent")
          as? String == #""Write report""#)
      #expect(
        try await browser.run("return document.querySelector('#entry-detail tr.after td.changed').textContent")
          as? String == #""Write report by Friday""#)
      try await browser.click(#"#timeline tbody tr[data-seq="8"]"#)
      try await browser.wait(
        "the view diff", until: "return !!document.querySelector('#entry-detail [data-path=selection] .new')")
      if let folder = ProcessInfo.processInfo.environment["REWIND_UI_SCREENSHOTS"] {
        try await browser.click(#"#timeline tbody tr[data-seq="9"]"#)
        try await browser.wait("the entry", until: "return !!document.querySelector('#entry-detail td.changed')")
        try await browser.screenshot().write(to: URL(fileURLWithPath: folder).appendingPathComponent("ui-timeline.png"))
      }

      // The document slider alone: the entities move back to seq 3, the view state stays at 12.
      try await browser.click("#split")
      let viewBefore = try await browser.run("return document.getElementById('state-view').textContent") as? String
      try await browser.run(
        "const s = document.getElementById('doc-slider'); s.value = 3; s.dispatchEvent(new Event('input'))")
      try await browser.wait(
        "the document at seq 3", until: "return document.querySelectorAll('#state-entities tr[data-row]').length === 2")
      #expect(
        try await browser.run("return document.getElementById('state-view').textContent") as? String == viewBefore)
      #expect(
        try await browser.run("return document.querySelector('[data-list=allTasks]').textContent") as? String
          == "allTasks: [1, 2]")
      if let folder = ProcessInfo.processInfo.environment["REWIND_UI_SCREENSHOTS"] {
        try await browser.screenshot().write(to: URL(fileURLWithPath: folder).appendingPathComponent("ui-split.png"))
      }

      // Restoring the document from the page writes one entry; the library sees it.
      try await browser.click("#restore-document")
      try await browser.wait(
        "the restore", until: "return !!document.querySelector('#timeline tbody tr[data-seq=\"13\"]')")
      let database = try RewindDatabase(path: path, readOnly: true)
      #expect(try database.entry(13).kind == "restore")
      #expect(try database.export().contains(#""allTasks": [1,2]"#))
      try await browser.click("#undo")
      try await browser.wait(
        "the undo", until: "return !!document.querySelector('#timeline tbody tr[data-seq=\"14\"]')")
      #expect(try RewindDatabase(path: path, readOnly: true).entry(14).kind == "undo")
      #expect(try RewindDatabase(path: path, readOnly: true).export().contains(#""allTasks": [3,1,2]"#))

      // A separate process writes: the entry appears without a reload.
      #expect(try runner.tasks("--db", "demo.sqlite", "add", "From the app").stdout == "15 add\n")
      try await browser.wait(
        "the app's entry", seconds: 30, until: "return !!document.querySelector('#timeline tbody tr[data-seq=\"15\"]')")
      #expect(
        try await browser.run("return document.querySelector('#timeline tbody tr.now').dataset.seq") as? String == "15")

      // A burst of 1,200 entries between two polls: every one appears, once, in order.
      let burst = (1...1_200).map { "scroll \($0 + 1_000)" }.joined(separator: "\n")
      #expect(try runner.tasks("--db", "demo.sqlite", "shell", input: burst).status == 0)
      try await browser.wait(
        "the burst", seconds: 60,
        until: "return document.querySelector('#timeline tbody tr.now')?.dataset.seq === '1215'")
      let seqs =
        try await browser.run(
          "return [...document.querySelectorAll('#timeline tbody tr')].map(r => Number(r.dataset.seq))") as? [Int]
      #expect(seqs == Array(1...1_215))
    } catch {
      await browser.quit()
      throw error
    }
    await browser.quit()
  }
}
