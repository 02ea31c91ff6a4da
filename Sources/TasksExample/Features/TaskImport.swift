import Foundation
import Rewind

/// Reading tasks from a JSON file: the example's async effect.
///
/// The file is a JSON array of tasks: `[{"title": "Buy milk"}, {"title": "Call Bob", "done": true}]`.
public enum TaskImport {
  /// What one import brought in, shown by `show`.
  public struct Summary: Codable, Equatable, Sendable {
    public var file: String
    public var count: Int
  }

  /// One task read from the file.
  public struct Item: Codable, Equatable, Sendable {
    public var title: String
    public var done: Bool?
  }

  /// The cancellation id of imports: a new import supersedes one in flight.
  public struct ID: Hashable, Sendable {}

  /// Reads `path` off the main actor.
  public static func read(_ path: String) async throws -> [Item] {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw ImportError("cannot read \(path)")
    }
    do {
      return try JSONDecoder().decode([Item].self, from: data)
    } catch {
      throw ImportError("\(path) is not a JSON array of tasks with titles")
    }
  }

  struct ImportError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }
}
