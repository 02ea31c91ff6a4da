import Foundation
import Testing

/// Every code sample of the DocC articles and the README is compiled code: it appears verbatim
/// in DocumentationSamples.swift.
struct DocumentationSamplesTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static func swiftBlocks(in markdown: String) -> [String] {
    var blocks: [String] = []
    var current: [Substring]?
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
        current = []
      } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
        blocks.append(current!.joined(separator: "\n"))
        current = nil
      } else {
        current?.append(line)
      }
    }
    return blocks
  }

  @Test func everyArticleSampleIsInTheCompiledSamples() throws {
    let catalog = Self.root.appendingPathComponent("Sources/Rewind/Rewind.docc")
    let samples = try String(
      contentsOf: Self.root.appendingPathComponent("Tests/RewindTests/DocumentationSamples.swift"), encoding: .utf8)
    let articles = try FileManager.default.contentsOfDirectory(atPath: catalog.path).filter { $0.hasSuffix(".md") }
    #expect(articles.count >= 6)
    var checked = 0
    for article in articles {
      let text = try String(contentsOf: catalog.appendingPathComponent(article), encoding: .utf8)
      for block in Self.swiftBlocks(in: text) {
        #expect(samples.contains(block), "\(article): a sample is not in DocumentationSamples.swift:\n\(block)")
        checked += 1
      }
    }
    #expect(checked >= 10)
  }

  @Test func everyReadmeSampleIsInTheCompiledSamples() throws {
    let samples = try String(
      contentsOf: Self.root.appendingPathComponent("Tests/RewindTests/DocumentationSamples.swift"), encoding: .utf8)
    let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
    let blocks = Self.swiftBlocks(in: readme)
    #expect(!blocks.isEmpty)
    for block in blocks {
      // The file imports Rewind once, at its top.
      let code = block.replacingOccurrences(of: "import Rewind\n\n", with: "")
      #expect(samples.contains(code), "a README sample is not in DocumentationSamples.swift:\n\(code)")
    }
  }
}
