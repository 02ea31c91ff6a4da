extension String {
  /// The text as a literal inside a `LIKE ... ESCAPE '\\'` pattern: its wildcards (`%`, `_`)
  /// and the escape character itself match only themselves.
  @usableFromInline
  var escapedForLike: String {
    replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
      .replacingOccurrences(of: "_", with: "\\_")
  }
}
