import Foundation

/// A real browser for tests: headless Chromium driven through chromedriver's W3C WebDriver
/// protocol (JSON over HTTP), with no client library in between.
final class WebDriver {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  private let driver: Process
  private let base: URL
  private let session: String

  /// Starts chromedriver on a free port and opens a headless Chromium window of `width`×`height`.
  init(width: Int = 1400, height: Int = 900) async throws {
    let port = Int.random(in: 20_000...60_000)
    driver = Process()
    driver.executableURL = URL(fileURLWithPath: Self.find("chromedriver"))
    driver.arguments = ["--port=\(port)"]
    driver.standardOutput = FileHandle.nullDevice
    driver.standardError = FileHandle.nullDevice
    try driver.run()
    base = URL(string: "http://127.0.0.1:\(port)")!
    var lastError: (any Error)?
    for _ in 0..<300 {  // up to 30 s on a busy machine
      try await Task.sleep(for: .milliseconds(100))
      do {
        _ = try await Self.send(base.appendingPathComponent("status"), "GET", nil)
        lastError = nil
        break
      } catch {
        lastError = error
      }
    }
    if let lastError {
      Self.stop(driver)
      throw Failure(description: "chromedriver did not start on port \(port): \(lastError)")
    }
    let capabilities: [String: Any] = [
      "capabilities": [
        "alwaysMatch": [
          "browserName": "chrome",
          "goog:chromeOptions": [
            "binary": Self.find("chromium"),
            "args": [
              "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
              "--window-size=\(width),\(height)",
            ],
          ],
        ]
      ]
    ]
    let created: [String: Any]
    do {
      created = try await Self.send(base.appendingPathComponent("session"), "POST", capabilities)
    } catch {
      Self.stop(driver)
      throw error
    }
    guard let id = (created["value"] as? [String: Any])?["sessionId"] as? String else {
      Self.stop(driver)
      throw Failure(description: "chromedriver did not open a session: \(created)")
    }
    session = id
  }

  static func find(_ program: String) -> String {
    for folder in ["/usr/bin", "/usr/local/bin", "/usr/lib/chromium"] {
      let path = folder + "/" + program
      if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return "/usr/bin/" + program
  }

  func quit() async {
    _ = try? await Self.send(base.appendingPathComponent("session/\(session)"), "DELETE", nil)
    Self.stop(driver)
  }

  /// Ends chromedriver. (`waitUntilExit` spins on Linux when called from a task.)
  private static func stop(_ driver: Process) {
    driver.terminate()
    for _ in 0..<50 where driver.isRunning { usleep(20_000) }
  }

  func open(_ url: URL) async throws {
    _ = try await command("url", ["url": url.absoluteString])
  }

  /// Runs JavaScript in the page and returns its result.
  @discardableResult
  func run(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
    try await command("execute/sync", ["script": script, "args": arguments])["value"].flatMap {
      $0 is NSNull ? nil : $0
    }
  }

  /// Clicks the element `selector` names, as a user's click does.
  func click(_ selector: String) async throws {
    let found = try await command("element", ["using": "css selector", "value": selector])
    guard let element = (found["value"] as? [String: Any])?.values.first as? String else {
      throw Failure(description: "no element \(selector)")
    }
    _ = try await command("element/\(element)/click", [:])
  }

  /// Waits until `script` returns true, for up to `seconds`: a guard against a page that never
  /// gets there, generous for a busy machine, not a speed check.
  func wait(_ what: String, seconds: Double = 30, until script: String) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if try await run(script) as? Bool == true { return }
      try await Task.sleep(for: .milliseconds(100))
    }
    throw Failure(description: "timed out waiting for \(what)")
  }

  func screenshot() async throws -> Data {
    let result = try await Self.send(base.appendingPathComponent("session/\(session)/screenshot"), "GET", nil)
    guard let text = result["value"] as? String, let data = Data(base64Encoded: text) else {
      throw Failure(description: "no screenshot")
    }
    return data
  }

  private func command(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
    try await Self.send(base.appendingPathComponent("session/\(session)/\(path)"), "POST", body)
  }

  /// One WebDriver call, through curl: Foundation's URLSession on Linux fails on
  /// chromedriver's responses ("Failed writing header").
  private static func send(_ url: URL, _ method: String, _ body: [String: Any]?) async throws -> [String: Any] {
    let curl = Process()
    curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    curl.arguments =
      ["-sS", "-X", method, "-w", "\n%{http_code}", url.absoluteString]
      + (body == nil ? [] : ["-H", "Content-Type: application/json", "--data-binary", "@-"])
    let input = Pipe()
    let output = Pipe()
    curl.standardInput = input
    curl.standardOutput = output
    curl.standardError = FileHandle.nullDevice
    try curl.run()
    if let body { input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: body)) }
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readToEndRetryingInterrupts()
    curl.waitUntilExit()
    guard curl.terminationStatus == 0, let newline = data.lastIndex(of: UInt8(ascii: "\n")) else {
      throw Failure(description: "WebDriver \(method) \(url.path): curl exited \(curl.terminationStatus)")
    }
    let status = Int(String(decoding: data[(newline + 1)...], as: UTF8.self)) ?? 0
    let json = (try? JSONSerialization.jsonObject(with: data[..<newline])) as? [String: Any] ?? [:]
    if status >= 400 || status == 0 {
      throw Failure(description: "WebDriver \(method) \(url.path): \(status) \(json["value"] ?? "")")
    }
    return json
  }
}
