import Foundation

/// Everything measured, with the ratios the targets are about.
struct Results {
  var mode = ""
  var machine = ""
  var engine: [String: Samples] = [:]
  var floor: [String: Samples] = [:]
  var engineWithoutPersistence: [String: Samples] = [:]
  var naive: [String: Samples] = [:]
  var undo: [String: Samples] = [:]
  var redo: [String: Samples] = [:]
  var openEngineMs = 0.0
  var openRawMs = 0.0
  var exportMs: [String: Double] = [:]
  var restoreMs: [String: Double] = [:]
  var restoreSetup = ""
  var bytesPerAction = 0.0
  var peakRSSMiB = 0.0

  static let sizes = ["100", "10000", "100000"]

  private func f(_ value: Double, _ digits: Int = 1) -> String {
    value.isNaN ? "-" : String(format: "%.\(digits)f", value)
  }

  func table() -> String {
    var lines: [String] = []
    lines.append("rewind-bench (\(mode)) on \(machine)")
    lines.append("")
    lines.append("Dispatch, microseconds per action (median / p99), one transaction per action")
    lines.append(
      "tasks    | engine         | floor          | engine/floor | no persistence | naive        | naive/engine")
    for size in Self.sizes {
      guard let engine = engine[size], let floor = floor[size] else { continue }
      let naive = self.naive[size]
      lines.append(
        [
          size.padding(toLength: 8, withPad: " ", startingAt: 0),
          "\(f(engine.median)) / \(f(engine.p99))".padding(toLength: 14, withPad: " ", startingAt: 0),
          "\(f(floor.median)) / \(f(floor.p99))".padding(toLength: 14, withPad: " ", startingAt: 0),
          f(engine.median / floor.median, 2).padding(toLength: 12, withPad: " ", startingAt: 0),
          f(engineWithoutPersistence[size]?.median ?? .nan, 2).padding(toLength: 14, withPad: " ", startingAt: 0),
          (naive.map { f($0.median) } ?? "-").padding(toLength: 12, withPad: " ", startingAt: 0),
          naive.map { f($0.median / engine.median, 0) } ?? "-",
        ].joined(separator: " | "))
    }
    if let small = engine["100"], let large = engine["100000"] {
      lines.append(
        "engine actions/s: "
          + Self.sizes.compactMap { s in engine[s].map { "\(s): \(f($0.perSecond, 0))" } }.joined(separator: ", "))
      lines.append(
        "engine cost at 100000 / at 100: \(f(large.median / small.median, 2))"
          + (floor["100"].flatMap { small in floor["100000"].map { " (the floor's: \(f($0.median / small.median, 2)))" }
          } ?? ""))
    }
    lines.append("")
    lines.append("Undo and redo, microseconds (median / p99)")
    for length in undo.keys.sorted(by: { Int($0)! < Int($1)! }) {
      lines.append(
        "  log \(length): undo \(f(undo[length]!.median)) / \(f(undo[length]!.p99)), redo \(f(redo[length]!.median)) / \(f(redo[length]!.p99))"
      )
    }
    let lengths = undo.keys.sorted(by: { Int($0)! < Int($1)! })
    if let first = lengths.first, let last = lengths.last, let dispatch = engine["100"] {
      lines.append(
        "  undo at largest log / smallest: \(f(undo[last]!.median / undo[first]!.median, 2)); undo / one dispatch (100 tasks): \(f(undo[last]!.median / dispatch.median, 2))"
      )
    }
    lines.append("")
    lines.append(
      "Open 100000 tasks with a long log, ms: engine \(f(openEngineMs)), raw read \(f(openRawMs)), ratio \(f(openEngineMs / openRawMs, 2))"
    )
    lines.append("Restore / export to a far seq (\(restoreSetup)), ms:")
    for key in ["with_snapshots", "without_snapshots"] {
      lines.append(
        "  \(key.replacingOccurrences(of: "_", with: " ")): restore \(f(restoreMs[key] ?? .nan)), export \(f(exportMs[key] ?? .nan))"
      )
    }
    lines.append("Database bytes per action (10000 tasks): \(f(bytesPerAction, 0))")
    lines.append("Peak resident memory with every dispatch database open (100 to 100000 tasks): \(f(peakRSSMiB)) MiB")
    return lines.joined(separator: "\n")
  }

  func json() -> String {
    func medians(_ samples: [String: Samples]) -> [String: Double] {
      samples.mapValues { ($0.median * 100).rounded() / 100 }
    }
    func p99s(_ samples: [String: Samples]) -> [String: Double] { samples.mapValues { ($0.p99 * 100).rounded() / 100 } }
    let object: [String: Any] = [
      "mode": mode,
      "machine": machine,
      "engine_us_per_action": medians(engine),
      "floor_us_per_action": medians(floor),
      "naive_us_per_action": medians(naive),
      "engine_without_persistence_us_per_action": medians(engineWithoutPersistence),
      "p99": ["engine": p99s(engine), "floor": p99s(floor), "undo": p99s(undo)],
      "actions_per_second": engine.mapValues { $0.perSecond.rounded() },
      "undo_us": medians(undo),
      "redo_us": medians(redo),
      "open_ms": ["engine": openEngineMs, "raw": openRawMs],
      "restore_ms": restoreMs,
      "export_ms": exportMs,
      "bytes_per_action": bytesPerAction.rounded(),
      "peak_rss_mb": (peakRSSMiB * 10).rounded() / 10,
    ]
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
