import GRDB

/// A row: its columns, in ascending order of name, and a value for each.
///
/// Row changes hold their key and their row before and after as images: the log writes them
/// in column order and the table writer binds them in that order, with no hashing and no
/// sorting on the way. Read a value by its column's name, as from a dictionary:
///
/// ```swift
/// let title = change.after?["title"]
/// ```
///
/// A row built often (an entity's, on every change) names its columns once, in a shared
/// ``Columns``, and gives its values in the order the columns were declared:
///
/// ```swift
/// static let columns = RowImage.Columns(["id", "title", "done"])
/// func databaseRowImage() -> RowImage {
///   RowImage(Self.columns, [id.databaseValue, title.databaseValue, isDone.databaseValue])
/// }
/// ```
public struct RowImage: Hashable, Sendable {
  /// The row's columns.
  @inlinable
  public var columns: Columns { storedColumns }
  /// The value of each column, in the order of `columns.names` (ascending names), which is not
  /// necessarily the order the columns were declared in: to change values, use
  /// ``mapValues(_:)`` or the subscript rather than `RowImage(columns, values)`.
  @inlinable
  public var values: [DatabaseValue] { storedValues }

  @usableFromInline
  var storedColumns: Columns
  @usableFromInline
  var storedValues: [DatabaseValue]

  /// A row of `columns` with `values` given in the order the columns were declared (in
  /// `Columns.init(_:)`), not necessarily the order of ``values``.
  ///
  /// - Precondition: as many values as columns.
  @inlinable
  public init(_ columns: Columns, _ values: [DatabaseValue]) {
    precondition(values.count == columns.names.count, "\(values.count) values for \(columns.names.count) columns")
    storedColumns = columns
    // One new array, each value copied once.
    storedValues = columns.declaredIndexOfSorted.map { order in order.map { values[$0] } } ?? values
  }

  /// A row of `columns` whose values are in the order of `columns.names` already.
  @usableFromInline
  init(columns: Columns, sortedValues: [DatabaseValue]) {
    storedColumns = columns
    storedValues = sortedValues
  }

  /// The row a dictionary describes.
  public init(_ dictionary: [String: DatabaseValue]) {
    let sorted = dictionary.sorted { $0.key < $1.key }
    self.init(columns: Columns(sortedNames: sorted.map(\.key)), sortedValues: sorted.map(\.value))
  }

  /// The value of `column`, or `nil` when the row has no such column. Setting a value of a
  /// column the row has replaces it; setting another column adds it, and `nil` removes one.
  @inlinable
  public subscript(column: String) -> DatabaseValue? {
    get { columns.index(of: column).map { values[$0] } }
    set {
      if let newValue, let index = columns.index(of: column) {
        storedValues[index] = newValue
      } else {
        self = setting(column, to: newValue)
      }
    }
  }

  /// The names of the columns, in ascending order.
  @inlinable
  public var keys: [String] { columns.names }

  /// The row as a dictionary, column → value.
  public var dictionary: [String: DatabaseValue] {
    Dictionary(uniqueKeysWithValues: zip(columns.names, values))
  }

  /// The row with each value transformed, its columns unchanged.
  public func mapValues(_ transform: (DatabaseValue) throws -> DatabaseValue) rethrows -> RowImage {
    RowImage(columns: columns, sortedValues: try values.map(transform))
  }

  /// The row with `column` set to `value`, or removed when `value` is `nil`.
  public func setting(_ column: String, to value: DatabaseValue?) -> RowImage {
    if let index = columns.index(of: column) {
      guard let value else {
        var (names, values) = (columns.names, values)
        names.remove(at: index)
        values.remove(at: index)
        return RowImage(columns: Columns(sortedNames: names), sortedValues: values)
      }
      var values = values
      values[index] = value
      return RowImage(columns: columns, sortedValues: values)
    }
    guard let value else { return self }
    var (names, values) = (columns.names, values)
    let index = names.firstIndex { $0 > column } ?? names.endIndex
    names.insert(column, at: index)
    values.insert(value, at: index)
    return RowImage(columns: Columns(sortedNames: names), sortedValues: values)
  }

  /// Whether SQLite stores the two rows alike: the same columns, each value stored alike
  /// (see `DatabaseValue.isStoredAlike(_:)`).
  @inlinable
  func isStoredAlike(_ other: RowImage) -> Bool {
    guard storedColumns === other.storedColumns || storedColumns.names == other.storedColumns.names else {
      return false
    }
    return zip(storedValues, other.storedValues).allSatisfy { $0.isStoredAlike($1) }
  }

  /// Whether the rows have the same columns and values, text compared by its bytes, as
  /// SQLite compares it: Swift's `==` takes `"café"` composed and decomposed (`"cafe\u{301}"`)
  /// for equal, which a table stores and looks up apart, so a key or a value edited from one
  /// form to the other would go unseen. (Numbers compare as GRDB's `==` does: `1` and `1.0`
  /// are equal.)
  public static func == (lhs: RowImage, rhs: RowImage) -> Bool {
    guard lhs.columns === rhs.columns || lhs.columns.names == rhs.columns.names,
      lhs.storedValues.count == rhs.storedValues.count
    else { return false }
    return zip(lhs.storedValues, rhs.storedValues).allSatisfy { $0.isSameBytes(as: $1) }
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(columns.names)
    hasher.combine(storedValues.count)
    for value in storedValues {
      if case .string(var text) = value.storage {
        // Its bytes, as `==` compares them (Swift's own hash is of the normalized form).
        hasher.combine(1 as UInt8)
        text.withUTF8 {
          hasher.combine($0.count)
          hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
      } else {
        hasher.combine(value)
      }
    }
  }
}

extension RowImage: RandomAccessCollection {
  /// Each column and its value, in column order.
  public typealias Element = (key: String, value: DatabaseValue)

