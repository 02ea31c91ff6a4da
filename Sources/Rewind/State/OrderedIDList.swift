/// An ordered list of entity ids: the order half of normalized state.
///
/// A list references ids; the entities themselves live once in an ``EntityTable``. Several
/// lists (`allTasks`, `favorited`) can order the same entities differently.
///
/// Each member carries a fractional position key, so that inserting, moving or removing one
/// member changes one row in `list_entries`, whatever the list's length. Members are kept in
/// chunks of at most 512, with a tree of their counts, so finding an offset and inserting,
/// moving or removing a member cost O(log n) in memory rather than shifting the whole list.
///
/// ```swift
/// var list = OrderedIDList<Int64>()
/// list.append(1)
/// list.append(2)
/// list.move(2, to: 0)   // [2, 1]: one row changes
/// ```
public struct OrderedIDList<ID: Hashable & Comparable & Sendable>: Sendable {
  @usableFromInline
  struct Entry: Sendable {
    @usableFromInline var key: String
    @usableFromInline var id: ID

    @inlinable
    init(key: String, id: ID) {
      self.key = key
      self.id = id
    }

    @inlinable
    func precedes(_ other: Entry) -> Bool { key < other.key || (key == other.key && id < other.id) }
  }

  @inlinable
  static var chunkCapacity: Int { 512 }

  /// The members in order, split into non-empty chunks.
  @usableFromInline var chunks: [[Entry]] = []
  /// The chunks' member counts, kept with every change to `chunks`.
  @usableFromInline var counts = ChunkCounts()
  /// Each member's position key.
  @usableFromInline var keys: [ID: String] = [:]
  /// Position keys as they were before the action in progress touched them (`nil`: absent).
  @usableFromInline var pending: [ID: String?] = [:]
  /// The ids each change touched, in order, until ``OrderedIDLists`` takes them to keep its
  /// children's owners (so that m appends to one owner's list cost O(m), not O(m²)).
  @usableFromInline var touched: [ID] = []

  /// Creates an empty list.
  @inlinable
  public init() {}

  /// Creates a list with the given ids in order.
  @inlinable
  public init(_ ids: some Sequence<ID>) {
    for id in ids { append(id) }
    pending = [:]
    touched = []
  }

  /// The number of ids in the list.
  @inlinable
  public var count: Int { keys.count }

  /// Whether the list is empty.
  @inlinable
  public var isEmpty: Bool { keys.isEmpty }

  /// Whether `id` is in the list. - Complexity: O(1).
  @inlinable
  public func contains(_ id: ID) -> Bool { keys[id] != nil }

  /// The offset of `id` in the list, or `nil` when absent. - Complexity: O(log n).
  @inlinable
  public func firstIndex(of id: ID) -> Int? {
    guard let key = keys[id] else { return nil }
    let (chunk, offset) = location(of: Entry(key: key, id: id))
    return counts.offset(ofChunk: chunk) + offset
  }

  /// The id at `offset`. - Complexity: O(log n).
  @inlinable
  public subscript(offset: Int) -> ID { entry(at: offset).id }

  /// All ids in order.
  @inlinable
  public var ids: [ID] { chunks.flatMap { $0.map(\.id) } }

  // MARK: - Mutations

  /// Appends `id`, or does nothing if it is already in the list.
  @inlinable
  public mutating func append(_ id: ID) {
    insert(id, at: count)
  }

  /// Inserts `id` at `offset` (clamped to the list), or does nothing if it is already present.
  @inlinable
  public mutating func insert(_ id: ID, at offset: Int) {
    guard keys[id] == nil else { return }
    let offset = Swift.min(Swift.max(offset, 0), count)
    recordBefore(id)
    place(id, at: offset)
  }

  /// Removes `id` from the list. Returns whether it was there.
  @inlinable
  @discardableResult
  public mutating func remove(_ id: ID) -> Bool {
    guard let (id, key) = stored(id) else { return false }
    recordBefore(id)
    unplace(Entry(key: key, id: id))
    return true
  }

