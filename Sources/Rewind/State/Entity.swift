import Foundation
import GRDB

/// A kind of entity: a value stored once, by id, in its own table.
///
/// Conform a `Codable` struct, give it a table name and the SQL that creates the table. Its
/// stored properties become the table's columns (nested values are stored as JSON text).
///
/// ```swift
/// struct Note: Entity {
///   static let databaseTableName = "notes"
///   var id: Int64
///   var text: String
///
///   static func createTable(_ db: Database) throws {
///     try db.create(table: databaseTableName) { t in
///       t.primaryKey("id", .integer)
///       t.column("text", .text).notNull()
///     }
///   }
/// }
/// ```
///
/// Ids may be integers, strings or `UUID`s (or any `DatabaseValueConvertible` value). UUIDs
/// are stored as readable uppercase text, `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`, the form
/// `UUID.uuidString` and `Codable` give, so a key reads the same in the table, in order lists,
/// in the log's row images, in action payloads and in exports. An entity may choose GRDB's
/// other forms with `databaseUUIDEncodingStrategy(for:)` (`.deferredToUUID` stores 16-byte
/// blobs, `.lowercaseString` lowercase text): the engine then keys its rows, order lists and
/// log images in that form, so history stays exact.
public protocol Entity: Codable, Equatable, Identifiable, Sendable, FetchableRecord,
  EncodableRecord, TableRecord
where ID: Comparable & Codable & DatabaseValueConvertible & Sendable {
  /// The name of the primary-key column, `"id"` by default.
  static var keyColumn: String { get }

  /// Creates the entity's table. Called once, when a new database is set up.
  ///
  /// Foreign keys declared here (`t.belongsTo("project", onDelete: .cascade)`) are relations
  /// the engine keeps: see <doc:ModelingState>.
  static func createTable(_ db: Database) throws

  /// The entity's row: each column's value, as its table stores it.
  ///
  /// The default is GRDB's encoding of the record (`databaseDictionary`: what `encode(to:)`
  /// writes, with the entity's date, UUID and JSON strategies), and the default
  /// ``databaseRowImage()``, the row the engine takes of every entity an action changes (before
  /// and after; the log holds both), is built from it. An entity on a hot path implements
  /// ``databaseRowImage()`` instead: the same columns, with the values `init(row:)` reads back.
  func databaseRow() throws -> [String: DatabaseValue]

  /// The entity's row as an image: its columns and their values, as its table stores them.
  ///
  /// The engine takes this row of every entity an action changes. The default is the image of
  /// ``databaseRow()``, whose columns are sorted on every call. An entity on a hot path names
  /// its columns once, in a shared ``RowImage/Columns``, and gives its values in their order:
  /// no dictionary is built or sorted, and the log and the table writer use the columns as
  /// they are (about 3,000 instructions less for each row of five columns). Columns named in
  /// ascending order (as `<` orders strings) also spare each image a rearranged copy of its
  /// values (another 900 instructions):
  ///
  /// ```swift
  /// static let columns = RowImage.Columns(["id", "isPinned", "text"])
  /// func databaseRowImage() -> RowImage {
  ///   RowImage(Self.columns, [id.databaseValue, isPinned.databaseValue, text.databaseValue])
  /// }
  /// ```
  func databaseRowImage() throws -> RowImage

  /// Whether `init(row:)` always reads the entity's row (``databaseRowImage()``) back as the entity it was built from:
  /// `false` unless the entity says so.
  ///
  /// After every change the engine reads the entity's new row back (about 14,000 instructions
  /// for a row of five columns, most of them GRDB's column look-ups by name), so that memory
  /// holds what a reload would give: a `Date` stored to the millisecond, for one, reads back as
  /// another value, which memory then takes. An entity whose row holds its values exactly
  /// (integers, strings, booleans, and optionals of them, written and read by the same columns)
  /// may return `true`. Release builds then skip the read-back. Debug builds still read every
  /// row back, and refuse the action (with ``RewindError/Code/invalidValue``, nothing written)
  /// when the entity reads back as another value, so the claim is tested wherever the app's
  /// tests change entities. The claim covers the row as a whole: every column `init(row:)`
  /// reads is in the row, with a value it decodes. A release build trusts it: a row missing a
  /// column would update only the columns it has, and one `init(row:)` (or
  /// ``init(orderedRow:)``) cannot decode would make the file fail to open. ("Debug builds"
  /// are those of the Rewind module, which SwiftPM builds with the app's configuration.)
  static var databaseRowRoundTripsExactly: Bool { get }

  /// Every column of the entity's table, once, in the order ``init(orderedRow:)`` reads them;
  /// `nil` (the default) when the entity reads its rows by name only, through `init(row:)`.
  ///
  /// An order that leaves out a column of the table, or names one it does not have, is
  /// refused when a store opens the file (``RewindError/Code/schemaMismatch``): a migration
  /// that adds a column must add it here too.
  static var databaseColumnOrder: [String]? { get }

  /// Decodes an entity from a row of exactly the columns ``databaseColumnOrder`` names, in
  /// that order, so that it can read each by position (`row.decode(atIndex: 0)`). The default
  /// calls `init(row:)`.
  ///
  /// A store reads every row of the table through it when it opens. GRDB finds a column by its
  /// name with a hash of the name, once for each column of each row: at a million rows of five
  /// columns, about a tenth of an open's time. An entity that names its columns once reads
  /// them by position instead:
  ///
  /// ```swift
  /// static let databaseColumnOrder: [String]? = ["id", "text"]
  /// init(orderedRow row: Row) throws {
  ///   id = try row.decode(atIndex: 0)
  ///   text = try row.decode(atIndex: 1)
  /// }
  /// ```
  ///
  /// Debug builds also read the first rows of the table by name, through `init(row:)`, and
  /// refuse to open the file (``RewindError/Code/invalidValue``) when one reads otherwise by
  /// position: a column order that does not match the initializer is found by the app's tests
  /// that reopen a file, as long as the swapped columns hold different values there.
  init(orderedRow row: Row) throws
}

