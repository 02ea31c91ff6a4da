/// Where ``JSONText`` writes UTF-8 bytes: an array, or a ``TextBuffer``.
protocol TextOutput: ~Copyable {
  mutating func append(_ byte: UInt8)
  mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension TextOutput where Self: ~Copyable {
  /// Appends a literal's bytes (`"null"`).
  @inline(__always)
  mutating func appendLiteral(_ text: StaticString) {
    text.withUTF8Buffer { appendBytes($0) }
  }
}

extension Array: TextOutput where Element == UInt8 {
  mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
}

/// UTF-8 text written through a pointer into memory the buffer owns.
///
/// The log's JSON for an action is built of dozens of small pieces (a quote, a key, a value).
/// An array checks on each append that its storage is unique and large enough, and copies
/// through the generic sequence path: that cost more than the copying (about 7,000
/// instructions for a one-row change). Here an append is a bounds check and a copy.
struct TextBuffer: ~Copyable, TextOutput {
  private var start: UnsafeMutablePointer<UInt8>
  /// The bytes written so far.
  private(set) var count = 0
  private var capacity: Int

  /// An empty buffer with room for `capacity` bytes (it grows as needed).
  init(capacity: Int) {
    self.capacity = max(capacity, 16)
    start = .allocate(capacity: self.capacity)
  }

  deinit { start.deallocate() }

  @inline(__always)
  mutating func append(_ byte: UInt8) {
    if count == capacity { grow(toHold: 1) }
    start[count] = byte
    count += 1
  }

  @inline(__always)
  mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let base = bytes.baseAddress else { return }
    if capacity - count < bytes.count { grow(toHold: bytes.count) }
    (start + count).update(from: base, count: bytes.count)
    count += bytes.count
  }

  private mutating func grow(toHold extra: Int) {
    let newCapacity = max(capacity * 2, count + extra)
    let newStart = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    newStart.update(from: start, count: count)
    start.deallocate()
    (start, capacity) = (newStart, newCapacity)
  }

  /// Calls `body` with the bytes written, in place.
  func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    try body(UnsafeBufferPointer(start: start, count: count))
  }

  /// The text written.
  consuming func text() -> String {
    String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
  }
}