  /// Moves `id` so that it ends at `offset` (clamped). Returns whether it was in the list.
  ///
  /// Only the moved id gets a new position key, unless that key would be longer than
  /// ``longestKey``: then the members around `offset` are respaced too (see
  /// ``respace(inserting:at:instead:)``).
  @inlinable
  @discardableResult
  public mutating func move(_ id: ID, to offset: Int) -> Bool {
    guard let (id, key) = stored(id) else { return false }
    guard firstIndex(of: id) != Swift.min(Swift.max(offset, 0), count - 1) else { return true }
    recordBefore(id)
    unplace(Entry(key: key, id: id))
    let offset = Swift.min(Swift.max(offset, 0), count)
    place(id, at: offset)
    return true
  }

  /// The member equal to `id` as the list holds it, and its key: the change a removal or a
  /// move records must name the member's own row, and a string id equal to it (the other
  /// Unicode normalization form: Swift compares strings by canonical equivalence) may be
  /// spelled in other bytes, which SQLite tells apart.
  @inlinable
  func stored(_ id: ID) -> (id: ID, key: String)? {
    guard let index = keys.index(forKey: id) else { return nil }
    let (stored, key) = keys[index]
    return (stored, key)
  }

  /// Removes every id.
  @inlinable
  public mutating func removeAll() {
    for id in keys.keys { recordBefore(id) }
    chunks = []
    counts = ChunkCounts()
    keys = [:]
  }

  // MARK: - Engine access (no tracking)

  /// The position key of `id`.
  @inlinable
  func positionKey(of id: ID) -> String? { keys[id] }

  /// Sets or clears the key of `id` without recording a change (loading, undo, rollback).
  @inlinable
  mutating func setPosition(_ key: String?, of id: ID) {
    if let old = keys[id] { unplace(Entry(key: old, id: id)) }
    if let key { place(Entry(key: key, id: id)) }
  }

  /// Appends `id` with `key` without recording a change, when `key` sorts after every member
  /// (loading rows read in order); otherwise places it where it belongs.
  @inlinable
  mutating func loadPosition(_ key: String, of id: ID) {
    let entry = Entry(key: key, id: id)
    guard keys[id] == nil, let last = chunks.last?.last, last.precedes(entry) else {
      return setPosition(key, of: id)
    }
    keys[id] = key
    // Fill chunks to half capacity, leaving room for inserts.
    if chunks[chunks.count - 1].count < Self.chunkCapacity / 2 {
      chunks[chunks.count - 1].append(entry)
      counts.add(1, at: chunks.count - 1)
    } else {
      chunks.append([entry])
      counts.append(1)
    }
  }

  /// Whether the current action touched the list (possibly leaving it as it was).
  @inlinable
  var hasPendingChanges: Bool { !pending.isEmpty }

  /// The (id, key before, key after) of every member the current action changed, and resets
  /// tracking for the next action.
  ///
  /// - Parameter keepingCapacity: keep the tracking tables' memory for the next action (unless
  ///   this one touched many members): for a list changed on most sends. A family of lists
  ///   (``OrderedIDLists``) frees it, so that the lists it holds, one per owner, hold none.
  @inlinable
  mutating func takeChanges(keepingCapacity: Bool = true) -> [(id: ID, before: String?, after: String?)] {
    guard !pending.isEmpty else { return [] }
    defer {
      pending.removeAll(keepingCapacity: keepingCapacity && pending.count <= 64)
      touched.removeAll(keepingCapacity: keepingCapacity && touched.count <= 64)
    }
    return pending.compactMap { id, before in
      let after = keys[id]
      return before == after ? nil : (id, before, after)
    }
  }

  // MARK: - Chunks

  @inlinable
  mutating func recordBefore(_ id: ID) {
    if pending.index(forKey: id) == nil { pending[id] = .some(keys[id]) }
    touched.append(id)
  }

