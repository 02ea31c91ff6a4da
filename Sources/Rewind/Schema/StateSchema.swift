import GRDB

/// The persisted parts of a state, and how each maps to tables.
///
/// - ``entities(_:)``: an ``EntityTable``, stored in the entity's own table.
/// - ``list(_:named:of:)``: an ``OrderedIDList``, stored as rows of `list_entries`.
/// - ``lists(_:named:of:ownedBy:)``: an ``OrderedIDLists`` family, one list per owner, stored
///   as rows of `list_entries` that carry the owner.
/// - ``view(_:at:)``: a `Codable` view-state value, stored as rows of `view_state`, one per
///   top-level property, with its value as JSON.
/// - ``scope(_:viewPrefix:)``: a child state's own schema.
public struct StateSchema<Root> {
  /// The parts, with what every action and every open runs for each (see ``CompiledParts``).
  @usableFromInline
  let compiled: CompiledParts<Root>
  /// Each part, with what every action and every open runs for it, compiled where the part
  /// was declared (see ``SpecializedPart``).
  @usableFromInline
  var specialized: [SpecializedPart<Root>] { compiled.specialized }
  /// The parts, in declaration order.
  var parts: [any StatePart<Root>] { compiled.parts }
  /// The app's migrations, oldest first (see ``migrations(_:)``).
  var migrations: [SchemaMigration] = []
  /// The `repairViewState()` of each child state included with ``scope(_:viewPrefix:)``
  /// (and of theirs), run before the root's own: a feature repairs its view state wherever it
  /// is composed.
  @usableFromInline
  var childRepairs: [(inout Root) -> Void] = []

  /// A schema of one part, its hot paths compiled here.
  ///
  /// Inlined into the app's module by the factories below (`entities`, `list`, ...), where the
  /// part's type is concrete: the part's `load` and `takeChanges` are specialized there.
  @inlinable
  init<Part: StatePart>(_ part: Part) where Part.Root == Root {
    self.init(specialized: [SpecializedPart(part)])
  }

  @usableFromInline
  init(specialized: [SpecializedPart<Root>]) {
    compiled = CompiledParts(specialized)
  }

  /// A schema made of the given parts.
  public init(_ parts: StateSchema...) {
    self.init(specialized: parts.flatMap(\.specialized))
    childRepairs = parts.flatMap(\.childRepairs)
  }

  /// The same schema, with parts of its own for one store: a part that remembers what it last
  /// wrote (a view state's rows) is a new instance, so that two stores never share that memory,
  /// even when the app keeps its schema in a stored property.
  func renewed() -> Self {
    var schema = Self(specialized: specialized.map { $0.renewed() })
    schema.migrations = migrations
    schema.childRepairs = childRepairs
    return schema
  }

  /// The entity table at `keyPath`, stored in `Entity.databaseTableName`.
  ///
  /// - Parameter keyPath: the table in the state.
  @inlinable
  public static func entities<E: Entity>(_ keyPath: WritableKeyPath<Root, EntityTable<E>>) -> Self {
    Self(EntityPart(keyPath: keyPath))
  }

  /// The order list at `keyPath`, stored as `list_entries` rows named `name`.
  ///
  /// - Parameters:
  ///   - keyPath: the list in the state.
  ///   - name: the list's name in `list_entries.list`; unique in the database.
  ///   - entity: the entity kind whose ids the list orders.
  @inlinable
  public static func list<E: Entity>(
    _ keyPath: WritableKeyPath<Root, OrderedIDList<E.ID>>, named name: String, of entity: E.Type
  ) -> Self {
    Self(ListPart(keyPath: keyPath, name: name, entityTable: E.databaseTableName, keyValue: E.keyValue(of:)))
  }

