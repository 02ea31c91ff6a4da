import Foundation

/// Restore and export of one seq, in milliseconds.
struct SeqTimes {
  var seq: Int64
  var back: Int64
  var restoreMs: Double
  var exportMs: Double
  /// What the seq adds to an export: the median over rounds of the export at the seq less the
  /// export of the current state timed right after it.
  var exportOwnMs: Double
}

/// Everything measured, with the ratios the targets are about.
struct Results {
  var mode = ""
  var machine = ""
  var engine: [String: Samples] = [:]
  var floor: [String: Samples] = [:]
  var engineWithoutPersistence: [String: Samples] = [:]
  var naive: [String: Samples] = [:]
  var createMs: [String: Double] = [:]
  var snapshotsDuringRun: [String: Int] = [:]
  /// Times the engine's connections found the write lock held during the run (a send waiting
  /// for a snapshot's part, or a part for a send), and the sleeps they asked for meanwhile,
  /// all sizes together.
  var lockWaits: (waits: Int, sleptMicroseconds: Int)?
  /// WAL checkpoints during the run: on the store's checkpointer, and in its commits.
  var checkpointsDuringRun: [String: (background: Int, inCommits: Int)] = [:]
  /// The sends far slower than the median, and what was going on around them.
  var slowSends: [String: SlowSends] = [:]
  var rowsCompared: [String: Int] = [:]
  var undo: [String: Samples] = [:]
  var redo: [String: Samples] = [:]
  /// Undo of a rename to a long title, by "plain N" or "newlines N" (N characters).
  var longTitleUndo: [String: Samples] = [:]
  static let longTitleLengths = [100_000, 400_000]
  var openEngineMs: [String: Double] = [:]
  var openRawMs: [String: Double] = [:]
  var openEngineFreshMs: [String: Double] = [:]
  var openRawFreshMs: [String: Double] = [:]
  var releaseEngineMs: [String: Double] = [:]
  var releaseRawMs: [String: Double] = [:]
  /// How long the engine's state then took to be freed on its background queue, waited for
  /// after the release returned (the freeing may start during the release).
  var freedEngineMs: [String: Double] = [:]
  var seqMs: [String: SeqTimes] = [:]
  var exportCurrentMs: [String: Double] = [:]
  var exportMs: [String: Double] = [:]
  var restoreMs: [String: Double] = [:]
  var restoreSetup = ""
  var verifyUsPerEntry = Double.nan
  /// `rewind compact` on a file a store sends to meanwhile: its time, the sends it let through,
  /// and the slowest of them (how long the store waited for the write lock at most).
  var compaction: (taskCount: Int, entries: Int, ms: Double, sends: Int, slowestSendMs: Double, walPeakBytes: Int64)?
  var bytesPerAction = 0.0
  var fileLayout: FileLayout?
  var peakRSSMiB = 0.0

  static let sizes = ["100", "10000", "100000", "1000000"]

  private func f(_ value: Double, _ digits: Int = 1) -> String {
    value.isNaN || value.isInfinite ? "-" : String(format: "%.\(digits)f", value)
  }

  private func column(_ text: String, _ width: Int) -> String {
    text.padding(toLength: width, withPad: " ", startingAt: 0)
  }

  private func mib(_ bytes: Int64) -> String { f(Double(bytes) / 1_048_576) + " MiB" }

