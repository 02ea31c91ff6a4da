extension ViewRows {
  /// A value and the text written for it. Its type is kept with it, so that a comparison is a
  /// check of the type and a call of its `==`: casting the value to `any Equatable` and back
  /// cost thousands of instructions for a generic enum, on every change of a view state.
  /// The types must be the same, not related: an instance of a subclass under a member of
  /// its superclass's type is encoded again each time (its text is the same either way).
  class Remembered {
    let text: String

    init(text: String) { self.text = text }

    /// `value`, remembered with its text.
    static func typed<E: Equatable>(_ value: E, _ text: String) -> Remembered { Typed(value, text) }

    /// Whether `value` is of the remembered value's type and equal to it.
    func matches<T>(_ value: T) -> Bool { false }

    private final class Typed<E: Equatable>: Remembered {
      let value: E

      init(_ value: E, _ text: String) {
        self.value = value
        super.init(text: text)
      }

      override func matches<T>(_ value: T) -> Bool {
        guard T.self == E.self else { return false }
        return withUnsafePointer(to: value) {
          $0.withMemoryRebound(to: E.self, capacity: 1) { $0.pointee == self.value }
        }
      }
    }
  }
}