  /// The family of order lists at `keyPath`, one list per owner, stored as `list_entries` rows
  /// named `name` that carry their owner's id.
  ///
  /// ```swift
  /// .lists(\.projectTasks, named: "projectTasks", of: TaskItem.self, ownedBy: Project.self)
  /// ```
  ///
  /// Deleting an owner deletes its list, and a deleted child leaves its list, in the same log
  /// entry; undo brings both back.
  ///
  /// - Parameters:
  ///   - keyPath: the family in the state.
  ///   - name: the family's name in `list_entries.list`; unique in the database.
  ///   - entity: the entity kind whose ids the lists order.
  ///   - owner: the entity kind whose rows own one list each.
  @inlinable
  public static func lists<E: Entity, O: Entity>(
    _ keyPath: WritableKeyPath<Root, OrderedIDLists<O.ID, E.ID>>, named name: String, of entity: E.Type,
    ownedBy owner: O.Type
  ) -> Self {
    Self(
      KeyedListPart(
        keyPath: keyPath, name: name, entityTable: E.databaseTableName, ownerTable: O.databaseTableName,
        keyValue: E.keyValue(of:), ownerValue: O.keyValue(of:)))
  }

  /// The view-state value at `keyPath`, stored as `view_state` rows.
  ///
  /// Each top-level property becomes one row whose path is the property's coding key, prefixed
  /// with `prefix` and a dot when a prefix is given. A property that encodes to nothing (an
  /// optional that is `nil`) has no row.
  ///
  /// What changed is found with `==`: the value, and each property, is encoded again only when
  /// it is not equal to the one last written, so `==` must tell apart any two values the app
  /// needs stored differently.
  ///
  /// - Parameters:
  ///   - keyPath: the view state in the state.
  ///   - prefix: prepended to its paths.
  @inlinable
  public static func view<V: Codable & Equatable & Sendable>(
    _ keyPath: WritableKeyPath<Root, V>, at prefix: String = ""
  ) -> Self {
    Self(ViewPart(keyPath: keyPath, prefix: prefix, listed: nil))
  }

  /// The view-state value at `keyPath`, which lists its properties (``ViewStateProperties``):
  /// stored as `view_state` rows as any view state is, its changes found from the list.
  ///
  /// - Parameters:
  ///   - keyPath: the view state in the state.
  ///   - prefix: prepended to its paths.
  @inlinable
  public static func view<V: Codable & Equatable & Sendable & ViewStateProperties>(
    _ keyPath: WritableKeyPath<Root, V>, at prefix: String = ""
  ) -> Self {
    Self(ViewPart(keyPath: keyPath, prefix: prefix, listed: V.viewProperties))
  }

  /// The child state at `keyPath`, persisted by its own schema.
  ///
  /// - Parameters:
  ///   - keyPath: the child state in the parent.
  ///   - viewPrefix: prepended to the child's view-state paths, so that two features' view
  ///     states cannot collide.
  ///
  /// Inlined into the app's module, as the other factories are: the scoped parts' per-action
  /// code is specialized there for the parent's and the child's types.
  @inlinable
  public static func scope<Child: PersistentState>(
    _ keyPath: WritableKeyPath<Root, Child>, viewPrefix: String
  ) -> Self {
    // Each of the child's parts runs as the child's schema compiled it (see ``ScopedPart``),
    // a new instance with its view-state paths under the prefix (view parts keep what they
    // last wrote).
    var schema = Self(
      specialized: Child.schema.specialized.map { SpecializedPart(ScopedPart($0.prefixed(viewPrefix), at: keyPath)) })
    schema.childRepairs =
      Child.schema.childRepairs.map { repair in { root in repair(&root[keyPath: keyPath]) } }
      + [{ root in root[keyPath: keyPath].repairViewState() }]
    return schema
  }
}

/// A schema's parts, and every part's `takeChanges` composed into one closure, in declaration
/// order: every action calls it. Going through the array instead looked up the metadata of
/// `SpecializedPart<Root>` on every send (the store's code is generic over the state).
///
/// A class, so that the schema stays a struct of a few references: a schema with one more
/// stored property was copied, through its generic value witnesses, on every send.
@usableFromInline
final class CompiledParts<Root> {
  @usableFromInline
  let specialized: [SpecializedPart<Root>]
  let parts: [any StatePart<Root>]
  let takeChanges: (inout Root, inout [RowChange]) throws -> Void

