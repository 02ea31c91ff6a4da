/// The member counts of an ``OrderedIDList``'s chunks, as a Fenwick tree: the offset where a
/// chunk starts, and the chunk holding an offset, in O(log chunks) instead of a walk over every
/// chunk before it (about 2,000 at a million members).
@usableFromInline
struct ChunkCounts: Sendable, Equatable {
  /// `tree[i - 1]` holds the sum of the counts of chunks `i - lowbit(i) + 1 ... i` (1-based).
  private var tree: [Int] = []

  @usableFromInline
  init() {}

  /// Builds the tree for these counts, in O(chunks).
  @usableFromInline
  init(_ counts: some Sequence<Int>) {
    tree = Array(counts)
    for index in tree.indices {
      let parent = index + ((index + 1) & -(index + 1))
      if parent < tree.count { tree[parent] += tree[index] }
    }
  }

  /// The number of chunks.
  @usableFromInline
  var count: Int { tree.count }

  /// Adds `delta` to the count of `chunk`.
  @usableFromInline
  mutating func add(_ delta: Int, at chunk: Int) {
    var index = chunk + 1
    while index <= tree.count {
      tree[index - 1] += delta
      index += index & -index
    }
  }

  /// The members in the chunks before `chunk`: the offset of its first member.
  @usableFromInline
  func offset(ofChunk chunk: Int) -> Int {
    var index = chunk
    var sum = 0
    while index > 0 {
      sum += tree[index - 1]
      index -= index & -index
    }
    return sum
  }

  /// The chunk holding the member at `offset`, and the member's offset in it. `offset` must
  /// be less than the total.
  @usableFromInline
  func chunk(holding offset: Int) -> (chunk: Int, offset: Int) {
    var position = 0
    var remaining = offset
    var step = tree.isEmpty ? 0 : 1 << (Int.bitWidth - 1 - tree.count.leadingZeroBitCount)
    while step > 0 {
      let next = position + step
      if next <= tree.count, tree[next - 1] <= remaining {
        position = next
        remaining -= tree[next - 1]
      }
      step >>= 1
    }
    return (position, remaining)
  }

  /// Adds a chunk of `count` members after the last one, in O(log chunks).
  @usableFromInline
  mutating func append(_ count: Int) {
    let index = tree.count + 1
    tree.append(count + offset(ofChunk: index - 1) - offset(ofChunk: index - (index & -index)))
  }
}
