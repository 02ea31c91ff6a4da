import Foundation
import Testing

@testable import Rewind

/// The log's `time` text: what `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')` gives, built once per
/// second up to the second, the milliseconds written in place.
struct LogClockTests {
  @Test func theTextIsISO8601InUTCWithMillisecondsAndFollowsTheClock() throws {
    var clock = LogClock()
    let parser = ISO8601DateFormatter()
    parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    var previous = ""
    var seconds: Set<Substring> = []
    // Across at least one change of second, so the cached prefix is rebuilt once.
    while seconds.count < 2 {
      let text = clock.now()
      #expect(text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(text)")
      let date = try #require(parser.date(from: text), "\(text)")
      #expect(abs(date.timeIntervalSinceNow) < 5)
      #expect(text >= previous, "\(text) after \(previous)")
      previous = text
      seconds.insert(text.prefix(19))
    }
  }
}