  func table() -> String {
    var lines: [String] = []
    lines.append("rewind-bench (\(mode)) on \(machine)")
    lines.append("")
    lines.append(
      "Send, microseconds (median / p99 / slowest), one transaction per action, snapshots due during the run")
    lines.append(
      "tasks    | engine                  | floor                  | engine/floor median, p99 | slowest/median | no persistence | naive"
    )
    for size in Self.sizes {
      guard let engine = engine[size], let floor = floor[size] else { continue }
      lines.append(
        [
          column(size, 8),
          column("\(f(engine.median)) / \(f(engine.p99)) / \(f(engine.slowest, 0))", 23),
          column("\(f(floor.median)) / \(f(floor.p99)) / \(f(floor.slowest, 0))", 22),
          column("\(f(engine.median / floor.median, 2)), \(f(engine.p99 / floor.p99, 2))", 24),
          column(f(engine.slowest / engine.median, 0), 14),
          column(f(engineWithoutPersistence[size]?.median ?? .nan, 2), 14),
          naive[size].map { f($0.median) } ?? "-",
        ].joined(separator: " | "))
    }
    let measured = Self.sizes.filter { engine[$0] != nil }
    if let first = measured.first, let last = measured.last, let small = engine[first], let large = engine[last] {
      lines.append(
        "engine cost at \(last) / at \(first): \(f(large.median / small.median, 2))"
          + (floor[first].flatMap { small in floor[last].map { " (the floor's: \(f($0.median / small.median, 2)))" } }
            ?? ""))
    }
    lines.append(
      "automatic snapshots taken during the run: "
        + measured.map { "\($0): \(snapshotsDuringRun[$0] ?? 0)" }.joined(separator: ", "))
    lines.append(
      "WAL checkpoints during the run (on the checkpointer / in a commit): "
        + measured.map { size in
          checkpointsDuringRun[size].map { "\(size): \($0.background) / \($0.inCommits)" } ?? "\(size): -"
        }.joined(separator: ", "))
    lines.append(
      "sends over \(Int(SlowSends.factor))x their median (engine: of them during a snapshot, of the sends during one, and with a checkpoint in the commit; floor); the engine's slowest: "
        + measured.map { size in
          guard let slow = slowSends[size] else { return "\(size): -" }
          return
            "\(size): \(slow.engineSlow) (\(slow.slowDuringSnapshot) of \(slow.duringSnapshot), \(slow.slowWithCheckpoint)), floor \(slow.floorSlow); \(slow.slowestContext)"
        }.joined(separator: ", "))
    if let lockWaits {
      lines.append(
        "write lock found held by the engine's other connection during the run (a send and a snapshot's part), all sizes: \(lockWaits.waits) times, "
          + String(format: "%.2f ms of sleeps in all", Double(lockWaits.sleptMicroseconds) / 1_000))
    }
    lines.append(
      "engine and floor files compared byte for byte (rows): "
        + measured.map { "\($0): \(rowsCompared[$0] ?? 0)" }.joined(separator: ", ") + ", all identical")
    lines.append(
      "creating the file, ms: " + measured.map { "\($0): \(f(createMs[$0] ?? .nan, 0))" }.joined(separator: ", "))
    lines.append("")
    lines.append("Undo and redo, microseconds (median / p99)")
    let lengths = undo.keys.sorted(by: { Int($0)! < Int($1)! })
    for length in lengths {
      lines.append(
        "  log \(length): undo \(f(undo[length]!.median)) / \(f(undo[length]!.p99)), redo \(f(redo[length]!.median)) / \(f(redo[length]!.p99))"
      )
    }
    if let first = lengths.first, let last = lengths.last, let dispatch = engine["100"] {
      lines.append(
        "  undo at largest log / smallest: \(f(undo[last]!.median / undo[first]!.median, 2)); undo / one send (100 tasks): \(f(undo[last]!.median / dispatch.median, 2))"
      )
    }
    if !longTitleUndo.isEmpty {
      let (short, long) = (Self.longTitleLengths[0], Self.longTitleLengths[1])
      func ms(_ kind: String, _ characters: Int) -> Double {
        (longTitleUndo["\(kind) \(characters)"]?.median ?? .nan) / 1_000
      }
      func growth(_ kind: String) -> String { f(ms(kind, long) / ms(kind, short) / Double(long / short), 2) }
      lines.append(
        "  undo of a rename to a long title, ms (plain / a newline every six characters): "
          + Self.longTitleLengths.map { "\($0) characters \(f(ms("plain", $0), 2)) / \(f(ms("newlines", $0), 2))" }
          .joined(separator: ", ")
          + "; per character at \(long) / at \(short): \(growth("plain")) / \(growth("newlines"))")
    }
    lines.append("")
    lines.append(
      "Open, ms (engine / raw read of the same tables, until the state is in memory, in this process and each in a fresh one; then the release of each)"
    )
    for size in Self.sizes where openEngineMs[size] != nil {
      lines.append(
        "  \(size) tasks: \(f(openEngineMs[size]!)) / \(f(openRawMs[size]!)), ratio \(f(openEngineMs[size]! / openRawMs[size]!, 2)); fresh processes \(f(openEngineFreshMs[size]!)) / \(f(openRawFreshMs[size]!)), ratio \(f(openEngineFreshMs[size]! / openRawFreshMs[size]!, 2)); release \(f(releaseEngineMs[size]!)) / \(f(releaseRawMs[size]!)) (then waited for the engine's state to be freed in the background: \(f(freedEngineMs[size]!)))"
      )
    }
    lines.append("Restore / export at a seq, ms (on the dispatch files; export of the current state for comparison)")
    for size in Self.sizes {
      for name in ["near", "far"] {
        guard let times = seqMs["\(size)/\(name)"] else { continue }
        lines.append(
          "  \(size) tasks, \(name) (\(times.back) entries back): restore \(f(times.restoreMs)), export \(f(times.exportMs)) (current: \(f(exportCurrentMs[size] ?? .nan)); the seq's own part: \(f(times.exportOwnMs)))"
        )
      }
    }
    lines.append("Restore / export to a far seq (\(restoreSetup)), ms:")
    for key in ["with_snapshots", "without_snapshots"] {
      lines.append(
        "  \(key.replacingOccurrences(of: "_", with: " ")): restore \(f(restoreMs[key] ?? .nan)), export \(f(exportMs[key] ?? .nan))"
      )
    }
    lines.append("Verify, microseconds per log entry (same file): \(f(verifyUsPerEntry, 2))")
    if let compaction {
      lines.append(
        "Compaction (\(compaction.taskCount) tasks, \(compaction.entries) entries, keep 100) while a store sends: "
          + "\(f(compaction.ms, 0)) ms, \(compaction.sends) sends meanwhile, the slowest \(f(compaction.slowestSendMs, 1)) ms; "
          + "the WAL file at most \(mib(compaction.walPeakBytes))"
      )
    }
    lines.append("Database bytes per action (10000 tasks, snapshots excluded): \(f(bytesPerAction, 0))")
    if let layout = fileLayout, let size = measured.last {
      lines.append(
        "File at \(size) tasks: \(mib(layout.fileBytes)); tables \(mib(layout.tableBytes)), log \(mib(layout.logBytes)) (of which the initialize entries \(mib(layout.initialEntryBytes))), snapshots \(mib(layout.snapshotBytes)); file / (tables + log): \(f(Double(layout.fileBytes) / Double(layout.tableBytes + layout.logBytes), 2))"
      )
    }
    lines.append("Peak resident memory with every dispatch database open: \(f(peakRSSMiB)) MiB")
    return lines.joined(separator: "\n")
  }

