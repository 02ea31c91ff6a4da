import PropertyBased
import Testing

@testable import Rewind

/// The property tests' own harness: a body that throws must fail its test. (PropertyBased
/// drops the error, so every property test of this package passed whatever its body threw.)
struct PropertyCheckTests {
  @Test func aPropertyWhoseBodyThrowsFails() async {
    await withKnownIssue("the body throws at every input") {
      await checkProperty(count: 3, input: Gen.int(in: 0...10)) { value in
        throw RewindError(.invalidValue, "thrown for \(value)")
      }
    } matching: { issue in
      // The error itself, then PropertyBased's report of the failing input.
      (issue.error as? RewindError)?.message.hasPrefix("thrown for ") == true
        || String(describing: issue).contains("occured with input")
    }
  }

  @Test func aPropertyWhoseBodyPassesRunsItForEveryInput() async {
    var runs = 0
    await checkProperty(count: 7, input: Gen.int(in: 0...10)) { _ in runs += 1 }
    #expect(runs == 7)
  }
}
