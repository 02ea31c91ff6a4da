import Foundation

/// A fresh directory under the system's temporary folder, removed when released.
final class TemporaryDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("rewind-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// The path of a file named `name` in the directory.
  func path(_ name: String) -> String { url.appendingPathComponent(name).path }

  deinit { try? FileManager.default.removeItem(at: url) }
}

/// The exact bytes of a file, for asserting that it was left untouched.
func contents(of path: String) -> Data? { FileManager.default.contents(atPath: path) }
