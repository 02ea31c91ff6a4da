import Foundation
import Rewind

/// The timeline's reads and writes on one database, one request at a time. Every write goes
/// through the same ``RewindDatabase`` calls as the `rewind` command, so it is logged and
/// refused by the same rules.
///
/// The file is opened read-only; it is opened for writing only when the page first writes.
/// Looking at a file therefore never changes it, not even to upgrade a file of an earlier
/// release (which reads from an upgraded in-memory copy until something is written).
actor TimelineModel {
  let path: String
  private var reader: RewindDatabase
  private var writer: RewindDatabase?
  /// Answers the page's polls on its own connection, so they never wait behind an export.
  let head: HeadReader

  init(path: String) throws {
    self.path = path
    reader = try RewindDatabase(path: path, readOnly: true)
    head = try HeadReader(path: path)
  }

  /// A page of entries, as JSON: `{"entries":[...]}`, each with a per-table summary; `brief`
  /// leaves out payloads and row changes (what a list shows).
  func log(_ query: LogQuery, brief: Bool) throws -> String {
    let records = try reader.log(query)
    return #"{"entries":["# + (try records.map { try Self.json($0, brief: brief) }.joined(separator: ",")) + "]}"
  }

  func entry(_ seq: Int64) throws -> String {
    try Self.json(try reader.entry(seq), brief: false)
  }

  /// The state in the export format: the document right after `seq`, the view state right
  /// after `viewSeq` (`nil`: now).
  func state(at seq: Int64?, viewAt viewSeq: Int64?) throws -> String {
    try reader.export(at: seq, viewAt: viewSeq)
  }

  func undo() async throws -> String { try await moved(try openWriter().undo(), "undo") }
  func redo() async throws -> String { try await moved(try openWriter().redo(), "redo") }

  func restore(to seq: Int64, timeline: Timeline) async throws -> String {
    try await written(try openWriter().restore(to: seq, timeline: timeline))
  }

  func restore(snapshot label: String) async throws -> String {
    try await written(try openWriter().restore(snapshot: label))
  }

  func snapshot(label: String) async throws -> String {
    try await written(try openWriter().snapshot(label: label))
  }

  /// The database for writing, opened on the first write.
  private func openWriter() throws -> RewindDatabase {
    if let writer { return writer }
    do {
      let opened = try RewindDatabase(path: path)
      writer = opened
      return opened
    } catch let error as RewindError where error.code == .readOnly {
      throw TimelineError(status: 409, "\(path) is read-only for this process: the page can show it, not change it")
    }
  }

  /// After a write, reads see the file itself (a file of an earlier release was upgraded by
  /// the write; until then it was read from a copy).
  private func didWrite() async throws {
    reader = try RewindDatabase(path: path, readOnly: true)
    try await head.reopen()
  }

  private func moved(_ seq: Int64?, _ what: String) async throws -> String {
    guard let seq else { throw TimelineError(status: 409, "nothing to \(what)", code: "nothing-to-\(what)") }
    try await didWrite()
    let step = try reader.step(movedBy: seq).map(String.init(describing:)) ?? ""
    return #"{"seq":\#(seq),"step":\#(quoted(step))}"#
  }

  private func written(_ seq: Int64?) async throws -> String {
    try await didWrite()
    return seq.map { #"{"seq":\#($0)}"# } ?? #"{"seq":null}"#
  }

  static func json(_ record: LogRecord, brief: Bool) throws -> String {
    let summary = quoted(try record.changeSummary())
    guard brief else { return String(record.jsonLine.dropLast()) + #","summary":\#(summary)}"# }
    return """
      {"seq":\(record.seq),"time":\(quoted(record.time)),"kind":\(quoted(record.kind)),\
      "action":\(quoted(record.action)),"step":\(record.step.map(String.init) ?? "null"),\
      "group":\(record.groupKey.map(quoted) ?? "null"),"summary":\(summary)}
      """
  }
}

/// Where the log is, on a connection of its own: what the page polls.
actor HeadReader {
  let path: String
  private var database: RewindDatabase

  init(path: String) throws {
    self.path = path
    database = try RewindDatabase(path: path, readOnly: true)
  }

  func reopen() throws {
    database = try RewindDatabase(path: path, readOnly: true)
  }

  /// Cheap on any log: O(log n) plus the redo stack and the snapshots.
  func json() throws -> String {
    let position = try database.position()
    let snapshots = try database.snapshots().map { snapshot in
      #"{"seq":\#(snapshot.seq),"kind":\#(quoted(snapshot.kind)),"label":\#(snapshot.label.map(quoted) ?? "null")}"#
    }
    return """
      {"path":\(quoted(path)),"readOnly":\(!RewindDatabase.canWrite(path)),"lastSeq":\(position.lastSeq),\
      "baseSeq":\(position.baseSeq),"tablesRebuilt":\(position.tablesRebuilt),"canUndo":\(position.canUndo),"canRedo":\(!position.redoSteps.isEmpty),\
      "redoStepIds":[\(position.redoSteps.map(String.init).joined(separator: ","))],\
      "snapshots":[\(snapshots.joined(separator: ","))]}
      """
  }

}

/// A request the timeline refuses, with the HTTP status that says why.
struct TimelineError: Error, CustomStringConvertible {
  var status: Int
  var description: String
  var code: String?
  init(status: Int, _ description: String, code: String? = nil) {
    self.status = status
    self.description = description
    self.code = code
  }
}

/// `text` as a JSON string literal.
func quoted(_ text: String) -> String {
  (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? #""""#
}
