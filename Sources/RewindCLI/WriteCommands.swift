import ArgumentParser
import Foundation
import Rewind

struct Undo: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Revert the last undo step, as the app would; recorded in the log.")
  @OptionGroup var database: DatabaseArgument
  func run() throws {
    let database = try database.open()
    guard let seq = try database.undo() else { throw CLIError("Nothing to undo.") }
    print("\(seq) undo: reverted \(try database.step(movedBy: seq).map(String.init(describing:)) ?? "a step")")
  }
}

struct Redo: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Reapply the last undone step, as the app would; recorded in the log.")
  @OptionGroup var database: DatabaseArgument
  func run() throws {
    let database = try database.open()
    guard let seq = try database.redo() else { throw CLIError("Nothing to redo.") }
    print("\(seq) redo: reapplied \(try database.step(movedBy: seq).map(String.init(describing:)) ?? "a step")")
  }
}

struct Snapshot: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Save the current state as a named checkpoint.")
  @OptionGroup var database: DatabaseArgument
  @Option(help: ArgumentHelp("The snapshot's name, unique in the database.", valueName: "name")) var label: String
  func run() throws {
    let seq = try database.open().snapshot(label: label)
    print("snapshot \"\(label)\" at seq \(seq)")
  }
}

/// Exactly one of `--to` and `--snapshot`.
struct RestoreTarget: ParsableArguments {
  @Option(parsing: .unconditional, help: ArgumentHelp("Restore the state right after this seq.", valueName: "seq"))
  var to: Int64?
  @Option(help: ArgumentHelp("Restore this labelled snapshot.", valueName: "name"))
  var snapshot: String?

  func validate() throws {
    guard (to == nil) != (snapshot == nil) else {
      throw ValidationError("Give exactly one of --to <seq> and --snapshot <name>.")
    }
  }
}

struct Restore: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract:
      "Set the state (or only its document or view state) to an earlier seq, or to a snapshot, as one log entry.",
    usage: "rewind restore <database> (--to <seq> [--timeline all|document|view] | --snapshot <name>)",
    discussion: """
      Restoring takes time bounded by the spacing of snapshots (taken automatically every \
      max(1000, rows in the state) entries), not by the length of the log. With --timeline \
      document, only entities and order lists go back (the view state stays); with --timeline \
      view, only the view state does. A restore that changes the document is an undo step; \
      one of the view state alone is not, as view-only actions are not. Near the last seq, \
      the state is found by walking back from the tables through the entries since: rows \
      edited by hand that no later entry touched are not put back (`rewind verify` finds them).
      """)
  @OptionGroup var database: DatabaseArgument
  @OptionGroup(title: "Exactly one of") var target: RestoreTarget
  @Option(help: ArgumentHelp("With --to: what goes back, all (the default), document or view.", valueName: "timeline"))
  var timeline: Timeline = .all

  func validate() throws {
    if timeline != .all, target.snapshot != nil {
      throw ValidationError("--timeline goes with --to: a snapshot restores the whole state.")
    }
  }

  func run() throws {
    let database = try database.open()
    let seq =
      try target.to.map { try database.restore(to: $0, timeline: timeline) }
      ?? database.restore(snapshot: target.snapshot ?? "")
    guard let seq else {
      let part = timeline == .all ? "state" : timeline == .document ? "document" : "view state"
      if let to = target.to {
        // Walking back compares only the rows the log touched since: it vouches for no other
        // (helper-36 read "already is" as a check of the tables).
        print(
          "Nothing to restore: the log shows the \(part) as it was right after seq \(to). (That is the log's word, not a check of the tables: `rewind verify` finds rows edited by hand.)"
        )
      } else {
        print("Nothing to restore: the state already is snapshot \(target.snapshot ?? "")'s.")
      }
      return
    }
    print("\(seq) restore")
  }
}

struct Import: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Replace the whole state with an exported JSON file, as one undoable log entry.",
    discussion: "The file is checked first; if anything is wrong, nothing changes.")
  @OptionGroup var database: DatabaseArgument
  @Argument(help: ArgumentHelp("A file written by `rewind export`.", valueName: "file")) var file: String

  func run() throws {
    let json: String
    do {
      json = try String(contentsOfFile: file, encoding: .utf8)
    } catch {
      throw CLIError("cannot read \(file): \(error.localizedDescription)")
    }
    guard let seq = try database.open().importState(json) else {
      print("Nothing to import: the state already is the file's.")
      return
    }
    print("\(seq) import")
  }
}

struct Compact: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Fold history older than the last N entries into a base snapshot and shrink the file.",
    discussion: "What is kept still undoes, restores and verifies; labelled snapshots are kept.")
  @OptionGroup var database: DatabaseArgument
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("How many of the latest log entries to keep: 0 or more.", valueName: "n"))
  var keep: Int

  func validate() throws {
    guard keep >= 0 else { throw ValidationError("--keep must be 0 or more, not \(keep).") }
  }

  func run() throws {
    let report = try database.open().compact(keep: keep, progress: Progress(label: "compacting").report)
    if report.entriesRemoved == 0 {
      print("Nothing to compact: history already starts after seq \(report.baseSeq).")
    } else {
      let kept: String
      switch report.moreKept {
      case .redo(let seq)?:
        kept = "kept \(report.entriesKept) entries, not \(keep): redo still needs the steps undone from seq \(seq) on"
      case .writtenWhileCompacting(let count)?:
        kept = "kept \(report.entriesKept) entries, not \(keep): \(count) were written while it ran"
      case .fileCreation?:
        kept = "kept \(report.entriesKept) entries, not \(keep): the entries that created the file stay together"
      case nil:
        kept = "kept \(report.entriesKept) entries after it"
      }
      print(
        "Folded \(report.entriesRemoved) entries into a base snapshot at seq \(report.baseSeq); \(kept); "
          + "\(report.bytesBefore) -> \(report.bytesAfter) bytes (the file and its write-ahead log).")
    }
  }
}

struct RebuildTables: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Put the state tables back to what the log says they hold, undoing edits made by hand.",
    discussion: """
      Replays the log as `rewind verify` does and writes back the rows that differ from it: \
      rows changed or deleted by hand are put back, rows added by hand are removed. The log \
      is not changed and no entry is logged, so undo, redo and restore go on from the log as \
      it is. Automatic snapshots taken from the edited tables are dropped (later ones are \
      taken in their time). Refused, with nothing written, when verify finds anything else \
      wrong (then the log is no guide: restore a backup).
      """)
  @OptionGroup var database: DatabaseArgument

  func run() throws {
    let report = try database.open().rebuildTables(progress: Progress(label: "replaying").report)
    guard report.rowCount > 0 || report.snapshotsDropped > 0 else {
      print("Nothing to rebuild: the tables already hold the log's state at seq \(report.seq).")
      return
    }
    let tables = report.rowsWritten.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
    let rows = report.rowCount == 1 ? "1 row" : "\(report.rowCount) rows"
    let snapshots =
      report.snapshotsDropped == 0
      ? ""
      : "; dropped \(report.snapshotsDropped) automatic snapshot\(report.snapshotsDropped == 1 ? "" : "s") taken from the edited tables"
    print(
      "Rebuilt the tables to the log's state at seq \(report.seq): \(rows) written\(tables.isEmpty ? "" : " (\(tables.joined(separator: ", ")))")\(snapshots)."
    )
  }
}

extension Timeline: ExpressibleByArgument {}
