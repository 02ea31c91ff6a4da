import GRDB

/// Entities of one kind, stored by id: the entity half of normalized state.
///
/// Reads and writes are O(1). The table remembers, for the action in progress, what each
/// touched entity looked like before, so the engine writes only the rows that changed and
/// never has to compare whole copies of the state.
///
/// ```swift
/// state.tasks[id]?.title = "Buy milk"     // changes one row
/// state.tasks.insert(Task(id: 3, title: "Call Bob"))
/// state.tasks.remove(id: 1)
/// ```
public struct EntityTable<Entity: Rewind.Entity>: Sendable {
  @usableFromInline var storage: [Entity.ID: Entity] = [:]
  /// Entities as they were before the action in progress touched them (`nil`: absent).
  @usableFromInline var pending: [Entity.ID: Entity?] = [:]
  /// The largest id stored since the table was created or loaded, for ``nextID``.
  @usableFromInline var largestID: Entity.ID?

  /// Creates an empty table.
  public init() {}

  /// Creates a table holding `entities`.
  public init(_ entities: some Sequence<Entity>) {
    for entity in entities { storage[entity.id] = entity }
    largestID = storage.keys.max()
  }

  /// Reads the entities `rows` decode to, through `decode`, and stores them into a table on a
  /// queue of the build's (``BackgroundBuild``), a batch at a time, while the next batch is read
  /// and decoded. `count` of them are expected (an estimate: it reserves space).
  @inlinable
  static func build(
    loading rows: RowCursor, count: Int, _ decode: (Row) throws -> Entity
  ) throws -> BackgroundBuild<Self, Entity> {
    typealias Build = BackgroundBuild<Self, Entity>
    var table = Self()
    table.storage.reserveCapacity(count)
    let build = Build(table) { table, batch in table.storeLoaded(&batch) }
    // Stored in batches: each store into a large table is a cache miss, and the atomic
    // operations of reading a row (a retain, an allocation's lock) wait for the stores before
    // them, one miss at a time; a batch's stores, with nothing atomic between them, miss
    // together, on the build's thread while this one reads.
    var batch: [Entity] = []
    batch.reserveCapacity(min(count, Build.batchSize))
    while let row = try rows.next() {
      batch.append(try decode(row))
      if batch.count == Build.batchSize { build.add(&batch) }
    }
    build.end(&batch)
    return build
  }

  /// Stores and empties `batch`, in its order: of two rows whose ids are equal in Swift but not
  /// in SQLite (strings that differ only in Unicode normalization), the one read last is kept,
  /// wherever the batches fall.
  @inlinable
  mutating func storeLoaded(_ batch: inout [Entity]) {
    // Moved, not copied: each copy of an entity retains its strings, and the release of the
    // copy left behind is an atomic operation per string (a few percent of opening). Reversed
    // in place (swaps, nothing retained) so that popping takes them in order.
    batch.reverse()
    while let entity = batch.popLast() {
      let id = entity.id
      if isBeyondLargest(id) { largestID = id }
      storage[id] = consume entity
    }
  }

  /// The number of entities.
  @inlinable
  public var count: Int { storage.count }

  /// Whether there are no entities.
  @inlinable
  public var isEmpty: Bool { storage.isEmpty }

  /// The ids, in no particular order.
  @inlinable
  public var ids: Dictionary<Entity.ID, Entity>.Keys { storage.keys }

  /// The entities, in no particular order.
  @inlinable
  public var values: Dictionary<Entity.ID, Entity>.Values { storage.values }

  /// Whether an entity with `id` exists. - Complexity: O(1).
  @inlinable
  public func contains(id: Entity.ID) -> Bool { storage.index(forKey: id) != nil }  // no copy of the entity

