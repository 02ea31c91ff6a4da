import Testing

@testable import Rewind

/// Expects `rewind verify` to find the file at `path` healthy (read-only), naming the problems
/// when it does not; returns whether it did.
@discardableResult
func expectHealthy(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Bool {
  let report = try RewindDatabase(path: path, readOnly: true).verify()
  #expect(report.isHealthy, "verify: \(report.problems)", sourceLocation: sourceLocation)
  return report.isHealthy
}