extension Entity {
  public static var keyColumn: String { "id" }

  public func databaseRow() throws -> [String: DatabaseValue] { try databaseDictionary }

  public func databaseRowImage() throws -> RowImage { RowImage(try databaseRow()) }

  /// The encoder of values the entity stores as JSON text (a nested struct, an array, a set):
  /// GRDB's default, except that a set, or a dictionary whose keys are not strings or
  /// integers, is written in one order, its elements sorted by their JSON text. In its own
  /// order, which changes from one process to the next, equal sets were written as different
  /// texts, and the log's image of a row differed from the table's.
  public static func databaseJSONEncoder(for column: String) -> JSONEncoder {
    let encoder = CanonicalJSONEncoder()
    encoder.column = column
    encoder.valuesUserInfo = databaseEncodingUserInfo
    return encoder
  }

  public static var databaseRowRoundTripsExactly: Bool { false }

  public static var databaseColumnOrder: [String]? { nil }

  public init(orderedRow row: Row) throws { try self.init(row: row) }

  /// Readable uppercase text: the form `Codable` gives a `UUID`, so keys read the same in
  /// tables, logs, payloads and exports. (GRDB's own default is a 16-byte blob.)
  public static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy {
    .uppercaseString
  }

  /// The value an id is stored as in this entity's key column, in order lists and in the log.
  @usableFromInline
  static func keyValue(of id: ID) -> DatabaseValue {
    // The type compared first: a cast that fails (an integer id) cost about 160 instructions
    // on every changed entity and list entry.
    guard ID.self == UUID.self, let uuid = id as? UUID else { return id.databaseValue }
    switch databaseUUIDEncodingStrategy(for: keyColumn) {
    case .deferredToUUID: return uuid.databaseValue
    case .uppercaseString: return uuid.keyText(lowercase: false).databaseValue
    case .lowercaseString: return uuid.keyText(lowercase: true).databaseValue
    }
  }
}
