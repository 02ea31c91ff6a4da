import GRDB

extension Row {
  /// A row holding a row image, as `init(row:)` of a record decodes it.
  @usableFromInline
  convenience init(image: RowImage) {
    self.init(
      Dictionary(
        uniqueKeysWithValues: zip(image.columns.names, image.values.lazy.map { $0 as (any DatabaseValueConvertible)? }))
    )
  }
}
