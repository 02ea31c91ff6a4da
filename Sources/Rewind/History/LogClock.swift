import Foundation

/// The time of each log entry, as the text the `time` column has always held: UTC, ISO 8601,
/// milliseconds (`2026-11-22T10:30:00.123Z`, what `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')` gives).
///
/// The engine binds it rather than leave the column's default to SQLite, which would parse and
/// evaluate `strftime` on every insert. The text up to the second is built once per second.
struct LogClock {
  private var second: Int = -1
  /// The text up to the second's dot, then room for the milliseconds and the `Z`.
  private var text: [UInt8] = []

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
    if seconds != second {
      var time = time_t(spec.tv_sec)
      var parts = tm()
      gmtime_r(&time, &parts)
      let prefix =
        "\(Self.digits(Int(parts.tm_year) + 1900, 4))-\(Self.digits(Int(parts.tm_mon) + 1, 2))-"
        + "\(Self.digits(Int(parts.tm_mday), 2))T\(Self.digits(Int(parts.tm_hour), 2)):"
        + "\(Self.digits(Int(parts.tm_min), 2)):\(Self.digits(Int(parts.tm_sec), 2))."
      text = Array(prefix.utf8) + Array("000Z".utf8)
      second = seconds
    }
    // Only the milliseconds change within a second: written in place, no string concatenated.
    let milliseconds = Int(spec.tv_nsec) / 1_000_000
    let end = text.count - 1
    text[end - 3] = UInt8(ascii: "0") + UInt8(milliseconds / 100)
    text[end - 2] = UInt8(ascii: "0") + UInt8(milliseconds / 10 % 10)
    text[end - 1] = UInt8(ascii: "0") + UInt8(milliseconds % 10)
    return try text.withUnsafeBufferPointer(body)
  }

  /// `value` in decimal, zero-padded to `width` digits.
  private static func digits(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
  }
}
