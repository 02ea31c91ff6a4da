/// The state of an async request: idle, loading, loaded or failed, with only valid transitions.
///
/// Each request gets an id when it starts; its result is accepted only while it is the request
/// in flight. A result for a superseded request, or one that arrives when nothing is loading,
/// is refused, so a late answer can never overwrite a newer one.
///
/// ```swift
/// case .importRequested(let path):
///   let request = state.importStatus.begin()
///   return .run { send in try await send(.importFinished(request: request, try read(path))) }
/// case .importFinished(let request, let summary):
///   guard state.importStatus.succeed(request, with: summary) else { return .none }  // stale
/// ```
public struct Loadable<Value: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
  /// Where the request stands.
  public enum Phase: Codable, Equatable, Sendable {
    case idle
    case loading(request: Int64)
    case loaded(Value)
    case failed(String)

    // Written out and inlinable, where the synthesized `==` is not: a view state holding a
    // `Loadable` is compared on every send, and the generic synthesized one looked up the
    // metadata of `Loadable<Value>` and of its `Phase` at each call.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
      switch (lhs, rhs) {
      case (.idle, .idle): true
      case (.loading(let left), .loading(let right)): left == right
      case (.loaded(let left), .loaded(let right)): left == right
      case (.failed(let left), .failed(let right)): left == right
      default: false
      }
    }
  }

  /// Where the request stands. Change it with ``begin()``, ``succeed(_:with:)``,
  /// ``fail(_:message:)`` and ``reset()``.
  public private(set) var phase = Phase.idle
  /// The id of the last request started.
  public private(set) var lastRequest: Int64 = 0

  /// An idle state.
  public init() {}

  @inlinable
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.lastRequest == rhs.lastRequest && lhs.phase == rhs.phase
  }

  /// Starts a request, superseding any in flight, and returns its id.
  public mutating func begin() -> Int64 {
    lastRequest += 1
    phase = .loading(request: lastRequest)
    return lastRequest
  }

  /// Completes `request` with `value`. Returns `false`, changing nothing, unless `request` is
  /// the one in flight.
  @discardableResult
  public mutating func succeed(_ request: Int64, with value: Value) -> Bool {
    guard phase == .loading(request: request) else { return false }
    phase = .loaded(value)
    return true
  }

  /// Fails `request`. Returns `false`, changing nothing, unless `request` is the one in flight.
  @discardableResult
  public mutating func fail(_ request: Int64, message: String) -> Bool {
    guard phase == .loading(request: request) else { return false }
    phase = .failed(message)
    return true
  }

  /// Back to idle, dropping any request in flight (its result will be refused).
  public mutating func reset() { phase = .idle }

  /// Whether a request is in flight.
  public var isLoading: Bool {
    if case .loading = phase { return true }
    return false
  }

  /// The loaded value, if any.
  public var value: Value? {
    if case .loaded(let value) = phase { return value }
    return nil
  }
}
