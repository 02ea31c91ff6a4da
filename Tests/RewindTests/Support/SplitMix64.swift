import Foundation
import GRDB

/// A small deterministic random number generator (SplitMix64), so that a failing random
/// session can be run again from its seed.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

extension SplitMix64 {
  /// A random value of the kinds the log's JSON carries, drawn from `texts` and `reals`: a
  /// null, an integer, a real or a text, and, `allowingTags`, a blob or an infinity (the
  /// values the engine writes as tagged objects).
  mutating func storableValue(allowingTags: Bool, texts: [String], reals: [Double]) -> DatabaseValue {
    switch next() % (allowingTags ? 6 : 4) {
    case 0: .null
    case 1: Int64(bitPattern: next() >> (next() % 64)).databaseValue
    case 2: reals[Int(next() % UInt64(reals.count))].databaseValue
    case 3: texts[Int(next() % UInt64(texts.count))].databaseValue
    case 4: Data([0, 1, UInt8(next() % 256)]).databaseValue
    default: (next() % 2 == 0 ? Double.infinity : -Double.infinity).databaseValue
    }
  }
}