  init(_ specialized: [SpecializedPart<Root>]) {
    self.specialized = specialized
    parts = specialized.map(\.part)
    // A loop rather than `reduce`, `??` or an array of closures: a closure passed through
    // generic code is wrapped in reabstraction thunks, two more calls at each part on every send.
    var all: (inout Root, inout [RowChange]) throws -> Void = { _, _ in }
    if let first = specialized.first { all = first.takeChanges }
    for part in specialized.dropFirst() {
      let (before, next) = (all, part.takeChanges)
      all = { root, changes in
        try before(&root, &changes)
        try next(&root, &changes)
      }
    }
    takeChanges = all
  }
}

/// The entry points of a part that the store runs on every action (`takeChanges`) and every
/// open (`load`), as closures.
///
/// Parts are held as `any StatePart`, and a generic part's methods called through the
/// existential run as unspecialized generic code: every dictionary access looks up type
/// metadata, several times the work of the access. These closures are built by the schema's
/// factories, which are inlined into the app's module where the part's entity and id types
/// are concrete, so the compiler specializes the part's (inlinable) methods there.
///
/// A class: every action takes each part out of the schema's array, in code generic over the
/// state, where copying a struct of an existential and three closures runs through its value
/// witnesses (eight copies and destroys an action); a reference is retained.
@usableFromInline
final class SpecializedPart<Root> {
  @usableFromInline
  let part: any StatePart<Root>
  @usableFromInline
  let load: (Database) throws -> (inout Root) -> Void
  @usableFromInline
  let takeChanges: (inout Root, inout [RowChange]) throws -> Void
  @usableFromInline
  let hasChanges: (inout Root) -> Bool
  /// The part's ``StatePart/idTest(in:)`` and ``StatePart/danglingReference(in:idTests:)``,
  /// run at every open over every list entry.
  @usableFromInline
  let idTest: (Root) -> Any?
  @usableFromInline
  let danglingReference: (Root, [String: Any]) -> String?
  /// The same, for the part's renewed instance (see ``StatePart/renewed()``).
  @usableFromInline
  let renewed: () -> SpecializedPart<Root>
  /// The same, for the part with its view-state paths under a prefix (see
  /// ``StatePart/withViewPrefix(_:)``): how a scope takes the child's parts.
  @usableFromInline
  let prefixed: (String) -> SpecializedPart<Root>

  @inlinable
  convenience init<Part: StatePart>(_ part: Part) where Part.Root == Root {
    self.init(
      part: part,
      load: { db in try part.load(db) },
      takeChanges: { root, changes in try part.takeChanges(from: &root, into: &changes) },
      hasChanges: { root in part.hasChanges(in: &root) },
      idTest: { root in part.idTest(in: root) },
      danglingReference: { root, idTests in part.danglingReference(in: root, idTests: idTests) },
      renewed: { SpecializedPart(part.renewed()) },
      prefixed: { SpecializedPart(part.withViewPrefix($0)) })
  }

  @usableFromInline
  init(
    part: any StatePart<Root>,
    load: @escaping (Database) throws -> (inout Root) -> Void,
    takeChanges: @escaping (inout Root, inout [RowChange]) throws -> Void,
    hasChanges: @escaping (inout Root) -> Bool,
    idTest: @escaping (Root) -> Any?,
    danglingReference: @escaping (Root, [String: Any]) -> String?,
    renewed: @escaping () -> SpecializedPart<Root>,
    prefixed: @escaping (String) -> SpecializedPart<Root>
  ) {
    self.part = part
    self.load = load
    self.takeChanges = takeChanges
    self.hasChanges = hasChanges
    self.idTest = idTest
    self.danglingReference = danglingReference
    self.renewed = renewed
    self.prefixed = prefixed
  }
}

