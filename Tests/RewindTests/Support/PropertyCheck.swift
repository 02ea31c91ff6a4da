import PropertyBased
import Testing

/// `propertyCheck`, with an error thrown by `body` recorded as a failure of the input that
/// threw it (and shrunk like one).
///
/// PropertyBased runs the body under `try?` on Swift 6.2 and later, so an error it throws is
/// dropped and the property passes: a model test whose store threw at step 3 would have
/// checked nothing after it, and said nothing. Every property test goes through this instead.
func checkProperty<InputValue, ResultValue>(
  count: Int,
  input: Generator<ResultValue, some Sequence<InputValue>>,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: (ResultValue) async throws -> Void,
  isolation: isolated (any Actor)? = #isolation
) async {
  await propertyCheck(
    count: count, input: input,
    perform: { value in
      do {
        try await body(value)
      } catch {
        Issue.record(error, "thrown for input \(value)", sourceLocation: sourceLocation)
      }
    }, isolation: isolation, sourceLocation: sourceLocation)
}
