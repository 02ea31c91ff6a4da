import Foundation
import Testing

@testable import Rewind

/// `Loadable`'s written-out `==` (inlinable, where the synthesized one is not) agrees with its
/// `Codable` form: two values are equal exactly when they encode alike.
struct LoadableTests {
  /// Values reached through the public transitions: every phase, different payloads, and the
  /// same phase after different numbers of requests.
  private static var values: [Loadable<String>] {
    var values: [Loadable<String>] = [Loadable()]
    for requests in 1...2 {
      for outcome in 0..<5 {
        var value = Loadable<String>()
        var request: Int64 = 0
        for _ in 0..<requests { request = value.begin() }
        switch outcome {
        case 0: break  // loading
        case 1: value.succeed(request, with: "a")
        case 2: value.succeed(request, with: "b")
        case 3: value.fail(request, message: "a")
        default: value.reset()
        }
        values.append(value)
      }
    }
    return values
  }

  @Test func equalExactlyWhenTheyEncodeAlike() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let values = Self.values
    let texts = try values.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
    #expect(Set(texts).count == values.count)  // the values are all different
    for (left, leftText) in zip(values, texts) {
      for (right, rightText) in zip(values, texts) {
        #expect((left == right) == (leftText == rightText), "\(leftText) against \(rightText)")
        #expect((left.phase == right.phase) == (try left.phase.text() == right.phase.text()))
      }
    }
  }
}

extension Loadable.Phase {
  /// The phase's `Codable` form, for comparing phases alone.
  fileprivate func text() throws -> String { String(decoding: try JSONEncoder().encode(self), as: UTF8.self) }
}
