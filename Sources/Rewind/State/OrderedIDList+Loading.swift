extension OrderedIDList {
  /// Builds a list from its members as a file's rows give them, in position order, with no
  /// change recorded (loading), a member or a batch at a time.
  ///
  /// While the members come in order with no id twice, each is appended to the chunk being
  /// filled, its key stored with one hash; from the first that does not (a file that gave two
  /// members one key, or an id twice, or rows changed by hand), each is placed where it
  /// belongs, as ``loadPosition(_:of:)`` does. Either way the list is the one placing every
  /// member would give.
  @usableFromInline
  struct Loader: Sendable {
    @usableFromInline var list = OrderedIDList()
    /// The chunk being filled, not yet in the list's chunks.
    @usableFromInline var chunk: [Entry] = []
    /// The last member appended in order.
    @usableFromInline var previous: Entry?
    /// Whether members are now placed one by one.
    @usableFromInline var placing = false

    /// An empty loader.
    @inlinable
    init() {}

    /// Appends `id` with `key`.
    @inlinable
    mutating func append(_ key: String, of id: ID) {
      guard !placing else { return list.loadPosition(key, of: id) }
      let entry = Entry(key: key, id: id)
      guard previous.map({ $0.precedes(entry) }) ?? true else { return placeFromNowOn(entry) }
      if let stored = list.keys.updateValue(key, forKey: id) {
        list.keys[id] = stored  // the id is a member already: placed as `loadPosition` would
        return placeFromNowOn(entry)
      }
      // Chunks filled to half capacity, leaving room for inserts.
      if chunk.count == OrderedIDList.chunkCapacity / 2 { closeChunk() }
      if chunk.isEmpty { chunk.reserveCapacity(OrderedIDList.chunkCapacity / 2) }
      chunk.append(entry)
      previous = entry
    }

    /// Appends each of `batch`'s members in order, and empties it.
    @inlinable
    mutating func append(_ batch: inout [(key: String, id: ID)]) {
      for (key, id) in batch { append(key, of: id) }
      batch.removeAll(keepingCapacity: false)
    }

    /// The list.
    @inlinable
    consuming func finish() -> OrderedIDList {
      if !placing { countChunks() }
      return list
    }

    @inlinable
    mutating func placeFromNowOn(_ entry: Entry) {
      countChunks()
      placing = true
      list.loadPosition(entry.key, of: entry.id)
    }

    /// Closes the chunk being filled and counts the list's chunks, as placing needs them.
    @inlinable
    mutating func countChunks() {
      closeChunk()
      list.counts = ChunkCounts(list.chunks.lazy.map(\.count))
    }

    @inlinable
    mutating func closeChunk() {
      guard !chunk.isEmpty else { return }
      list.chunks.append(chunk)
      chunk = []
    }
  }
}