/// One persisted part of a state: knows its rows, loads them, reports and applies changes.
@usableFromInline
protocol StatePart<Root> {
  associatedtype Root

  /// Takes what the part needs from the state the store opens with (view defaults).
  func takeDefaults(from initial: Root) throws
  /// Creates the part's storage in a new database (or for a part new to an existing one),
  /// checks it, and registers it for tools.
  func setUp(_ db: Database) throws
  /// Registers the part's storage for tools if it exists, creating nothing: after an app
  /// migration's own code made it.
  func registerIfPresent(_ db: Database) throws
  /// The entity table the part stores its rows in, if it is an entity part.
  var declaredEntityTable: String? { get }
  /// The rows the part owns in the file: no two parts of a schema may own the same.
  var storage: PartStorage { get }
  /// The part for another store: itself when it keeps nothing per store, else a new instance.
  func renewed() -> Self
  /// Reads and decodes the part's rows; the update it returns replaces what `root` holds for
  /// the part, and cannot fail.
  func load(_ db: Database) throws -> (inout Root) -> Void
  /// A test of whether an id names an entity of this part in `root`, as a `(ID) -> Bool`, for
  /// the lists that refer to its table; `nil` for a part of another kind.
  func idTest(in root: Root) -> Any?
  /// The first reference of this part's rows in `root` (a list's ids, a keyed list's owners)
  /// to an entity that `root` does not hold, described; `nil` when every one holds. `idTests`
  /// are the entity parts' ``idTest(in:)``s, by table.
  func danglingReference(in root: Root, idTests: [String: Any]) -> String?
  /// Whether ``takeChanges(from:into:)`` has anything to take: a read (`root` is `inout` only
  /// to be read in place), so that a part with nothing to take never writes through its path
  /// (which would run a computed property's setter, or a stored one's observers).
  func hasChanges(in root: inout Root) -> Bool
  /// Appends the row changes the current action made to this part, and resets its tracking.
  func takeChanges(from root: inout Root, into changes: inout [RowChange]) throws
  /// Appends one inserted row per row this part holds in `root`.
  func rows(of root: Root, into batches: inout RowBatches) throws
  /// How many rows this part holds in `root`. - Complexity: O(1).
  func rowCount(of root: Root) -> Int
  /// Whether `change` is a row of this part.
  func owns(_ change: RowChange) -> Bool
  /// Whether `change`, a row of this part, leaves the value the part loads as it is: a
  /// view-state row going between holding its property's default and not being there, which
  /// loads as the default.
  func leavesValueAsIs(_ change: RowChange) -> Bool
  /// Decodes `changes` (this part's, in the order to apply them) into an update of `root` that
  /// makes each row what `direction` selects. Throws if a row does not decode; the update
  /// itself cannot fail, so memory is never left half-changed.
  func prepare(_ changes: [RowChange], _ direction: ChangeDirection) throws -> (inout Root) -> Void
  /// The same part for a child state included under `viewPrefix`: its view-state paths are
  /// `viewPrefix.prefix.property`, and it is a new instance if it keeps what it wrote.
  func withViewPrefix(_ viewPrefix: String) -> Self
}

/// The rows a part owns in the file.
@usableFromInline
enum PartStorage: Hashable {
  /// Every row of an entity table.
  case entityTable(String)
  /// The `list_entries` rows of one list, or of one family of lists.
  case list(String)
  /// The `view_state` rows whose paths are `prefix.property` (`property` at the root).
  case viewState(prefix: String)

  var description: String {
    switch self {
    case .entityTable(let table): "the table \(table)"
    case .list(let name): "list_entries list \"\(name)\""
    case .viewState(let prefix): prefix.isEmpty ? "view_state paths at the root" : "view_state paths \"\(prefix).*\""
    }
  }

  /// What tells two such parts apart.
  var remedy: String {
    switch self {
    case .entityTable: "give each table its own entity type (its own databaseTableName)"
    case .list: "give each list its own name"
    case .viewState: "give each view state its own prefix (`.view(_:at:)`, `.scope(_:viewPrefix:)`)"
    }
  }
}

