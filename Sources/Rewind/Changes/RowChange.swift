import GRDB

/// One row changed by one action: the table, the row's key, and the row before and after.
///
/// A change with no `before` inserted the row; one with no `after` deleted it. Rows are
/// images of columns and values (``RowImage``), exactly as stored, so a change can be applied
/// or reverted with no app code. The action log stores each action's changes as a JSON array
/// of these.
public struct RowChange: Hashable, Sendable {
  /// The table the row belongs to.
  public var table: String
  /// The row's primary-key columns and values.
  public var key: RowImage
  /// The row before the action, or `nil` if the action inserted it.
  public var before: RowImage?
  /// The row after the action, or `nil` if the action deleted it.
  public var after: RowImage?

  /// Creates a change.
  @inlinable
  public init(table: String, key: RowImage, before: RowImage?, after: RowImage?) {
    self.table = table
    self.key = key
    self.before = before
    self.after = after
  }

  /// Creates a change of rows given as dictionaries, column → value.
  public init(
    table: String,
    key: [String: DatabaseValue],
    before: [String: DatabaseValue]?,
    after: [String: DatabaseValue]?
  ) {
    self.init(table: table, key: RowImage(key), before: before.map(RowImage.init), after: after.map(RowImage.init))
  }

  /// The change that undoes this one.
  public var inverted: RowChange {
    RowChange(table: table, key: key, before: after, after: before)
  }
}

/// Which way to apply recorded changes.
public enum ChangeDirection: Sendable {
  /// Make each row what it was after the change.
  case forward
  /// Make each row what it was before the change.
  case backward
}

extension RowChange {
  /// The row as the given direction leaves it.
  func target(_ direction: ChangeDirection) -> RowImage? {
    direction == .forward ? after : before
  }
}