  /// The longest position key, in bytes, that inserting or moving one member gives it when
  /// the members around it can be respaced (see ``respace(inserting:at:instead:)``).
  ///
  /// A fraction grows a digit every few keys made in one gap, so moving members again and
  /// again into one spot (always below the first, say) would grow keys without end: 500 bytes
  /// after 3,000 such moves, in every row, log entry and comparison. Appending and prepending
  /// keep keys short (their integer parts count up and down), so a key longer than this is
  /// only ever made where one gap has been split many times.
  @inlinable
  static var longestKey: Int { 12 }

  /// The longest key a respacing gives where it can: well under ``longestKey``, so that the
  /// gaps it leaves take dozens of keys each before one made there is too long again.
  static var respacedKeyLength: Int { 8 }

  /// The most members on each side of the spot that one respacing rewrites: a bound on the
  /// rows one action changes, and so on its log entry and on what its undo writes.
  static var respacingRadius: Int { 64 }

  /// Places `id` (not in the list, its `before` recorded) at `offset`: with a key of its own
  /// when one short enough fits there, else by respacing the members around it.
  @inlinable
  mutating func place(_ id: ID, at offset: Int) {
    let key = newKey(at: offset)
    if key.utf8.count <= Self.longestKey || !respace(inserting: id, at: offset, instead: key) {
      place(Entry(key: key, id: id))
    }
  }

  /// Inserts `id` at `offset` and gives it and the members around it new, evenly spread keys
  /// between the keys of the nearest members outside them, rather than give it `key`.
  ///
  /// The window starts at 4 members on each side and doubles up to ``respacingRadius``; the
  /// first whose keys are at most ``respacedKeyLength`` bytes is taken. So one action
  /// rewrites at most 129 rows (undo puts their keys back), only once keys made at the spot
  /// pass ``longestKey``, and the gaps it leaves take dozens of keys before it happens there
  /// again: moving members into one spot or a few keeps every key within ``longestKey``.
  ///
  /// Where even the widest window has no room for keys that short (inserting again and again
  /// at the middle of a growing list splits every gap of an ever longer stretch), its keys
  /// are taken if they are at least 4 bytes shorter than `key`, and otherwise the member
  /// takes `key` (returns `false`, changing nothing): keys there grow, a hundred times more
  /// slowly than with no respacing, and no action rewrites more than the window.
  @usableFromInline
  mutating func respace(inserting id: ID, at offset: Int, instead key: String) -> Bool {
    var radius = 4
    var widest: (start: Int, end: Int, keys: [String])?
    while radius <= Self.respacingRadius {
      let start = Swift.max(0, offset - radius)
      let end = Swift.min(count, offset + radius)
      let lower = start > 0 ? entry(at: start - 1).key : nil
      let upper = end < count ? entry(at: end).key : nil
      radius *= 2
      // Equal keys outside the window (a file's) leave no room between them: widen it.
      if let lower, let upper, lower >= upper { continue }
      let keys = PositionKey.spread(end - start + 1, between: lower, upper)
      widest = (start, end, keys)
      if keys.allSatisfy({ $0.utf8.count <= Self.respacedKeyLength }) || (start == 0 && end == count) { break }
    }
    guard let (start, end, keys) = widest,
      keys.allSatisfy({ $0.utf8.count <= Swift.max(Self.respacedKeyLength, key.utf8.count - 4) })
    else { return false }
    var members = (start..<end).map { entry(at: $0) }
    for member in members {
      recordBefore(member.id)
      unplace(member)
    }
    members.insert(Entry(key: "", id: id), at: offset - start)
    for (member, key) in zip(members, keys) { place(Entry(key: key, id: member.id)) }
    return true
  }

