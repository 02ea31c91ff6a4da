import Foundation
import Testing

@testable import Rewind

struct OrderedIDListTests {
  /// Random inserts, moves and removals agree with a plain array, across chunk splits.
  @Test func agreesWithAnArrayModel() {
    var generator = SplitMix64(seed: 42)
    var list = OrderedIDList<Int64>()
    var model: [Int64] = []
    var nextID: Int64 = 1
    for _ in 0..<6_000 {
      switch generator.next() % 4 {
      case 0, 1:
        let offset = Int(generator.next() % UInt64(model.count + 1))
        list.insert(nextID, at: offset)
        model.insert(nextID, at: offset)
        nextID += 1
      case 2 where !model.isEmpty:
        let id = model[Int(generator.next() % UInt64(model.count))]
        let offset = Int(generator.next() % UInt64(model.count))
        list.move(id, to: offset)
        model.removeAll { $0 == id }
        model.insert(id, at: offset)
      case 3 where !model.isEmpty:
        let id = model[Int(generator.next() % UInt64(model.count))]
        list.remove(id)
        model.removeAll { $0 == id }
      default:
        break
      }
      // Offsets go through the tree of chunk counts: check one after every step.
      if !model.isEmpty {
        let offset = Int(generator.next() % UInt64(model.count))
        #expect(list[offset] == model[offset])
        #expect(list.firstIndex(of: model[offset]) == offset)
      }
    }
    #expect(model.count > OrderedIDList<Int64>.chunkCapacity * 2)  // several chunks
    #expect(list.ids == model)
    #expect(Array(list) == model)
    #expect(list.count == model.count)
    for (offset, id) in model.enumerated() where offset % 97 == 0 {
      #expect(list.firstIndex(of: id) == offset)
      #expect(list[offset] == id)
    }
  }

  /// Loading builds the list in one pass from rows in key order, and falls back to placing each
  /// one when a file gave equal keys, rows out of order, or an id twice: either way, the list
  /// is the one placing each row would give.
  @Test func loadingInOnePassAgreesWithPlacingEachRow() {
    var generator = SplitMix64(seed: 7)
    for round in 0..<40 {
      let count = Int(generator.next() % 3_000)
      var entries: [(key: String, id: Int64)] = []
      var key: String? = nil
      for id in Int64(1)...Int64(max(count, 1)) {
        key = PositionKey.between(key, nil)
        entries.append((key!, id))
      }
      switch round % 4 {
      case 1 where entries.count > 2: entries[1].key = entries[0].key  // equal keys
      case 2 where entries.count > 2: entries.swapAt(0, entries.count - 1)  // out of order
      case 3 where entries.count > 2: entries[2].id = entries[0].id  // an id twice
      default: break
      }
      var placed = OrderedIDList<Int64>()
      for entry in entries { placed.loadPosition(entry.key, of: entry.id) }
      var loader = OrderedIDList<Int64>.Loader()
      for entry in entries { loader.append(entry.key, of: entry.id) }
      var loaded = loader.finish()
      #expect(loaded.ids == placed.ids, "round \(round)")
      for (offset, id) in placed.ids.enumerated() where offset % 31 == 0 {
        #expect(loaded[offset] == id)
        #expect(loaded.firstIndex(of: id) == offset)
        #expect(loaded.positionKey(of: id) == placed.positionKey(of: id))
      }
      #expect(loaded.takeChanges().isEmpty)
    }
  }

  @Test func movingOneItemChangesOneKey() {
    var list = OrderedIDList<Int64>(1...2_000)
    _ = list.takeChanges()
    list.move(1_500, to: 3)
    let changes = list.takeChanges()
    #expect(changes.count == 1)
    #expect(changes.first?.id == 1_500)
    #expect(list.firstIndex(of: 1_500) == 3)
  }

  /// Moving members again and again into one spot (below the first) would grow the key made
  /// there by a digit every few moves; the members around the spot are respaced instead. The
  /// order follows an array, every action's changes take a copy of the list (by their `after`
  /// keys) to the same list and back (by their `before` keys, as undo does), and keys stay short.
  @Test func movesIntoOneSpotKeepKeysShortAndChangesExact() {
    var generator = SplitMix64(seed: 11)
    var list = OrderedIDList<Int64>(1...300)
    var model = Array(Int64(1)...300)
    var mirror = list
    _ = list.takeChanges()
    _ = mirror.takeChanges()
    var changedRows = 0
    var longest = 0
    for step in 0..<3_000 {
      let hotSpot = step % 3 == 0 ? 150 : 1  // two spots, one in the middle of a chunk
      let id = model[Int(generator.next() % UInt64(model.count))]
      switch generator.next() % 8 {
      case 0:
        list.remove(id)
        model.removeAll { $0 == id }
        let offset = min(hotSpot, model.count)
        list.insert(id, at: offset)
        model.insert(id, at: offset)
      case 1:
        let offset = Int(generator.next() % UInt64(model.count))
        list.move(id, to: offset)
        model.removeAll { $0 == id }
        model.insert(id, at: offset)
      default:
        list.move(id, to: hotSpot)
        model.removeAll { $0 == id }
        model.insert(id, at: min(hotSpot, model.count))
      }
      let before = mirror
      let changes = list.takeChanges()
      changedRows += changes.count
      for change in changes { mirror.setPosition(change.after, of: change.id) }
      #expect(mirror.ids == model, "step \(step)")
      for change in changes { mirror.setPosition(change.before, of: change.id) }
      #expect(mirror.ids == before.ids, "step \(step): the changes' before keys do not undo it")
      for change in changes { mirror.setPosition(change.after, of: change.id) }
      _ = mirror.takeChanges()
      longest = max(longest, model.map { list.positionKey(of: $0)!.utf8.count }.max()!)
    }
    #expect(list.ids == model)
    #expect(longest <= 12, "a key of \(longest) bytes")
    // Respacing rewrites a few rows once every several dozen moves into a spot (3,125
    // rows for these 3,000 moves, under 1.1 a move).
    #expect(changedRows < 4_500, "\(changedRows) rows changed in 3,000 moves")
  }