  /// The entity with `id`, or `nil`. Setting `nil` removes it. - Complexity: O(1).
  @inlinable
  public subscript(id: Entity.ID) -> Entity? {
    get { storage[id] }
    set {
      recordBefore(id)
      store(newValue, for: id)
    }
    _modify {
      recordBefore(id)
      // In place: one look-up, where taking the entity out and storing it back hashed twice
      // and moved the table's other entries.
      // An entity given another id here is refused when the action's changes are taken.
      defer {
        // An id beyond the largest is rare (an insert): only then is the table looked at.
        if isBeyondLargest(id), storage.index(forKey: id) != nil { largestID = id }
      }
      yield &storage[id]
    }
  }

  /// Inserts `entity`, replacing any entity with the same id.
  @inlinable
  public mutating func insert(_ entity: Entity) {
    self[entity.id] = entity
  }

  /// Removes the entity with `id` and returns it.
  @inlinable
  @discardableResult
  public mutating func remove(id: Entity.ID) -> Entity? {
    guard let entity = storage[id] else { return nil }
    self[id] = nil
    return entity
  }

  // MARK: - Engine access (no tracking)

  /// Sets or removes an entity without recording a change (loading, undo, rollback).
  @inlinable
  mutating func set(_ entity: Entity?, for id: Entity.ID) {
    store(entity, for: id)
  }

  /// Whether the current action touched any entity (possibly leaving it as it was).
  @inlinable
  var hasPendingChanges: Bool { !pending.isEmpty }

  /// The entities the current action touched, each with its value before the action (the
  /// value now is ``storage``'s), taken out of the table whole, with no copy: tracking starts
  /// over. Give it back to ``reuseTouched(_:)`` once read.
  @inlinable
  mutating func takeTouched() -> [Entity.ID: Entity?] {
    var touched: [Entity.ID: Entity?] = [:]
    swap(&touched, &pending)
    return touched
  }

  /// Keeps the table ``takeTouched()`` gave, emptied, for the next action: most actions touch
  /// an entity or two, and their small table is reused rather than freed and allocated again.
  @inlinable
  mutating func reuseTouched(_ touched: inout [Entity.ID: Entity?]) {
    guard pending.isEmpty, touched.capacity <= 16 else { return }
    touched.removeAll(keepingCapacity: true)
    swap(&touched, &pending)
  }

  @inlinable
  mutating func recordBefore(_ id: Entity.ID) {
    if pending.index(forKey: id) == nil { pending[id] = .some(storage[id]) }
  }

  @inlinable
  mutating func store(_ entity: Entity?, for id: Entity.ID) {
    if let entity {
      // One stored under another id than its own is refused when the action's changes are taken.
      storage[id] = entity
      if isBeyondLargest(id) { largestID = id }
    } else {
      storage[id] = nil
    }
  }

  /// Whether `id` is beyond the largest id stored so far (``largestID``).
  @inlinable
  func isBeyondLargest(_ id: Entity.ID) -> Bool { largestID.map { id > $0 } ?? true }
}

extension EntityTable where Entity.ID: FixedWidthInteger {
  /// One past the largest id stored since the table was created or loaded: within one run, a
  /// deleted entity's id is not given out again; after reopening, ids continue from the largest
  /// one present.
  ///
  /// Once the largest possible id is taken (a file can hold it), the smallest free positive id
  /// is given instead. - Complexity: O(1); O(n) in that case.
  @inlinable
  public var nextID: Entity.ID {
    let (next, overflow) = (largestID ?? 0).addingReportingOverflow(1)
    guard overflow else { return next }
    var candidate: Entity.ID = 1
    while storage[candidate] != nil, candidate < .max { candidate += 1 }
    return candidate
  }
}

extension EntityTable: Equatable {
  /// Two tables are equal when they hold the same entities.
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.storage == rhs.storage }
}

extension EntityTable: Codable {
  /// Encodes the entities as a JSON array sorted by id.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(storage.keys.sorted().map { storage[$0]! })
  }

  /// Decodes an array of entities; duplicate ids are an error.
  public init(from decoder: any Decoder) throws {
    let entities = try decoder.singleValueContainer().decode([Entity].self)
    self.init(entities)
    guard count == entities.count else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "duplicate entity ids"))
    }
  }
}
