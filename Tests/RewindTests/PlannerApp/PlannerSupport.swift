import Foundation
import GRDB
import Testing

@testable import Rewind

/// Expects `body` to throw a `RewindError` with `code`; returns it.
@discardableResult
func expectRewindError(
  _ code: RewindError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Any?
) -> RewindError? {
  do {
    let result = try body()
    Issue.record("expected \(code), got success: \(String(describing: result))", sourceLocation: sourceLocation)
    return nil
  } catch let error as RewindError {
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    return error
  } catch {
    Issue.record("expected RewindError \(code), got \(error)", sourceLocation: sourceLocation)
    return nil
  }
}

/// The memory of `store` must equal what a new store and a read-only one read from the file.
@MainActor
func expectReopenMatches(
  _ store: PlannerStore, _ path: String, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation
) throws {
  let memory = PlannerPlain(store.state)
  let readOnly = PlannerPlain(try openPlanner(path, readOnly: true).state)
  #expect(
    readOnly == memory, "read-only reopen differs \(context)\nmemory:\n\(memory)\nfile:\n\(readOnly)",
    sourceLocation: sourceLocation)
  let reopened = PlannerPlain(try openPlanner(path).state)
  #expect(
    reopened == memory, "reopen differs \(context)\nmemory:\n\(memory)\nfile:\n\(reopened)",
    sourceLocation: sourceLocation)
}

/// The `rewind` tool built beside the test bundle (`swift test` builds every product).
let rewindToolURL: URL? = {
  var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
  // From `.../debug/RewindPackageTests.xctest` (or a file inside it) up to `.../debug`.
  while url.path != "/" {
    url.deleteLastPathComponent()
    let tool = url.appendingPathComponent("rewind")
    if FileManager.default.isExecutableFile(atPath: tool.path) { return tool }
  }
  return nil
}()

/// Runs the `rewind` tool as a process of its own.
@discardableResult
func runRewindTool(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
  guard let tool = rewindToolURL else {
    throw RewindError(.fileNotFound, "no rewind executable beside \(CommandLine.arguments[0]): build it (swift build)")
  }
  let process = Process()
  process.executableURL = tool
  process.arguments = arguments
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  try process.run()
  let outData = out.fileHandleForReading.readDataToEndOfFile()
  let errData = err.fileHandleForReading.readDataToEndOfFile()
  return (
    process.waitForExit().status, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self)
  )
}

/// A small planner: two calendars, three events, a venue, an attendee.
@MainActor
func seedPlanner(_ store: PlannerStore) throws {
  try store.send(.addCalendar(id: "cal-work", name: "Work"))
  try store.send(.addCalendar(id: "cal-home", name: "Home"))
  try store.send(.addVenue(id: "ven-1", name: "Office"))
  try store.send(.addEvent(id: "evt-1", calendar: "cal-work", title: "Standup", start: 900))
  try store.send(.addEvent(id: "evt-2", calendar: "cal-work", title: "Review", start: 1400))
  try store.send(.addEvent(id: "evt-3", calendar: "cal-home", title: "Dinner", start: 1900))
  try store.send(.setVenue(event: "evt-1", venue: "ven-1"))
  try store.send(.addAttendee(id: "att-1", event: "evt-1", name: "Ann"))
}
