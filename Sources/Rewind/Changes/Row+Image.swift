import GRDB

extension Row {
  /// A row holding a row image (column → value), as `init(row:)` of a record decodes it.
  ///
  /// `mapValues` keeps the dictionary's layout, where the implicit conversion to GRDB's
  /// `[String: (any DatabaseValueConvertible)?]` rehashes every column: this is on the path of
  /// every entity change.
  @usableFromInline
  convenience init(image: [String: DatabaseValue]) {
    self.init(image.mapValues { $0 as (any DatabaseValueConvertible)? })
  }

  /// A row holding a row image, as `init(row:)` of a record decodes it.
  @usableFromInline
  convenience init(image: RowImage) {
    self.init(
      Dictionary(
        uniqueKeysWithValues: zip(image.columns.names, image.values.lazy.map { $0 as (any DatabaseValueConvertible)? }))
    )
  }
}
