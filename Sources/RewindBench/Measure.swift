import Foundation

/// Monotonic time in nanoseconds.
func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Samples of one measurement, in microseconds.
struct Samples {
  var values: [Double] = []

  @discardableResult
  mutating func time<T>(_ body: () throws -> T) rethrows -> T {
    let start = now()
    let result = try body()
    values.append(Double(now() - start) / 1_000)
    return result
  }

  var median: Double { percentile(0.5) }
  var p99: Double { percentile(0.99) }
  var slowest: Double { values.max() ?? .nan }
  var perSecond: Double { values.isEmpty ? 0 : Double(values.count) / (values.reduce(0, +) / 1_000_000) }

  func percentile(_ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
  }
}

/// Peak resident memory of this process so far, in MiB.
func peakResidentMiB() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return Double(usage.ru_maxrss) / 1024  // Linux reports KiB
}

/// The folder of this process's databases.
let temporaryDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-bench-\(getpid())")

/// A fresh temporary file path, in ``temporaryDirectory``; the file and its WAL are removed by
/// `removeDatabase(_:)`.
func temporaryDatabase(_ name: String) -> String {
  let directory = temporaryDirectory
  try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  let path = directory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8)).sqlite").path
  return path
}

func fileSize(_ path: String) -> Int64 {
  bytes(of: path) + bytes(of: path + "-wal")
}

/// The size of one file, 0 when there is none.
func bytes(of file: String) -> Int64 {
  ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber)?.int64Value ?? 0
}

/// Removes ``temporaryDirectory`` and whatever is left in it.
func removeTemporaryDirectory() {
  try? FileManager.default.removeItem(at: temporaryDirectory)
}

func removeDatabase(_ path: String) {
  for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

/// Progress on stderr, so the table on stdout stays clean.
func note(_ message: String) {
  let begin = started  // a lazy global: read it before the clock
  let seconds = Double(now() - begin) / 1e9
  FileHandle.standardError.write(Data("[\(String(format: "%7.1f", seconds))s] \(message)\n".utf8))
}

let started = now()
