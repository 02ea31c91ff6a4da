import Testing

@testable import Rewind

/// Expects `body` to throw a `RewindError` with `code`; returns it, for a test to check its
/// message too (`nil`, with the test failed, when `body` succeeds or throws something else).
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
