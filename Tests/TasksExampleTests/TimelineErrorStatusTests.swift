import Hummingbird
import Rewind
import Testing

@testable import RewindUI

/// The timeline's API answers the engine's refusals with the status that says why: a write
/// history refuses (a conflict, a barrier migration in the way, a read-only file) is 409, not
/// a server error. (Found by an app with a barrier migration: its Undo answered 500.)
struct TimelineErrorStatusTests {
  @Test(arguments: [
    (RewindError.Code.conflict, 409), (.historyBarrier, 409), (.readOnly, 409), (.unknownSeq, 404),
    (.invalidImport, 400), (.corruptData, 500),
  ])
  func aRefusalHasTheStatusThatSaysWhy(code: RewindError.Code, status: Int) async {
    let response = await Response.json { throw RewindError(code, "refused") }
    #expect(response.status.code == status)
  }
}
