import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension FileHandle {
  /// Everything up to the end of the file, read again where a signal interrupts a read.
  ///
  /// Foundation's `readDataToEndOfFile()` and `availableData` trap on `EINTR` ("Interrupted
  /// system call"), which a signal handled on the reading thread causes; the tests run many
  /// processes, whose ends are signalled, and a full run crashed so once.
  func readToEndRetryingInterrupts() -> Data {
    var data = Data()
    while let chunk = readSomeRetryingInterrupts() { data.append(chunk) }
    return data
  }

  /// The bytes one read gives (waiting for some), or `nil` at the end of the file.
  func readSomeRetryingInterrupts() -> Data? {
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }
      if count > 0 { return Data(buffer[..<count]) }
      if count == 0 || errno != EINTR { return nil }
    }
  }
}
