import Dependencies
import Foundation

/// The store's running effects: their tasks, and which cancellation ids mark them.
@MainActor
final class EffectRunner<Action: Sendable> {
  private var tasks: [UUID: Task<Void, Never>] = [:]
  private var marked: [EffectID: Set<UUID>] = [:]
  /// Where effects' actions go: the store's `send`, or a test store's queue.
  var deliver: @MainActor (Action) throws -> Void = { _ in }
  /// Where the error of an effect with no error handler goes: standard error, or a test
  /// store's list of failures.
  var failed: @MainActor (any Error) -> Void = EffectRunner.writeToStandardError

  nonisolated static func writeToStandardError(_ error: any Error) {
    FileHandle.standardError.write(Data("Rewind: an effect failed and has no error handler: \(error)\n".utf8))
  }

  var isEmpty: Bool { tasks.isEmpty }

  /// Starts the work of `effect`, its tasks reading `dependencies` with `@Dependency`.
  func run(_ effect: Effect<Action>, ids: [EffectID] = [], dependencies: DependencyValues) {
    switch effect.operation {
    case .none:
      break
    case .merge(let effects):
      for effect in effects { run(effect, ids: ids, dependencies: dependencies) }
    case .cancel(let id):
      cancel(id)
    case .cancellable(let id, let cancelInFlight, let inner):
      if cancelInFlight { cancel(id) }
      run(inner, ids: ids + [id], dependencies: dependencies)
    case .run(let work, let onError):
      let token = UUID()
      let send = Send<Action> { [weak self] action in try self?.deliver(action) }
      // A task inherits the task-local dependencies of the scope that creates it.
      tasks[token] = withDependencies {
        $0 = dependencies
      } operation: {
        Task { @MainActor [weak self] in
          do {
            try await work(send)
          } catch is CancellationError {
          } catch {
            if let onError {
              await onError(error, send)
            } else if !Task.isCancelled {
              if let self { self.failed(error) } else { Self.writeToStandardError(error) }
            }
          }
          self?.finished(token, ids)
        }
      }
      for id in ids { marked[id, default: []].insert(token) }
    }
  }

  func cancel(_ id: EffectID) {
    for token in marked.removeValue(forKey: id) ?? [] { tasks[token]?.cancel() }
  }

  func cancelAll() {
    for task in tasks.values { task.cancel() }
  }

  private func finished(_ token: UUID, _ ids: [EffectID]) {
    tasks[token] = nil
    for id in ids { marked[id]?.remove(token) }
  }

  /// Waits until no effect is running, including effects started by effects' actions.
  func finish() async {
    while let task = tasks.values.first {
      await task.value
    }
  }
}

extension Store {
  /// Waits until every running effect has finished, including effects started by the actions
  /// effects send. A command-line front end calls this before it exits.
  public func finishEffects() async {
    await effects.finish()
  }

  /// Cancels the running effects marked with `id`.
  public func cancelEffects(id: some Hashable & Sendable) {
    effects.cancel(EffectID(id))
  }
}

extension Store {
  /// Sends the actions effects produce to `handler` instead of reducing them: the test store
  /// queues them so a test must receive each one explicitly.
  @_spi(Testing)
  public func interceptEffectActions(_ handler: @escaping @MainActor (Action) -> Void) {
    effects.deliver = { handler($0) }
  }

  /// Sends the error of each effect that fails with no error handler to `handler` instead of
  /// standard error: a test store reports it as a failure of the test.
  @_spi(Testing)
  public func interceptEffectErrors(_ handler: @escaping @MainActor (any Error) -> Void) {
    effects.failed = handler
  }

  /// Whether any effect is still running.
  @_spi(Testing)
  public var hasRunningEffects: Bool { !effects.isEmpty }
}
