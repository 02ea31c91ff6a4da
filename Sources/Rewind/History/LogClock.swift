import Foundation

/// The time of each log entry, as the text the `time` column has always held: UTC, ISO 8601,
/// milliseconds (`2026-11-22T10:30:00.123Z`, what `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')` gives).
///
/// The engine binds it rather than leave the column's default to SQLite, which would parse and
/// evaluate `strftime` on every insert. The text up to the second is built once per second.
struct LogClock {
  private var second: Int = -1
  private var prefix = ""

  /// The current time as log text.
  mutating func now() -> String {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    let seconds = Int(spec.tv_sec)
    if seconds != second {
      var time = time_t(spec.tv_sec)
      var parts = tm()
      gmtime_r(&time, &parts)
      prefix =
        "\(Self.digits(Int(parts.tm_year) + 1900, 4))-\(Self.digits(Int(parts.tm_mon) + 1, 2))-"
        + "\(Self.digits(Int(parts.tm_mday), 2))T\(Self.digits(Int(parts.tm_hour), 2)):"
        + "\(Self.digits(Int(parts.tm_min), 2)):\(Self.digits(Int(parts.tm_sec), 2))."
      second = seconds
    }
    return prefix + Self.digits(Int(spec.tv_nsec) / 1_000_000, 3) + "Z"
  }

  /// `value` in decimal, zero-padded to `width` digits.
  private static func digits(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
  }
}