  func json() -> String {
    func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }
    func stats(_ samples: [String: Samples]) -> [String: [String: Double]] {
      samples.mapValues { ["median": rounded($0.median), "p99": rounded($0.p99), "slowest": rounded($0.slowest)] }
    }
    var object: [String: Any] = [
      "mode": mode,
      "machine": machine,
      "engine_us": stats(engine),
      "floor_us": stats(floor),
      "naive_us": stats(naive),
      "engine_without_persistence_us": stats(engineWithoutPersistence),
      "undo_us": stats(undo),
      "redo_us": stats(redo),
      "long_title_undo_us": stats(longTitleUndo),
      "open_ms": ["engine": openEngineMs, "raw": openRawMs],
      "open_fresh_process_ms": ["engine": openEngineFreshMs, "raw": openRawFreshMs],
      "release_ms": ["engine": releaseEngineMs, "raw": releaseRawMs, "engine_freed_in_background": freedEngineMs],
      "seq_ms": seqMs.mapValues {
        ["seq": Double($0.seq), "restore": $0.restoreMs, "export": $0.exportMs, "export_own": $0.exportOwnMs]
      },
      "export_current_ms": exportCurrentMs,
      "far_restore_ms": restoreMs,
      "far_export_ms": exportMs,
      "verify_us_per_entry": rounded(verifyUsPerEntry.isNaN ? -1 : verifyUsPerEntry),
      "compaction": compaction.map {
        [
          "tasks": Double($0.taskCount), "entries": Double($0.entries), "ms": rounded($0.ms), "sends": Double($0.sends),
          "slowest_send_ms": rounded($0.slowestSendMs), "wal_peak_bytes": Double($0.walPeakBytes),
        ]
      } as Any,
      "bytes_per_action": bytesPerAction.rounded(),
      "peak_rss_mb": (peakRSSMiB * 10).rounded() / 10,
      "rows_compared": rowsCompared,
      "slow_sends": slowSends.mapValues {
        [
          "engine": $0.engineSlow, "engine_during_snapshot": $0.slowDuringSnapshot,
          "during_snapshot": $0.duringSnapshot,
          "engine_with_checkpoint": $0.slowWithCheckpoint, "floor": $0.floorSlow,
        ]
      },
      "snapshots_during_run": snapshotsDuringRun,
      "lock_waits_during_run": lockWaits.map { ["waits": $0.waits, "slept_us": $0.sleptMicroseconds] as Any }
        ?? NSNull(),
      "checkpoints_during_run": checkpointsDuringRun.mapValues {
        ["background": $0.background, "in_commits": $0.inCommits]
      },
    ]
    if let layout = fileLayout {
      object["file_bytes"] = [
        "file": layout.fileBytes, "tables": layout.tableBytes, "log": layout.logBytes,
        "snapshots": layout.snapshotBytes, "initialize_entry": layout.initialEntryBytes,
      ]
    }
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }
}

