import GRDB

/// The persisted parts of a state, and how each maps to tables.
///
/// - ``entities(_:)``: an ``EntityTable``, stored in the entity's own table.
/// - ``list(_:named:of:)``: an ``OrderedIDList``, stored as rows of `list_entries`.
/// - ``view(_:at:)``: a `Codable` view-state value, stored as rows of `view_state`, one per
///   top-level property, with its value as JSON.
/// - ``scope(_:viewPrefix:)``: a child state's own schema.
public struct StateSchema<Root> {
  let parts: [any StatePart<Root>]

  init(parts: [any StatePart<Root>]) { self.parts = parts }

  /// A schema made of the given parts.
  public init(_ parts: StateSchema...) { self.parts = parts.flatMap(\.parts) }

  /// The entity table at `keyPath`, stored in `Entity.databaseTableName`.
  ///
  /// - Parameter keyPath: the table in the state.
  public static func entities<E: Entity>(_ keyPath: WritableKeyPath<Root, EntityTable<E>>) -> Self {
    Self(parts: [EntityPart(keyPath: keyPath)])
  }

  /// The order list at `keyPath`, stored as `list_entries` rows named `name`.
  ///
  /// - Parameters:
  ///   - keyPath: the list in the state.
  ///   - name: the list's name in `list_entries.list`; unique in the database.
  ///   - entity: the entity kind whose ids the list orders.
  public static func list<E: Entity>(
    _ keyPath: WritableKeyPath<Root, OrderedIDList<E.ID>>, named name: String, of entity: E.Type
  ) -> Self {
    Self(parts: [ListPart(keyPath: keyPath, name: name, entityTable: E.databaseTableName)])
  }

  /// The view-state value at `keyPath`, stored as `view_state` rows.
  ///
  /// Each top-level property becomes one row whose path is the property's coding key, prefixed
  /// with `prefix` and a dot when a prefix is given. A property that encodes to nothing (an
  /// optional that is `nil`) has no row.
  ///
  /// - Parameters:
  ///   - keyPath: the view state in the state.
  ///   - prefix: prepended to its paths.
  public static func view<V: Codable & Equatable & Sendable>(
    _ keyPath: WritableKeyPath<Root, V>, at prefix: String = ""
  ) -> Self {
    Self(parts: [ViewPart(keyPath: keyPath, prefix: prefix)])
  }

  /// The child state at `keyPath`, persisted by its own schema.
  ///
  /// - Parameters:
  ///   - keyPath: the child state in the parent.
  ///   - viewPrefix: prepended to the child's view-state paths, so that two features' view
  ///     states cannot collide.
  public static func scope<Child: PersistentState>(
    _ keyPath: WritableKeyPath<Root, Child>, viewPrefix: String
  ) -> Self {
    Self(parts: Child.schema.parts.map { $0.pulledBack(along: keyPath, viewPrefix: viewPrefix) })
  }
}

/// One persisted part of a state: knows its rows, loads them, reports and applies changes.
protocol StatePart<Root> {
  associatedtype Root

  /// Creates the part's storage if needed and registers it for tools.
  func prepare(_ db: Database) throws
  /// Reads the part's rows into `root`.
  func load(_ db: Database, into root: inout Root) throws
  /// Appends the row changes the current action made to this part, and resets its tracking.
  func takeChanges(from root: inout Root, into changes: inout [RowChange]) throws
  /// Appends one inserted row per row this part holds in `root`.
  func rows(of root: Root, into changes: inout [RowChange]) throws
  /// How many rows this part holds in `root`. - Complexity: O(1).
  func rowCount(of root: Root) -> Int
  /// Whether `change` is a row of this part.
  func owns(_ change: RowChange) -> Bool
  /// Makes `root` reflect `change` in `direction`, without recording it as a change.
  func apply(_ change: RowChange, _ direction: ChangeDirection, to root: inout Root) throws
  /// The same part, reached from a parent state.
  func pulledBack<Parent>(
    along keyPath: WritableKeyPath<Parent, Root>, viewPrefix: String
  ) -> any StatePart<Parent>
}

extension StateSchema {
  func prepare(_ db: Database) throws {
    for part in parts { try part.prepare(db) }
  }

  func load(_ db: Database, into root: inout Root) throws {
    for part in parts { try part.load(db, into: &root) }
  }

  func takeChanges(from root: inout Root) throws -> [RowChange] {
    var changes: [RowChange] = []
    for part in parts { try part.takeChanges(from: &root, into: &changes) }
    return changes
  }

  func rowCount(of root: Root) -> Int {
    parts.reduce(0) { $0 + $1.rowCount(of: root) }
  }

  func rows(of root: Root) throws -> [RowChange] {
    var changes: [RowChange] = []
    for part in parts { try part.rows(of: root, into: &changes) }
    return changes
  }

  /// Makes `root` reflect `changes`; changes no part owns are an error.
  func apply(_ changes: [RowChange], _ direction: ChangeDirection, to root: inout Root) throws {
    for index in changes.indices {
      let change = changes[direction == .forward ? index : changes.count - 1 - index]
      guard let part = parts.first(where: { $0.owns(change) }) else {
        throw RewindError(
          .schemaMismatch, "a change to table \(change.table) matches no part of the app's state")
      }
      try part.apply(change, direction, to: &root)
    }
  }
}
