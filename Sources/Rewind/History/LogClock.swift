import Foundation

/// The time of each log entry, as the text the `time` column has always held: UTC, ISO 8601,
/// milliseconds (`2026-11-22T10:30:00.123Z`, what `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')` gives).
///
/// The engine binds it rather than leave the column's default to SQLite, which would parse and
/// evaluate `strftime` on every insert. The text up to the second is built once per second.
struct LogClock {
  /// The second `text` was written for: none at first (no clock reads `Int.min`).
  private var second = Int.min
  /// The text up to the second's dot, then room for the milliseconds and the `Z`, held inline:
  /// no allocation, and nothing to retain when the history holding the clock is copied.
  private var text: Bytes = (
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
  )
  private var count = 0
  private typealias Bytes = (
    UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
    UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
  )

  /// The current time as log text.
  mutating func now() -> String {
    withNow { String(decoding: $0, as: UTF8.self) }
  }

  /// Calls `body` with the current time as log text, its UTF-8 bytes in place: the log insert
  /// binds them, with no `String` made of them.
  mutating func withNow<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    let seconds = Int(spec.tv_sec)
    let count = seconds == second ? self.count : startSecond(seconds)
    // Only the milliseconds change within a second: written in place, no string concatenated.
    let milliseconds = Int(spec.tv_nsec) / 1_000_000
    return try withUnsafeMutableBytes(of: &text) { bytes in
      let end = count - 1
      bytes[end - 3] = UInt8(ascii: "0") + UInt8(milliseconds / 100)
      bytes[end - 2] = UInt8(ascii: "0") + UInt8(milliseconds / 10 % 10)
      bytes[end - 1] = UInt8(ascii: "0") + UInt8(milliseconds % 10)
      return try body(UnsafeBufferPointer(rebasing: bytes.assumingMemoryBound(to: UInt8.self)[..<count]))
    }
  }

  /// Writes the text of `seconds` up to the milliseconds, and returns its length.
  private mutating func startSecond(_ seconds: Int) -> Int {
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    let prefix =
      "\(Self.digits(Int(parts.tm_year) + 1900, 4))-\(Self.digits(Int(parts.tm_mon) + 1, 2))-"
      + "\(Self.digits(Int(parts.tm_mday), 2))T\(Self.digits(Int(parts.tm_hour), 2)):"
      + "\(Self.digits(Int(parts.tm_min), 2)):\(Self.digits(Int(parts.tm_sec), 2)).000Z"
    // 24 bytes up to the year 9999; the widest year an `Int32` gives (11 characters) needs 31.
    let bytes = Array(prefix.utf8)
    precondition(bytes.count <= MemoryLayout.size(ofValue: text), "log time \(prefix) is too long")
    withUnsafeMutableBytes(of: &text) { $0.copyBytes(from: bytes) }
    (second, count) = (seconds, bytes.count)
    return bytes.count
  }

  /// `value` in decimal, zero-padded to `width` digits.
  private static func digits(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
  }
}
