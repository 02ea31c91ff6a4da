import Foundation
import Rewind

/// The timeline's reads and writes on one database, one request at a time. Every write goes
/// through the same ``RewindDatabase`` calls as the `rewind` command, so it is logged and
/// refused by the same rules.
actor TimelineModel {
  private let database: RewindDatabase
  let path: String

  /// Opens the file for writing, or read-only when this process may only read it: the page
  /// then shows everything and its write buttons are refused.
  init(path: String) throws {
    self.path = path
    do {
      database = try RewindDatabase(path: path)
    } catch let error as RewindError where error.code == .readOnly {
      database = try RewindDatabase(path: path, readOnly: true)
    }
  }

  /// Where the log is: what the page polls (every 700 ms) to show new entries without a
  /// reload. Cheap on any log: O(log n) plus the redo stack and the snapshots.
  func head() throws -> String {
    let position = try database.position()
    let snapshots = try database.snapshots().map { snapshot in
      #"{"seq":\#(snapshot.seq),"kind":\#(quoted(snapshot.kind)),"label":\#(snapshot.label.map(quoted) ?? "null")}"#
    }
    return """
      {"path":\(quoted(path)),"readOnly":\(database.isReadOnly),"lastSeq":\(position.lastSeq),"baseSeq":\(position.baseSeq),\
      "canUndo":\(position.canUndo),"canRedo":\(!position.redoSteps.isEmpty),\
      "redoStepIds":[\(position.redoSteps.map(String.init).joined(separator: ","))],\
      "snapshots":[\(snapshots.joined(separator: ","))]}
      """
  }

  /// A page of entries, as JSON: `{"entries":[...]}`, each with a per-table summary.
  func log(_ query: LogQuery) throws -> String {
    let records = try database.log(query)
    return #"{"entries":["# + (try records.map(Self.json).joined(separator: ",")) + "]}"
  }

  func entry(_ seq: Int64) throws -> String {
    try Self.json(try database.entry(seq))
  }

  /// The whole state right after `seq` (or now), in the export format.
  func state(at seq: Int64?) throws -> String {
    try database.export(at: seq)
  }

  func undo() throws -> String { try moved(try database.undo(), "undo") }
  func redo() throws -> String { try moved(try database.redo(), "redo") }

  func restore(to seq: Int64, timeline: Timeline) throws -> String {
    written(try database.restore(to: seq, timeline: timeline))
  }

  func snapshot(label: String) throws -> String {
    written(try database.snapshot(label: label))
  }

  private func moved(_ seq: Int64?, _ what: String) throws -> String {
    guard let seq else { throw TimelineError(status: 409, "nothing to \(what)") }
    let step = try database.step(movedBy: seq).map(String.init(describing:)) ?? ""
    return #"{"seq":\#(seq),"step":\#(quoted(step))}"#
  }

  private func written(_ seq: Int64?) -> String {
    seq.map { #"{"seq":\#($0)}"# } ?? #"{"seq":null}"#
  }

  static func json(_ record: LogRecord) throws -> String {
    String(record.jsonLine.dropLast()) + #","summary":\#(quoted(try record.changeSummary()))}"#
  }
}

/// A request the timeline refuses, with the HTTP status that says why.
struct TimelineError: Error, CustomStringConvertible {
  var status: Int
  var description: String
  init(status: Int, _ description: String) {
    self.status = status
    self.description = description
  }
}

/// `text` as a JSON string literal.
func quoted(_ text: String) -> String {
  (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? #""""#
}