  /// A position key between the members at `offset - 1` and `offset`.
  ///
  /// Members a file gave equal keys (an import, a hand edit) have no key between them: then the
  /// new key goes after the whole run of equal keys, a little later than asked, rather than
  /// failing.
  @inlinable
  func newKey(at offset: Int) -> String {
    let lower = offset > 0 ? entry(at: offset - 1).key : nil
    var upperOffset = offset
    if let lower {
      while upperOffset < count, entry(at: upperOffset).key <= lower { upperOffset += 1 }
    }
    return PositionKey.between(lower, upperOffset < count ? entry(at: upperOffset).key : nil)
  }

  @inlinable
  func entry(at offset: Int) -> Entry {
    precondition(offset >= 0 && offset < count, "offset \(offset) out of range 0..<\(count)")
    let (chunk, remaining) = counts.chunk(holding: offset)
    return chunks[chunk][remaining]
  }

  /// The chunk and offset where `entry` is, or would be inserted.
  @inlinable
  func location(of entry: Entry) -> (chunk: Int, offset: Int) {
    guard !chunks.isEmpty else { return (0, 0) }
    // First chunk whose last entry does not precede `entry`; the last chunk if none.
    let low = chunks[..<(chunks.count - 1)].partitioningIndex { !$0[$0.count - 1].precedes(entry) }
    return (low, chunks[low].partitioningIndex { !$0.precedes(entry) })
  }

  @inlinable
  mutating func place(_ entry: Entry) {
    keys[entry.id] = entry.key
    guard !chunks.isEmpty else {
      chunks = [[entry]]
      counts = ChunkCounts([1])
      return
    }
    let (chunk, offset) = location(of: entry)
    chunks[chunk].insert(entry, at: offset)
    if chunks[chunk].count > Self.chunkCapacity {
      let upper = Array(chunks[chunk][(Self.chunkCapacity / 2)...])
      chunks[chunk].removeSubrange((Self.chunkCapacity / 2)...)
      chunks.insert(upper, at: chunk + 1)
      // A split renumbers the chunks after it: rebuilt, once per half a chunk of inserts.
      counts = ChunkCounts(chunks.lazy.map(\.count))
    } else {
      counts.add(1, at: chunk)
    }
  }

  @inlinable
  mutating func unplace(_ entry: Entry) {
    keys[entry.id] = nil
    let (chunk, offset) = location(of: entry)
    chunks[chunk].remove(at: offset)
    if chunks[chunk].isEmpty {
      chunks.remove(at: chunk)
      counts = ChunkCounts(chunks.lazy.map(\.count))
    } else {
      counts.add(-1, at: chunk)
    }
  }
}

extension OrderedIDList: Sequence {
  /// Iterates the ids in order.
  @inlinable
  public func makeIterator() -> Iterator { Iterator(chunks: chunks) }

  /// The ids in order, chunk by chunk. (A lazy `flatMap` of the chunks cost about 400
  /// instructions an id, in closures its generic code could not specialize.)
  public struct Iterator: IteratorProtocol {
    @usableFromInline let chunks: [[Entry]]
    @usableFromInline var chunk = 0
    @usableFromInline var index = 0

    @inlinable
    init(chunks: [[Entry]]) { self.chunks = chunks }

    @inlinable
    public mutating func next() -> ID? {
      while chunk < chunks.count {
        if index < chunks[chunk].count {
          defer { index += 1 }
          return chunks[chunk][index].id
        }
        (chunk, index) = (chunk + 1, 0)
      }
      return nil
    }
  }
}

extension OrderedIDList: Equatable {
  /// Two lists are equal when they hold the same ids in the same order.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.count == rhs.count && lhs.elementsEqual(rhs)
  }
}

extension OrderedIDList: Codable where ID: Codable {
  /// Encodes the ids in order, as a JSON array.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(ids)
  }

  /// Decodes an array of ids; duplicates are an error.
  public init(from decoder: any Decoder) throws {
    let ids = try decoder.singleValueContainer().decode([ID].self)
    self.init(ids)
    guard count == ids.count else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "duplicate ids in an order list"))
    }
  }
}

extension OrderedIDList: CustomStringConvertible {
  public var description: String { "\(ids)" }
}
