import Foundation
import GRDB
import Testing

@testable import Rewind

/// App schema migrations on a second app, an inventory (Support/InventoryApp.swift), over random
/// sessions at each of its seven versions.
@MainActor
struct InventoryEvolutionTests {
  /// Collected problems, reported together.
  final class Issues {
    var list: [String] = []
    func add(_ text: String) {
      list.append(text)
    }
  }

  @MainActor final class World {
    let path: String
    var random: SplitMix64
    var states: [Int64: Inventory.Final] = [:]
    var nextID: Int64 = 1
    var labels: [String: Int64] = [:]
    var oldExports: [(version: Int, seq: Int64, json: String)] = []
    var migrationSeqs: [Int64] = []
    let issues = Issues()
    var counts: [String: Int] = [:]

    init(path: String, seed: UInt64) {
      self.path = path
      random = SplitMix64(seed: seed)
    }

    func pick(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
    func count(_ key: String) { counts[key, default: 0] += 1 }

    var database: RewindDatabase { get throws { try RewindDatabase(path: path) } }

    func open<S: InventoryVersion>(_ type: S.Type) throws -> Store<S, Inventory.Action> {
      try Store(path: path, initialState: S(), reducer: InventoryReducer<S>())
    }

    /// The lowest seq that can still be exported or restored.
    func floor() throws -> Int64 {
      let db = try database
      let inspection = try db.inspect()
      let barrier =
        try db.log(LogQuery(kinds: ["migration"])).filter { $0.payload.contains(#""kind":"barrier""#) }
        .map(\.seq).max() ?? 0
      return max(inspection.baseSeq, barrier, 1)
    }

    func record<S: InventoryVersion>(_ store: Store<S, Inventory.Action>, _ what: String) {
      states[store.lastSeq] = store.state.final
      // Memory equals what a fresh read-only store reads from the file.
      do {
        let fresh = try Store(path: path, initialState: S(), reducer: InventoryReducer<S>(), readOnly: true)
        if fresh.state != store.state {
          issues.add("v\(S.number) after \(what): memory \(store.state.final) != file \(fresh.state.final)")
        }
      } catch {
        issues.add("v\(S.number) after \(what): read-only open failed: \(error)")
      }
    }

    /// A random session on one version.
    func run<S: InventoryVersion>(_ store: inout Store<S, Inventory.Action>, steps: Int) async throws {
      let v = S.number
      for _ in 0..<steps {
        // Long synchronous work on the main actor would starve other suites' effects.
        await Task.yield()
        let state = store.state
        let items = state.itemIDs
        let parties = state.partyIDs
        let bins = state.binIDs
        let item = items.isEmpty ? 999 : items[pick(items.count)]
        let party = parties.isEmpty ? 998 : parties[pick(parties.count)]
        let bin = bins.isEmpty ? 997 : bins[pick(bins.count)]
        let word = ["Bolt", "Nut ", " Gear", "Cog", "Acme", "Globex", "Spring  "][pick(7)]
        var what = ""
        do {
          switch pick(40) {
          case 0, 1, 2:
            what = "addItem"
            try store.send(.addItem(id: nextID, name: "\(word)\(nextID)", cents: Int64(pick(2000)), tag: word))
            nextID += 1
          case 3:
            what = "renameItem"
            try store.send(.renameItem(id: item, name: word))
          case 4:
            what = "setPrice"
            try store.send(.setPrice(id: item, cents: Int64(pick(5000))))
          case 5:
            what = "setTag"
            try store.send(.setTag(id: item, tag: word))
          case 6:
            what = "setQty"
            try store.send(.setQty(id: item, qty: Int64(pick(50)) - 5))
          case 7:
            what = "setWeight"
            try store.send(.setWeight(id: item, weight: [0.25, 2.0, 3.5, 1e-3, 100][pick(5)]))
          case 8:
            what = "setNote"
            try store.send(.setNote(id: item, note: pick(3) == 0 ? nil : word))
          case 9:
            what = "deleteItem"
            try store.send(.deleteItem(id: item))
          case 10:
            what = "moveItem"
            try store.send(.moveItem(id: item, to: pick(4)))
          case 11:
            what = "addBin"
            try store.send(.addBin(id: nextID, label: "bin \(nextID)"))
            nextID += 1
          case 12:
            what = "deleteBin"
            try store.send(.deleteBin(id: bin))
          case 13:
            what = "moveBin"
            try store.send(.moveBin(id: bin, to: pick(3)))
          case 14, 15:
            what = "addParty"
            try store.send(.addParty(id: nextID, name: "\(word)\(nextID)", maker: pick(2) == 0))
            nextID += 1
          case 16:
            what = "renameParty"
            try store.send(.renameParty(id: party, name: word))
          case 17:
            what = "deleteParty"
            try store.send(.deleteParty(id: party))
          case 18:
            what = "prefer"
            try store.send(.prefer(id: party))
          case 19:
            what = "unprefer"
            try store.send(.unprefer(id: party))
          case 20:
            what = "select"
            try store.send(.select(pick(4) == 0 ? nil : item))
          case 21:
            what = "filter"
            try store.send(.filter(word))
          case 22:
            what = "toggleSort"
            try store.send(.toggleSort)
          case 23:
            what = "scroll"
            try store.send(.scroll([0, 12.5, 300, 7][pick(4)]))
          case 24:
            what = "zoom"
            try store.send(.zoom(pick(3) == 0 ? nil : Int64(pick(5))))
          case 25, 26, 27:
            what = "undo"
            _ = try store.undo()
          case 28, 29:
            what = "redo"
            _ = try store.redo()
          case 30:
            what = "reopen"
            store = try open(S.self)
          case 31:
            what = "jump"
            let keys = states.keys.filter { $0 >= (try! floor()) }.sorted()
            let target = keys[pick(keys.count)]
            let timeline: Timeline = [.all, .document, .view][pick(3)]
            _ = try store.jump(to: target, timeline: timeline)
            if timeline == .all, store.state.final.projected(to: v) != states[target]!.projected(to: v) {
              issues.add("v\(v) jump(to: \(target)): \(store.state.final) != recorded \(states[target]!)")
            }
          case 32, 33:
            what = "tool restore"
            let keys = states.keys.filter { $0 >= (try! floor()) }.sorted()
            let target = keys[pick(keys.count)]
            what = "tool restore(to: \(target))"
            _ = try database.restore(to: target)
            try store.reload()
            if store.state.final.projected(to: v) != states[target]!.projected(to: v) {
              issues.add("v\(v) restore(to: \(target)): \(store.state.final) != recorded \(states[target]!)")
            }
          case 34:
            what = "tool snapshot"
            let label = "s\(labels.count)-v\(v)"
            let seq = try database.snapshot(label: label)
            labels[label] = seq
          case 35, 36:
            what = "tool undo"
            _ = try database.undo()
            try store.reload()
          case 37:
            what = "tool import(export())"
            let exported = try database.export()
            let seq = try database.importState(exported)
            if let seq { issues.add("v\(v) importState(export()) changed something: seq \(seq)") }
            try store.reload()
          case 38:
            what = "tool compact"
            if pick(3) == 0 {
              let report = try database.compact(keep: 10 + pick(30))
              what = "tool compact(base \(report.baseSeq))"
              try store.reload()
            }
          default:
            what = "tool redo"
            _ = try database.redo()
            try store.reload()
          }
          count(what.components(separatedBy: "(").first!)
        } catch let error as RewindError where error.code == .conflict || error.code == .historyBarrier {
          count("refused \(error.code)")
          try store.reload()
        } catch {
          issues.add("v\(v) \(what) threw \(error)")
          try? store.reload()
        }
        record(store, what)
      }
    }

    /// The checks after an upgrade and after a session.
    func check<S: InventoryVersion>(_ store: Store<S, Inventory.Action>, _ moment: String) throws {
      let v = S.number
      let db = try database
      let report = try db.verify()
      if !report.problems.isEmpty { issues.add("v\(v) \(moment): verify: \(report.problems.prefix(3))") }
      let floor = try floor()
      let base = try db.inspect().baseSeq
      var bad = 0
      for seq in states.keys.sorted() where seq >= max(base, 1) {
        do {
          let read = try Inventory.Final(export: db.export(at: seq), version: v)
          let expected = states[seq]!.projected(to: v)
          if read != expected {
            bad += 1
            if bad <= 3 {
              issues.add("v\(v) \(moment): export(at: \(seq)) = \(read)\n    expected \(expected)")
            }
          }
        } catch {
          bad += 1
          if bad <= 3 { issues.add("v\(v) \(moment): export(at: \(seq)) threw \(error)") }
        }
      }
      if bad > 3 { issues.add("v\(v) \(moment): \(bad) seqs export wrongly in all") }
      _ = floor
      record(store, moment)
    }

    /// Walks undo back as far as it goes on a copy of the file, checking memory and file.
    func undoWalk<S: InventoryVersion>(_ type: S.Type, from path: String) throws {
      let copy = path + ".walk-v\(S.number)"
      try? FileManager.default.removeItem(atPath: copy)
      _ = try RewindDatabase(path: path).backup(to: copy)
      let store = try Store(path: copy, initialState: S(), reducer: InventoryReducer<S>())
      let db = try RewindDatabase(path: copy)
      var undone: [Int64] = []
      while true {
        do {
          guard let seq = try store.undo() else { break }
          undone.append(try db.step(movedBy: seq)?.id ?? -1)
        } catch let error as RewindError {
          // Undo stops at a barrier, or at a step whose undo would break the state.
          if error.code != .historyBarrier && error.code != .conflict {
            issues.add("v\(S.number) undo walk: \(error)")
          }
          break
        }
        let file = try Inventory.Final(export: db.export(), version: S.number)
        if file != store.state.final.projected(to: S.number) {
          issues.add("v\(S.number) undo walk at step \(undone.last!): file \(file) != memory \(store.state.final)")
          break
        }
      }
      let report = try db.verify()
      if !report.problems.isEmpty { issues.add("v\(S.number) after undo walk: verify \(report.problems.prefix(3))") }
      while try store.redo() != nil {}
      if try db.verify().problems != [] { issues.add("v\(S.number) after redo walk: verify fails") }
    }

    /// Imports each saved old export into a copy of the file: it must give the state of its seq.
    func importOldExports<S: InventoryVersion>(_ type: S.Type) throws {
      for (version, seq, json) in oldExports where version < S.number {
        let copy = path + ".import-v\(version)-into-v\(S.number)"
        try? FileManager.default.removeItem(atPath: copy)
        _ = try RewindDatabase(path: path).backup(to: copy)
        let db = try RewindDatabase(path: copy)
        do {
          _ = try db.importState(json)
          let read = try Inventory.Final(export: db.export(), version: S.number)
          if read != states[seq]!.projected(to: S.number) {
            issues.add(
              "v\(S.number): importing the v\(version) export of seq \(seq) gives \(read)\n    expected \(states[seq]!.projected(to: S.number))"
            )
          }
        } catch {
          issues.add("v\(S.number): importing the v\(version) export of seq \(seq) threw \(error)")
        }
      }
    }

    func upgrade<S: InventoryVersion>(
      to type: S.Type, expecting: (Inventory.Final) -> Inventory.Final = { $0 }
    ) throws -> Store<S, Inventory.Action> {
      let before = S.number == 1 ? 0 : try database.inspect().lastSeq
      let store = try open(S.self)
      if S.number > 1 {
        migrationSeqs.append(store.lastSeq)
        if store.lastSeq != before + 1 { issues.add("v\(S.number): opening logged \(store.lastSeq - before) entries") }
        let expected = expecting(states[before]!).projected(to: S.number)
        if store.state.final != expected {
          issues.add("v\(S.number) opens with \(store.state.final)\n    expected \(expected)")
        }
      }
      try check(store, "after upgrade")
      return store
    }

    func session<S: InventoryVersion>(_ store: inout Store<S, Inventory.Action>, steps: Int) async throws {
      try await run(&store, steps: steps)
      try check(store, "after session")
      oldExports.append((S.number, store.lastSeq, try database.export()))
    }
  }

  /// Two sessions in CI; set REWIND_INVENTORY_SEEDS for more.
  nonisolated static let seeds =
    (1...(ProcessInfo.processInfo.environment["REWIND_INVENTORY_SEEDS"].flatMap(UInt64.init) ?? 2))
    .map { $0 }

  @Test(arguments: seeds)
  func inventoryEvolvesThroughSevenVersions(seed: UInt64) async throws {
    let directory = try TemporaryDirectory()
    let world = World(path: directory.path("inventory.sqlite"), seed: seed)
    let steps = 60

    var v1 = try world.upgrade(to: InventoryV1.self)
    try await world.session(&v1, steps: steps)
    var v2 = try world.upgrade(to: InventoryV2.self)
    try await world.session(&v2, steps: steps)
    await Task.yield()
    try world.importOldExports(InventoryV2.self)
    var v3 = try world.upgrade(to: InventoryV3.self)
    try await world.session(&v3, steps: steps)
    await Task.yield()
    try world.importOldExports(InventoryV3.self)
    var v4 = try world.upgrade(to: InventoryV4.self)
    try await world.session(&v4, steps: steps)
    await Task.yield()
    try world.undoWalk(InventoryV4.self, from: world.path)
    await Task.yield()
    try world.importOldExports(InventoryV4.self)
    var v5 = try world.upgrade(to: InventoryV5.self)
    try await world.session(&v5, steps: steps)
    var v6 = try world.upgrade(to: InventoryV6.self)
    try await world.session(&v6, steps: steps)
    await Task.yield()
    try world.undoWalk(InventoryV6.self, from: world.path)
    // Old exports across the v5/v6 transforms do not import (see the focused tests).
    var v7 = try world.upgrade(to: InventoryV7.self) { state in
      var trimmed = state
      for id in trimmed.items.keys {
        trimmed.items[id]!.name = trimmed.items[id]!.name.trimmingCharacters(in: .whitespaces)
      }
      return trimmed
    }
    try await world.session(&v7, steps: steps)
    await Task.yield()
    try world.undoWalk(InventoryV7.self, from: world.path)

    // Labelled snapshots restore to their recorded states (those after the last barrier).
    let floor = try world.floor()
    for (label, seq) in world.labels.sorted(by: { $0.value < $1.value }) {
      do {
        _ = try world.database.restore(snapshot: label)
        let read = try Inventory.Final(export: world.database.export(), version: 7)
        if seq < floor {
          world.issues.add("restore(snapshot: \(label)) at \(seq), before the floor \(floor), was allowed")
        } else if read != world.states[seq]!.projected(to: 7) {
          world.issues.add("restore(snapshot: \(label)) = \(read) != \(world.states[seq]!.projected(to: 7))")
        }
      } catch let error as RewindError where seq < floor {
        _ = error
      } catch {
        world.issues.add("restore(snapshot: \(label)) at \(seq) threw \(error)")
      }
    }
    try v7.reload()
    world.record(v7, "snapshot restores")
    if try world.database.verify().problems != [] { world.issues.add("final verify fails") }

    #expect(world.issues.list.isEmpty, "\(world.issues.list.count) issues, the first: \(world.issues.list.prefix(5))")
  }
}