  /// A short list whose keys are all long (a file of an older release) is respaced whole at
  /// the first insert that would make a longer one, and keeps its order.
  @Test func aShortListOfLongKeysIsRespacedWhole() {
    var keys = [PositionKey.between(nil, nil)]
    for _ in 0..<300 { keys.append(PositionKey.between(keys.last, PositionKey.between(nil, nil) + "1")) }
    keys = Array(keys.suffix(40))  // all long, none of them "a0"
    #expect(keys.allSatisfy { $0.utf8.count > 40 })
    var list = OrderedIDList<Int64>()
    for (offset, key) in keys.enumerated() { list.loadPosition(key, of: Int64(offset)) }
    let order = list.ids
    list.insert(1_000, at: 20)
    var expected = order
    expected.insert(1_000, at: 20)
    #expect(list.ids == expected)
    #expect(list.ids.allSatisfy { list.positionKey(of: $0)!.utf8.count <= 8 })
    #expect(list.takeChanges().count == 41)
  }

  /// Inserting again and again at the middle of a growing list splits every gap of an ever
  /// longer stretch, more than any bounded window can respace: no action rewrites more than
  /// 129 rows, the changes stay exact, and keys grow a hundred times more slowly than with no
  /// respacing (about 830 bytes after these 5,000 inserts).
  @Test func insertsAtTheMiddleRewriteBoundedWindowsAndKeysGrowSlowly() {
    var list = OrderedIDList<Int64>(0..<10)
    var model = Array(Int64(0)..<10)
    var mirror = list
    _ = list.takeChanges()
    var largest = 0
    for id in Int64(10)..<5_010 {
      list.insert(id, at: list.count / 2)
      model.insert(id, at: model.count / 2)
      let changes = list.takeChanges()
      largest = max(largest, changes.count)
      for change in changes { mirror.setPosition(change.after, of: change.id) }
      #expect(mirror.ids == model, "insert \(id)")
    }
    let longest = model.map { list.positionKey(of: $0)!.utf8.count }.max()!
    #expect(largest <= 129, "an action rewrote \(largest) rows")
    #expect(longest <= 40, "a key of \(longest) bytes")
  }

  @Test func changesAreNetForTheAction() {
    var list = OrderedIDList<Int64>([1, 2, 3])
    _ = list.takeChanges()
    list.append(4)
    list.remove(4)  // added and removed in one action: no change
    list.move(1, to: 2)
    list.move(1, to: 0)  // back where it was: no change
    #expect(list.takeChanges().isEmpty)
  }

  @Test func decodingRejectsDuplicates() throws {
    let data = Data("[1,2,1]".utf8)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(OrderedIDList<Int64>.self, from: data) }
  }
}

@Suite struct OrderedIDListsTests {
  /// Random operations on a keyed family against a dictionary of arrays, with a child in at
  /// most one owner's list.
  @Test func aKeyedFamilyFollowsAModel() throws {
    var generator = SplitMix64(seed: 7)
    var lists = OrderedIDLists<Int64, Int64>()
    var model: [Int64: [Int64]] = [:]
    func modelOwner(of id: Int64) -> Int64? { model.first { $0.value.contains(id) }?.key }
    for _ in 0..<3_000 {
      let owner = Int64(generator.next() % 5)
      let id = Int64(generator.next() % 40)
      let offset = Int(generator.next() % 6)
      switch generator.next() % 4 {
      case 0, 1:
        // Inserting moves the id out of any other owner's list; within its own it stays.
        if let previous = modelOwner(of: id), previous != owner { model[previous]!.removeAll { $0 == id } }
        if model[owner, default: []].contains(id) == false {
          model[owner, default: []].insert(id, at: min(offset, model[owner, default: []].count))
        }
        lists[owner].insert(id, at: offset)
      case 2:
        if let index = model[owner]?.firstIndex(of: id) {
          model[owner]!.remove(at: index)
          model[owner]!.insert(id, at: min(offset, model[owner]!.count))
        }
        lists[owner].move(id, to: offset)
      default:
        if let previous = modelOwner(of: id) { model[previous]!.removeAll { $0 == id } }
        lists.remove(id)
      }
      model = model.filter { !$0.value.isEmpty }
      for (owner, ids) in model { #expect(lists[owner].ids == ids) }
      #expect(lists.count == model.values.reduce(0) { $0 + $1.count })
      #expect(Set(lists.ownersWithLists) == Set(model.keys))
      #expect(lists.owner(of: id) == modelOwner(of: id))
    }
    // Each id moved, added or removed since the last take is one change, its owner included.
    let changes = lists.takeChanges()
    #expect(Set(changes.map(\.id)).count == changes.count)
    for change in changes {
      #expect(lists.owner(of: change.id) == change.after?.0)
      #expect(change.after.map { lists[$0.0].positionKey(of: change.id) == $0.1 } ?? true)
    }
    #expect(lists.takeChanges().isEmpty)
    // Codable: the export's shape, and back.
    let data = try JSONEncoder().encode(lists)
    let decoded = try JSONDecoder().decode(OrderedIDLists<Int64, Int64>.self, from: data)
    #expect(decoded == lists)
    #expect(
      throws: DecodingError.self,
      performing: {
        try JSONDecoder().decode(
          OrderedIDLists<Int64, Int64>.self, from: Data(#"[{"owner":1,"ids":[2]},{"owner":3,"ids":[2]}]"#.utf8))
      })
  }
}