/// Row changes decoded for an in-memory state: applying them cannot fail.
extension StatePart {
  @usableFromInline
  func idTest(in root: Root) -> Any? { nil }
  /// Every row of an entity table or a list is part of the value it loads as.
  @usableFromInline
  func leavesValueAsIs(_ change: RowChange) -> Bool { false }
  /// A part with no view state is the same under any prefix (each store renews its parts).
  @usableFromInline
  func withViewPrefix(_ viewPrefix: String) -> Self { self }
  @usableFromInline
  func danglingReference(in root: Root, idTests: [String: Any]) -> String? { nil }
}

struct PreparedChanges<Root> {
  fileprivate var updates: [(inout Root) -> Void] = []

  func apply(to root: inout Root) {
    for update in updates { update(&root) }
  }
}

extension StateSchema {
  /// Throws unless every part owns rows of its own: two parts writing the same rows would make
  /// one set of them in the file, and a reopened state would differ from memory.
  func checkPartsAreDistinct() throws {
    var owners: [PartStorage: Int] = [:]
    for (index, part) in parts.enumerated() {
      let storage = part.storage
      // A prefix is joined to its paths with a dot: one at either end, or two in a row, would
      // make paths such as `list..search` that another prefix may also produce.
      if case .viewState(let prefix) = storage, !prefix.isEmpty,
        prefix.hasPrefix(".") || prefix.hasSuffix(".") || prefix.contains("..")
      {
        throw RewindError(
          .schemaMismatch,
          "\(Root.self)'s schema gives part \(index + 1) the view prefix \"\(prefix)\", which starts or ends with a dot or has two in a row: the engine joins a prefix to its paths with one dot; give \"\(prefix.split(separator: ".").joined(separator: "."))\""
        )
      }
      if let first = owners[storage] {
        throw RewindError(
          .schemaMismatch,
          "\(Root.self)'s schema stores two parts in \(storage.description) (parts \(first + 1) and \(index + 1), scopes counted by their parts): their rows would be one set in the file, and the state would reopen different from memory; \(storage.remedy)"
        )
      }
      owners[storage] = index
    }
  }

  /// Takes the defaults from `initial`, then creates, checks and registers the parts' tables.
  ///
  /// Parts are set up in declaration order, except that a part whose setup fails is tried
  /// again once the others are done: a table that refers to another (`belongsTo`) can be
  /// declared before it. Each attempt runs in a savepoint, so a failed one leaves nothing.
  func setUp(_ db: Database, initial: Root) throws {
    try takeDefaults(from: initial)
    var remaining = parts
    while !remaining.isEmpty {
      var failed: [(part: any StatePart<Root>, error: any Error)] = []
      for part in remaining {
        do {
          try db.inSavepoint {
            try part.setUp(db)
            return .commit
          }
        } catch {
          failed.append((part, error))
        }
      }
      // No progress: the first failure is the one to report.
      if failed.count == remaining.count { throw failed[0].error }
      remaining = failed.map(\.part)
    }
  }

  func takeDefaults(from initial: Root) throws {
    for part in parts { try part.takeDefaults(from: initial) }
  }

  /// Reads the whole persisted state: every part is read and decoded before any is applied,
  /// so a failure leaves the in-memory state as it was.
  func load(_ db: Database) throws -> PreparedChanges<Root> {
    PreparedChanges(updates: try specialized.map { try $0.load(db) })
  }

