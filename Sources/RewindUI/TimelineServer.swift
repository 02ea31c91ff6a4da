import Foundation
import Hummingbird
import Logging
import Rewind

/// `rewind ui`: a local web page showing a Rewind database's timeline, its entries' diffs and
/// its state at any seq, with buttons that act through the library.
///
/// The server binds to 127.0.0.1 only, and every request must carry the token it was started
/// with (`?token=` or the `X-Rewind-Token` header), so other local users' processes cannot
/// drive it. Looking never writes: the file is opened for writing on the first write. The JSON
/// API under the page (the README has the details):
///
/// | request | answer |
/// |---|---|
/// | `GET /api/head` | last seq, base seq, read-only, can undo and redo, redo steps, snapshots |
/// | `GET /api/log?from=&before=&limit=&kind=&action=&table=&q=&brief=1` | a page of entries in seq order |
/// | `GET /api/entry/SEQ` | one entry: payload, row changes, summary |
/// | `GET /api/state?at=SEQ&view_at=SEQ` | the state right after SEQ (now, without `at`), as `rewind export` writes it |
/// | `GET /api/export?at=SEQ&view_at=SEQ` | the same, as a file to save |
/// | `POST /api/undo`, `POST /api/redo` | the store's undo and redo |
/// | `POST /api/restore` `{"to": SEQ, "timeline": "all" \| "document" \| "view"}` or `{"snapshot": LABEL}` | restore, as one entry |
/// | `POST /api/snapshot` `{"label": NAME}` | a labelled snapshot |
///
/// Refusals are `{"error": ...}` with 400, 403, 404, 409 or 413.
public struct TimelineServer: Sendable {
  let model: TimelineModel
  /// The secret every request must carry.
  public let token: String

  /// Opens the database at `path` for the timeline.
  ///
  /// - Throws: ``RewindError`` if the file is not a Rewind database (as ``RewindDatabase`` does).
  public init(path: String, token: String = TimelineServer.randomToken()) throws {
    model = try TimelineModel(path: path)
    self.token = token
  }

  /// 128 random bits, as hex.
  public static func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<4).map { _ in String(generator.next() as UInt32, radix: 16).leftPadded(to: 8) }.joined()
  }

  /// Serves until the task is cancelled. `port` 0 picks a free port; `onStart` gets the page's
  /// address, token included, once the server listens.
  public func run(port: Int = 0, onStart: @escaping @Sendable (URL) async -> Void) async throws {
    let router = Router()
    router.add(middleware: TokenMiddleware(token: token))
    addRoutes(to: router)
    let token = token
    let app = Application(
      router: router,
      configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "rewind-ui"),
      onServerRunning: { channel in
        let bound = channel.localAddress?.port ?? port
        if let url = URL(string: "http://127.0.0.1:\(bound)/?token=\(token)") { await onStart(url) }
      },
      // The tool prints its own line; the server's logs would only interleave with it.
      logger: Logger(label: "rewind-ui", factory: { _ in SwiftLogNoOpLogHandler() }))
    try await app.run()
  }

  func addRoutes(to router: Router<BasicRequestContext>) {
    let model = model
    router.get("/") { _, _ in Response.text(TimelinePage.html, type: "text/html; charset=utf-8") }
    let head = model.head
    router.get("/api/head") { _, _ in await Response.json { try await head.json() } }
    router.get("/api/log") { request, _ in
      await Response.json {
        try await model.log(try Self.logQuery(request), brief: request.uri.queryParameters.get("brief") == "1")
      }
    }
    router.get("/api/entry/:seq") { _, context in
      await Response.json {
        try await model.entry(try Self.seq(context.parameters.get("seq"), name: "the entry's seq"))
      }
    }
    router.get("/api/state") { request, _ in
      await Response.json { try await Self.state(request, model) }
    }
    router.get("/api/export") { request, _ in
      // The export format's own bytes (exact 64-bit ids), as a file to save.
      var response = await Response.json { try await Self.state(request, model) }
      if response.status == .ok {
        let at = request.uri.queryParameters.get("at").map { "-at-\($0)" } ?? ""
        let view = request.uri.queryParameters.get("view_at").map { "-view-\($0)" } ?? ""
        response.headers[.contentDisposition] = "attachment; filename=\"state\(at)\(view).json\""
      }
      return response
    }
    router.post("/api/undo") { _, _ in await Response.json { try await model.undo() } }
    router.post("/api/redo") { _, _ in await Response.json { try await model.redo() } }
    router.post("/api/restore") { request, _ in
      await Response.json {
        let body = try await Self.body(request, as: RestoreRequest.self)
        switch (body.to, body.snapshot) {
        case (let seq?, nil):
          guard let timeline = Timeline(rawValue: body.timeline ?? "all") else {
            throw TimelineError(status: 400, "timeline must be all, document or view, not '\(body.timeline ?? "")'")
          }
          return try await model.restore(to: seq, timeline: timeline)
        case (nil, let label?):
          return try await model.restore(snapshot: label)
        default:
          throw TimelineError(status: 400, "give exactly one of to (a seq) and snapshot (a label)")
        }
      }
    }
    router.post("/api/snapshot") { request, _ in
      await Response.json {
        try await model.snapshot(label: try await Self.body(request, as: SnapshotRequest.self).label)
      }
    }
  }

  struct RestoreRequest: Decodable, Example {
    static let example =
      #"{"to": 12, "timeline": "document"} (timeline: all, document or view) or {"snapshot": "a label"}"#
    var to: Int64?
    var timeline: String?
    var snapshot: String?
  }

  struct SnapshotRequest: Decodable, Example {
    static let example = #"{"label": "before the bug"}"#
    var label: String
  }

  /// `?at=` (the document's seq, or the whole state's) and `?view_at=` (the view state's,
  /// when it differs).
  static func state(_ request: Request, _ model: TimelineModel) async throws -> String {
    let parameters = request.uri.queryParameters
    let at = try parameters.get("at").map { try seq(String($0), name: "at") }
    let viewAt = try parameters.get("view_at").map { try seq(String($0), name: "view_at") } ?? at
    return try await model.state(at: at, viewAt: viewAt)
  }

  static func seq(_ text: String?, name: String) throws -> Int64 {
    guard let text, let seq = Int64(text) else {
      throw TimelineError(status: 400, "\(name) must be an integer seq, not \(text.map { "'\($0)'" } ?? "nothing")")
    }
    return seq
  }

  static func logQuery(_ request: Request) throws -> LogQuery {
    func text(_ name: String) -> String? {
      request.uri.queryParameters.get(name).map { String($0) }.flatMap { $0.isEmpty ? nil : $0 }
    }
    var query = LogQuery()
    query.from = try text("from").map { try seq($0, name: "from") }
    query.before = try text("before").map { try seq($0, name: "before") }
    if let limit = text("limit") {
      guard let value = Int(limit), (0...10_000).contains(value) else {
        throw TimelineError(status: 400, "limit must be 0...10000, not '\(limit)'")
      }
      query.limit = value
    }
    query.kinds = text("kind").map { $0.split(separator: ",").map(String.init) } ?? []
    query.action = text("action")
    query.table = text("table")
    query.text = text("q")
    // SQLite refuses LIKE patterns past 50,000 bytes; a search that long is no search.
    if let search = query.text, search.utf8.count > 1_000 {
      throw TimelineError(status: 400, "q must be at most 1000 bytes, not \(search.utf8.count)")
    }
    return query
  }

  static func body<T: Decodable & Example>(_ request: Request, as type: T.Type) async throws -> T {
    let limit = 1 << 16
    guard let buffer = try? await request.body.collect(upTo: limit) else {
      throw TimelineError(status: 413, "the request body must be at most \(limit) bytes")
    }
    do {
      return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
    } catch {
      throw TimelineError(status: 400, "the request body must be JSON like \(T.example)")
    }
  }

}