  @inlinable
  public var startIndex: Int { 0 }

  @inlinable
  public var endIndex: Int { values.count }

  @inlinable
  public subscript(position: Int) -> Element { (columns.names[position], values[position]) }
}

extension RowImage: ExpressibleByDictionaryLiteral {
  public init(dictionaryLiteral elements: (String, DatabaseValue)...) {
    self.init(Dictionary(uniqueKeysWithValues: elements))
  }
}

extension RowImage: CustomStringConvertible {
  /// The row as compact JSON, as the log holds it.
  public var description: String { describe(self) }
}

extension RowImage {
  /// The names of a row's columns, in ascending order: shared by the rows of one kind, so that
  /// the table writer finds its statement for them by identity.
  public final class Columns: Hashable, Sendable {
    /// The names, in ascending order.
    public let names: [String]
    /// The place among the declared columns of each of `names`, when they were declared in
    /// another order.
    @usableFromInline
    let declaredIndexOfSorted: [Int]?
    /// Each column's name as JSON text followed by a colon, as the log writes it, one after
    /// the other (column `i`'s ends at `ends[i]`): for declared columns, shared by many
    /// rows (an entity's, a table scan's), not those made for one row (a dictionary's, an
    /// edited row's). One array, read in place: an array per key costs a retain per value.
    let jsonKeys: (text: [UInt8], ends: [Int])?

    /// Columns named `names`, in any order: a row built on them gives its values in that order.
    /// Named in ascending order (as `<` orders strings), a row keeps its values as given;
    /// otherwise each row is a rearranged copy of them.
    ///
    /// - Precondition: no name repeats.
    public init(_ names: [String]) {
      let order = names.indices.sorted { names[$0] < names[$1] }
      let sorted = order.map { names[$0] }
      precondition(zip(sorted, sorted.dropFirst()).allSatisfy { $0 != $1 }, "a column repeats in \(names)")
      self.names = sorted
      declaredIndexOfSorted = order == Array(names.indices) ? nil : order
      jsonKeys = Self.jsonKeys(sorted)
    }

    /// Columns whose names are sorted and distinct already.
    init(sortedNames: [String]) {
      names = sortedNames
      declaredIndexOfSorted = nil
      jsonKeys = nil
    }

    /// Whether these columns were declared to be shared by many rows (``init(_:)``), rather
    /// than made for one.
    var isShared: Bool { jsonKeys != nil }

    private static func jsonKeys(_ names: [String]) -> (text: [UInt8], ends: [Int]) {
      var (text, ends): ([UInt8], [Int]) = ([], [])
      for name in names {
        JSONText.appendString(name, to: &text)
        text.append(UInt8(ascii: ":"))
        ends.append(text.count)
      }
      return (text, ends)
    }

    /// The place of `name` among the columns: a row has a handful, compared in turn; past 16,
    /// a binary search.
    @inlinable
    public func index(of name: String) -> Int? {
      if names.count <= 16 { return names.firstIndex(of: name) }
      let low = names.partitioningIndex { $0 >= name }
      return low < names.count && names[low] == name ? low : nil
    }

    public static func == (lhs: Columns, rhs: Columns) -> Bool { lhs === rhs || lhs.names == rhs.names }

    public func hash(into hasher: inout Hasher) { hasher.combine(names) }
  }
}

extension RowImage {
  /// Takes the keys of many rows of one table: rows that share their ``Columns`` (a table
  /// scan's) give keys that share theirs, found once rather than once a row.
  struct KeyProjection {
    let keyColumns: [String]
    /// The columns of the last row seen, the key's columns for them (`nil`: the whole row is
    /// its key) and the places of the key's values among the row's.
    private var last: (row: Columns, key: Columns?, places: [Int])?

    init(keyColumns: [String]) { self.keyColumns = keyColumns }

    /// `row`'s key: ``RowImage/keeping(_:)`` of the key columns.
    mutating func key(of row: RowImage) -> RowImage {
      if last?.row !== row.storedColumns {
        let names = row.storedColumns.names
        let places = names.indices.filter { keyColumns.contains(names[$0]) }
        let key = places.count == names.count ? nil : Columns(sortedNames: places.map { names[$0] })
        last = (row.storedColumns, key, places)
      }
      guard let (_, key, places) = last, let key else { return row }
      return RowImage(columns: key, sortedValues: places.map { row.storedValues[$0] })
    }
  }

  /// The row with only `columns` (those it has).
  func keeping(_ columns: [String]) -> RowImage {
    let kept = indices.filter { columns.contains(self.columns.names[$0]) }
    if kept.count == count { return self }
    return RowImage(
      columns: Columns(sortedNames: kept.map { self.columns.names[$0] }), sortedValues: kept.map { values[$0] })
  }

  /// Images of the rows a statement reads, as the log holds them: the statement's columns are
  /// declared once for all the rows of a table scan (sorted, as any `Columns`), and shared by
  /// their images.
  struct Layout {
    let table: String
    private var columns: Columns?
    /// The statement's column names, in its order: the order of a row's values.
    private var statementNames: [String] = []

    init(table: String) { self.table = table }

    /// The image of `row`: every column, except the one
    /// `StateRows.columnOmittedWhenNull(in:)` names when it is NULL.
    mutating func image(of row: GRDB.Row) -> RowImage {
      let names = row.columnNames
      if columns == nil || !names.elementsEqual(statementNames) {
        statementNames = Array(names)
        columns = Columns(statementNames)
      }
      let image = RowImage(columns!, Array(row.databaseValues))
      if let omitted = StateRows.columnOmittedWhenNull(in: table), image[omitted] == .null {
        return image.setting(omitted, to: nil)
      }
      return image
    }
  }
}
