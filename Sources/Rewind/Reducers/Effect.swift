/// Async work a reducer asks for, which feeds actions back to the store.
///
/// Reducers stay pure: they describe work and return it; the store runs it after the action
/// committed. Actions an effect sends are reduced, committed and logged like any other.
///
/// ```swift
/// case .importRequested(let path):
///   let request = state.view.importStatus.begin()
///   return .run { send in
///     let items = try await Importer.read(path)
///     try await send(.importFinished(request: request, items))
///   }
///   .cancellable(id: "import", cancelInFlight: true)
/// ```
public struct Effect<Action: Sendable>: Sendable {
  // Usable from inlinable code so that composed reducers, specialized in the app's module,
  // pass `.none` along without calls into this one.
  @usableFromInline
  indirect enum Operation: Sendable {
    case none
    case run(
      @Sendable (Send<Action>) async throws -> Void, onError: (@Sendable (any Error, Send<Action>) async -> Void)?)
    case cancellable(EffectID, cancelInFlight: Bool, Effect<Action>)
    case cancel(EffectID)
    case merge([Effect<Action>])
  }

  @usableFromInline let operation: Operation

  @usableFromInline
  init(operation: Operation) { self.operation = operation }

  /// No work.
  @inlinable
  public static var none: Self { Self(operation: .none) }

  /// Runs `operation` on a task; it may send actions back with `send`.
  ///
  /// - Parameters:
  ///   - operation: the async work, given a ``Send`` for its actions.
  ///   - handler: called with any error `operation` throws, except cancellation; without one,
  ///     the error is reported on standard error.
  public static func run(
    _ operation: @escaping @Sendable (Send<Action>) async throws -> Void,
    catch handler: (@Sendable (any Error, Send<Action>) async -> Void)? = nil
  ) -> Self {
    Self(operation: .run(operation, onError: handler))
  }

  /// Makes this effect cancellable with ``cancel(id:)``.
  ///
  /// - Parameter id: any hashable value naming the work, such as a type.
  /// - Parameter cancelInFlight: cancel effects already running with the same id first, so
  ///   that a newer request supersedes an older one. A cancelled effect's later sends are
  ///   dropped: the late result of a superseded request never reaches the state.
  public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Self {
    Self(operation: .cancellable(EffectID(id), cancelInFlight: cancelInFlight, self))
  }

  /// Cancels the running effects marked with `id`.
  public static func cancel(id: some Hashable & Sendable) -> Self {
    Self(operation: .cancel(EffectID(id)))
  }

  /// Runs all `effects` at once.
  public static func merge(_ effects: Self...) -> Self { merge(effects) }

  /// Runs both effects at once, without the array that a variadic `merge` call builds:
  /// composed reducers merge two effects on every action, and usually both are `.none`.
  @inlinable
  static func pair(_ first: Self, _ second: Self) -> Self {
    if case .none = first.operation { return second }
    if case .none = second.operation { return first }
    return merge([first, second])
  }

  /// Runs all `effects` at once.
  public static func merge(_ effects: [Self]) -> Self {
    var work: [Self] = []
    for effect in effects {
      if case .none = effect.operation { continue }
      work.append(effect)
    }
    switch work.count {
    case 0: return .none
    case 1: return work[0]
    default: return Self(operation: .merge(work))
    }
  }

  /// The same work, its actions transformed: how a parent embeds a child's effects.
  @inlinable
  public func map<Other: Sendable>(_ transform: @escaping @Sendable (Action) -> Other) -> Effect<Other> {
    if case .none = operation { return .none }
    return mapWork(transform)
  }

  @usableFromInline
  func mapWork<Other: Sendable>(_ transform: @escaping @Sendable (Action) -> Other) -> Effect<Other> {
    switch operation {
    case .none:
      return .none
    case .run(let work, let onError):
      let mappedWork: @Sendable (Send<Other>) async throws -> Void = { send in
        let inner: Send<Action> = send.map(transform)
        try await work(inner)
      }
      var mappedHandler: (@Sendable (any Error, Send<Other>) async -> Void)?
      if let onError {
        mappedHandler = { error, send in
          let inner: Send<Action> = send.map(transform)
          await onError(error, inner)
        }
      }
      return Effect<Other>(operation: .run(mappedWork, onError: mappedHandler))
    case .cancellable(let id, let cancelInFlight, let effect):
      return Effect<Other>(operation: .cancellable(id, cancelInFlight: cancelInFlight, effect.map(transform)))
    case .cancel(let id):
      return Effect<Other>(operation: .cancel(id))
    case .merge(let effects):
      return Effect<Other>(operation: .merge(effects.map { $0.map(transform) }))
    }
  }
}

/// Sends an effect's actions back to the store, on the main actor.
///
/// If the effect was cancelled, or the store is gone, sending does nothing.
public struct Send<Action: Sendable>: Sendable {
  let send: @MainActor @Sendable (Action) throws -> Void

  public init(_ send: @escaping @MainActor @Sendable (Action) throws -> Void) { self.send = send }

  /// Sends `action`: the store reduces and commits it.
  ///
  /// - Throws: the commit's error, such as ``RewindError/Code/commitFailed``.
  @MainActor public func callAsFunction(_ action: Action) throws {
    guard !Task.isCancelled else { return }
    try send(action)
  }

  func map<Other: Sendable>(_ transform: @escaping @Sendable (Other) -> Action) -> Send<Other> {
    Send<Other> { try self.send(transform($0)) }
  }
}

/// A type-erased, sendable effect identifier.
@usableFromInline
struct EffectID: Hashable, @unchecked Sendable {
  let base: AnyHashable
  init(_ id: some Hashable & Sendable) { base = AnyHashable(id) }
}