/// A request body's shape, for the message when a body does not decode.
protocol Example {
  static var example: String { get }
}

/// Refuses any request without the server's token; answers every error as JSON.
struct TokenMiddleware<Context: RequestContext>: RouterMiddleware {
  let token: String

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    let header = request.headers.first { $0.name.canonicalName == "x-rewind-token" }?.value
    let given = header ?? request.uri.queryParameters.get("token").map { String($0) }
    guard let given, Self.equalInConstantTime(given, token) else {
      return Response.json(status: 403, #"{"error":"a valid token is required: use the address rewind ui printed"}"#)
    }
    do {
      return try await next(request, context)
    } catch let error as HTTPResponseError {
      // An unknown path or method: JSON like every other answer.
      let message =
        error.status == .notFound
        ? "there is no \(request.method) \(request.uri.path) (see the README's API table)"
        : "\(error.status.code) \(error.status.reasonPhrase)"
      return Response.json(status: error.status.code, #"{"error":\#(quoted(message))}"#)
    }
  }

  /// Compares without stopping at the first differing byte, so timing does not leak the token.
  static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
    let (x, y) = (Array(a.utf8), Array(b.utf8))
    guard x.count == y.count else { return false }
    return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
  }

}

extension Response {
  static func text(_ text: String, type: String) -> Response {
    Response(
      status: .ok, headers: [.contentType: type, .cacheControl: "no-store"],
      body: .init(byteBuffer: ByteBuffer(string: text)))
  }

  static func json(status: Int = 200, _ text: String) -> Response {
    Response(
      status: .init(code: status),
      headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
      body: .init(byteBuffer: ByteBuffer(string: text)))
  }

  /// The JSON `body` returns, or the error it throws as `{"error": ...}` with a status that
  /// says why: 404 for an unknown seq, 409 for a refused write, 400 for bad input.
  static func json(_ body: () async throws -> String) async -> Response {
    do {
      return json(try await body())
    } catch let error as TimelineError {
      let code = error.code.map { #","code":\#(quoted($0))"# } ?? ""
      return json(status: error.status, #"{"error":\#(quoted(error.description))\#(code)}"#)
    } catch let error as RewindError {
      let status =
        switch error.code {
        case .unknownSeq: 404
        case .snapshotLabel: error.message.hasPrefix("there is no") ? 404 : error.message.contains("empty") ? 400 : 409
        case .conflict, .readOnly, .historyBarrier: 409
        case .invalidValue, .invalidImport: 400
        default: 500
        }
      return json(status: status, #"{"error":\#(quoted(error.description)),"code":\#(quoted(error.code.rawValue))}"#)
    } catch {
      return json(status: 500, #"{"error":\#(quoted("\(error)"))}"#)
    }
  }
}

extension String {
  fileprivate func leftPadded(to length: Int) -> String {
    String(repeating: "0", count: max(0, length - count)) + self
  }
}
