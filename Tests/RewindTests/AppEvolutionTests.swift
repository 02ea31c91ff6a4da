import Foundation
import GRDB
import Testing

@testable import Rewind

/// An app's history carried across three upgrades of its schema (a column added, a column and
/// a view property renamed, a table split by a row transform), with a random history recorded
/// at each version: afterwards every past seq reads and restores in the last version's shape,
/// and undo walks back across every migration.
@MainActor
struct AppEvolutionTests {
  /// A random session on one version of the app, recording the state (in the last version's
  /// shape) the store had after each seq.
  @MainActor struct Session<State: ContactsVersion> {
    let path: String
    var store: Store<State, Contacts.Action>
    var random: SplitMix64

    init(path: String, random: SplitMix64) throws {
      self.path = path
      self.random = random
      store = try Store(path: path, initialState: State(), reducer: ContactsReducer<State>())
    }

    mutating func run(steps: Int, nextID: inout Int64, recording states: inout [Int64: Contacts.Final]) async throws {
      states[store.lastSeq] = store.state.final
      for _ in 0..<steps {
        // Long synchronous work on the main actor would starve other suites' effects.
        await Task.yield()
        let ids = store.state.ids
        let someID = ids.isEmpty ? 1 : ids[Int(random.next() % UInt64(ids.count))]
        let word = ["Ada", "Grace", "Linus", "Rue", "Main St", "Elm St", "555-01"][Int(random.next() % 7)]
        switch random.next() % 12 {
        case 0, 1:
          try store.send(.add(id: nextID, name: "\(word) \(nextID)", street: "\(nextID) \(word)"))
          nextID += 1
        case 2: try store.send(.rename(id: someID, name: word))
        case 3: try store.send(.setPhone(id: someID, phone: word))
        case 4: try store.send(.relocate(id: someID, street: word))
        case 5: try store.send(.delete(id: someID))
        case 6: try store.send(.reorder(id: someID, to: Int(random.next() % 4)))
        case 7: try store.send(.select(random.next() % 3 == 0 ? nil : someID))
        case 8: try store.send(.search(word))
        case 9: _ = try store.undo()
        case 10: _ = try store.redo()
        default:
          store = try Store(path: path, initialState: State(), reducer: ContactsReducer<State>())
        }
        states[store.lastSeq] = store.state.final
      }
    }
  }

  @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
  func everyPastSeqReadsRestoresAndUndoesInTheLastShape(seed: UInt64) async throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("contacts.sqlite")
    var random = SplitMix64(seed: seed)
    var states: [Int64: Contacts.Final] = [:]
    var nextID: Int64 = 1
    var migrationSeqs: [Int64] = []

    var v1 = try Session<ContactsV1>(path: path, random: random)
    try await v1.run(steps: 30, nextID: &nextID, recording: &states)
    random = v1.random
    // Snapshots taken under an earlier version are read through the migrations too.
    let v1Snapshot = try RewindDatabase(path: path).snapshot(label: "v1")

    var v2 = try Session<ContactsV2>(path: path, random: random)
    migrationSeqs.append(v2.store.lastSeq)
    #expect(v2.store.state.final == states[v2.store.lastSeq - 1], "version 2 opens with version 1's state")
    try await v2.run(steps: 30, nextID: &nextID, recording: &states)
    random = v2.random

    var v3 = try Session<ContactsV3>(path: path, random: random)
    migrationSeqs.append(v3.store.lastSeq)
    #expect(v3.store.state.final == states[v3.store.lastSeq - 1], "version 3 opens with version 2's state")
    try await v3.run(steps: 30, nextID: &nextID, recording: &states)
    random = v3.random
    let v3Snapshot = try RewindDatabase(path: path).snapshot(label: "v3")

    var v4 = try Session<ContactsV4>(path: path, random: random)
    migrationSeqs.append(v4.store.lastSeq)
    #expect(v4.store.state.final == states[v4.store.lastSeq - 1], "version 4 opens with version 3's state")
    try await v4.run(steps: 30, nextID: &nextID, recording: &states)

    let database = try RewindDatabase(path: path)
    let kinds = try database.log(LogQuery(kinds: ["migration"])).map(\.seq)
    #expect(kinds == migrationSeqs)
    #expect(try database.verify().problems == [])

    // Every past seq, exported in the last version's shape, is the state the app had there.
    let last = v4.store.lastSeq
    for seq in states.keys.sorted() where seq >= 1 {
      #expect(try Contacts.Final(export: database.export(at: seq)) == states[seq], "export --at \(seq)")
    }
    // Restoring seqs on either side of each migration gives them back, as the app sees them.
    for seq in Set(migrationSeqs.flatMap { [$0 - 1, $0 + 1] } + [1, last / 2]).sorted() where states[seq] != nil {
      try database.restore(to: seq)
      #expect(try Contacts.Final(export: database.export()) == states[seq], "restore --to \(seq)")
      try v4.store.reload()
      #expect(v4.store.state.final == states[seq], "the app after restore --to \(seq)")
    }
    for (label, seq) in [("v1", v1Snapshot), ("v3", v3Snapshot)] {
      try database.restore(snapshot: label)
      #expect(try Contacts.Final(export: database.export()) == states[seq], "restore --snapshot \(label)")
    }
    try v4.store.reload()
    let afterSnapshots = try database.verify().problems
    #expect(afterSnapshots == [])

    // Undo walks back through every step, across the three migrations, memory and file
    // agreeing at each, to the empty document the first version started with.
    var undone: [Int64] = []
    while let seq = try v4.store.undo() {
      undone.append(try #require(try database.step(movedBy: seq)).id)
      #expect(try Contacts.Final(export: database.export()) == v4.store.state.final, "after undoing to \(undone.last!)")
    }
    for migration in migrationSeqs {
      #expect(undone.contains { $0 < migration }, "undo crossed the migration at \(migration)")
    }
    #expect(v4.store.state.people.count == 0 && v4.store.state.addresses.count == 0 && v4.store.state.order.count == 0)
    #expect(try database.verify().problems == [])
    // And redo brings it all back.
    while try v4.store.redo() != nil {}
    #expect(try Contacts.Final(export: database.export()) == v4.store.state.final)
    #expect(try database.verify().problems == [])

    // Compaction into the middle of the versions keeps every later seq exact.
    let base = migrationSeqs[1]
    let compacted = try database.compact(keep: Int(database.inspect().lastSeq - base))
    #expect(compacted.baseSeq == base)
    #expect(try database.verify().problems == [])
    for seq in states.keys.sorted() where seq >= base {
      #expect(
        try Contacts.Final(export: database.export(at: seq)) == states[seq], "export --at \(seq) after compaction")
    }
  }
}