  /// `root` with the whole persisted state read in, refused if an order list names an entity
  /// the file does not hold.
  ///
  /// Every commit keeps lists and tables in step, so a list naming a missing row is a table
  /// changed behind the engine's back (a row deleted with `sqlite3`). Opening it would let the
  /// app write history over it: a new entity taking the missing one's id would join the list
  /// in its place. Checked in memory, in each part's specialized code: a bit test where the
  /// ids are `Int64` or `Int` close together (`DenseIntegerIDs`), else a hash look-up per list
  /// entry.
  func loaded(_ db: Database, onto root: Root) throws -> Root {
    var loaded = root
    try load(db).apply(to: &loaded)
    var idTests: [String: Any] = [:]
    for part in specialized {
      if let table = part.part.declaredEntityTable, let test = part.idTest(loaded) { idTests[table] = test }
    }
    for part in specialized {
      if let reference = part.danglingReference(loaded, idTests) {
        throw RewindError(
          .corruptData,
          "list_entries: \(reference), which does not exist (was the table changed by hand?); `rewind verify` lists the damage, and `rewind rebuild-tables` puts back the rows the log holds (if the log itself is sound; otherwise restore the file from a backup)"
        )
      }
    }
    return loaded
  }

  func takeChanges(from root: inout Root) throws -> [RowChange] {
    var changes: [RowChange] = []
    try compiled.takeChanges(&root, &changes)
    return changes
  }

  func rowCount(of root: Root) -> Int {
    parts.reduce(0) { $0 + $1.rowCount(of: root) }
  }

  /// The rows of `root` as a new file holds them, handed to `body` in batches of at most
  /// `batchSize`, so that they are never all in memory at once.
  func rows(
    of root: Root, batchSize: Int, depth: (String) -> Int, _ body: ([RowChange]) throws -> Void
  ) throws {
    // Entity tables first, parents before the tables that refer to them, then order lists and
    // view state: no batch refers to a row that a later one writes.
    let ordered = parts.enumerated().sorted { a, b in
      func rank(_ part: any StatePart<Root>, _ index: Int) -> (Int, Int, Int) {
        guard let table = part.declaredEntityTable else { return (1, 0, index) }
        return (0, depth(table), index)
      }
      return rank(a.element, a.offset) < rank(b.element, b.offset)
    }
    try withoutActuallyEscaping(body) { body in
      var batches = RowBatches(size: batchSize, flush: body)
      for (_, part) in ordered { try part.rows(of: root, into: &batches) }
      try batches.finishBatch()
    }
  }

  /// Decodes `changes` for the in-memory state, each row becoming what `direction` selects.
  ///
  /// Rows no part owns (a table or view path this app does not declare) are not part of the
  /// in-memory state, as when loading, and are left out.
  func prepare(_ changes: [RowChange], _ direction: ChangeDirection) throws -> PreparedChanges<Root> {
    // Parts never share rows, so each part applies its own changes, in order, on its own.
    var byPart = Array(repeating: [RowChange](), count: parts.count)
    for index in changes.indices {
      let change = changes[direction == .forward ? index : changes.count - 1 - index]
      if let part = parts.firstIndex(where: { $0.owns(change) }) { byPart[part].append(change) }
    }
    var prepared = PreparedChanges<Root>()
    for (part, changes) in zip(parts, byPart) where !changes.isEmpty {
      prepared.updates.append(try part.prepare(changes, direction))
    }
    return prepared
  }

  /// Whether applying `changes` would leave the in-memory state as it is: each is a row a part
  /// loads as the same value either way (see ``StatePart/leavesValueAsIs(_:)``). Rows no part
  /// owns count as changes: they are part of the file, which the tools read.
  func leaveStateAsIs(_ changes: [RowChange]) -> Bool {
    changes.allSatisfy { change in parts.first { $0.owns(change) }?.leavesValueAsIs(change) ?? false }
  }

  /// Makes `root` reflect `changes`: all of them, or (if one does not decode) none.
  func apply(_ changes: [RowChange], _ direction: ChangeDirection, to root: inout Root) throws {
    try prepare(changes, direction).apply(to: &root)
  }
}

extension StateSchema where Root: PersistentState {
  /// Repairs `root`'s view state: each feature's included with ``scope(_:viewPrefix:)`` (the
  /// innermost first), then the root's own.
  func repairViewState(of root: inout Root) {
    for repair in childRepairs { repair(&root) }
    root.repairViewState()
  }
}