enum Machine {
  static func describe() -> String {
    let cpu =
      (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
      .split(separator: "\n").first { $0.hasPrefix("model name") }
      .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
      ?? "unknown CPU"
    return
      "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB"
  }
}

/// The sends of a run more than ``factor`` times slower than their median, for the engine and
/// the floor, and what the engine's were doing: whether an automatic snapshot was being taken
/// meanwhile, or the commit ran a WAL checkpoint. Where the floor, which does neither, has as
/// many, the machine rather than the engine made them slow.
struct SlowSends {
  /// What was going on around one send.
  struct Context {
    var duringSnapshot: Bool
    var checkpointInCommit: Bool
  }

  static let factor = 10.0

  let engineSlow: Int
  /// The engine's sends that overlapped a snapshot, slow or not.
  let duringSnapshot: Int
  let slowDuringSnapshot: Int
  let slowWithCheckpoint: Int
  let floorSlow: Int
  /// What was going on around the engine's slowest send, in words.
  let slowestContext: String

  init(engine: Samples, contexts: [Context], floor: Samples) {
    let threshold = engine.median * Self.factor
    let slow = engine.values.indices.filter { engine.values[$0] > threshold }
    engineSlow = slow.count
    duringSnapshot = contexts.filter(\.duringSnapshot).count
    slowDuringSnapshot = slow.filter { contexts[$0].duringSnapshot }.count
    slowWithCheckpoint = slow.filter { contexts[$0].checkpointInCommit }.count
    let floorThreshold = floor.median * Self.factor
    floorSlow = floor.values.filter { $0 > floorThreshold }.count
    if let slowest = engine.values.indices.max(by: { engine.values[$0] < engine.values[$1] }) {
      let context = contexts[slowest]
      let doing = [
        context.duringSnapshot ? "during a snapshot" : nil, context.checkpointInCommit ? "with a checkpoint" : nil,
      ]
      .compactMap { $0 }
      slowestContext = "send \(slowest + 1) " + (doing.isEmpty ? "with neither" : doing.joined(separator: ", "))
    } else {
      slowestContext = "no sends"
    }
  }
}
