import ArgumentParser
import Foundation
import GRDB
@_spi(Benchmarks) import Rewind
import TasksExample

@main
struct RewindBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rewind-bench",
    abstract: "Measure the engine against the SQLite floor and the naive design, in one run.",
    discussion: """
      Run it in release: swift run -c release rewind-bench. Every workload runs on a fresh \
      database file (WAL, synchronous=NORMAL). The table goes to stdout, progress to stderr.
      """)

  @Flag(help: "Smaller sizes; finishes in under three minutes on two cores.") var quick = false
  @Flag(help: "Print one JSON object instead of the table.") var json = false
  @Option(
    help: ArgumentHelp(
      "Run one workload only, for profiling: dispatch, open, undo, restore, compact or naive.", visibility: .hidden))
  var only: String?
  @Option(help: ArgumentHelp("Run dispatch (or --instructions) at this task count only.", visibility: .hidden))
  var size: Int?
  @Flag(
    help:
      "Count instructions per send for the engine and the floor under valgrind's callgrind (needs valgrind; about 10 minutes)."
  )
  var instructions = false
  @Flag(
    help:
      "With --instructions: count each kind of action of the mix alone, engine and floor (at 10,000 tasks unless --size)."
  )
  var byKind = false
  @Option(help: ArgumentHelp("Internal: the process callgrind runs.", visibility: .private)) var callgrindChild: String?
  @Option(help: ArgumentHelp("Internal.", visibility: .private)) var path: String?
  @Option(help: ArgumentHelp("Internal.", visibility: .private)) var enginePath: String?
  @Option(help: ArgumentHelp("Internal.", visibility: .private)) var variant: String?
  @Option(help: ArgumentHelp("Internal.", visibility: .private)) var kind: Int?

  func run() throws {
    // Each database is removed after its part; this removes the folder they were made in.
    defer { removeTemporaryDirectory() }
    if let callgrindChild {
      try MainActor.assumeIsolated {
        try InstructionCount.child(
          callgrindChild, variant: variant, path: path ?? "", enginePath: enginePath, size: size, kind: kind)
      }
      return
    }
    if instructions {
      try MainActor.assumeIsolated {
        if byKind {
          var count = InstructionCount(sizes: [size ?? 10_000])
          print(try count.runByKind())
        } else {
          var count = InstructionCount(sizes: size.map { [$0] } ?? [100, 10_000, 100_000])
          print(try count.run())
        }
      }
      return
    }
    note("rewind-bench (\(quick ? "quick" : "full")) starting")
    try MainActor.assumeIsolated {
      var bench = Benchmark(quick: quick)
      bench.only = only
      bench.onlySize = size
      try bench.run()
      print(json ? bench.results.json() : bench.results.table())
    }
  }
}

@MainActor
struct Benchmark {
  let quick: Bool
  var only: String?
  var onlySize: Int?
  var results = Results()

  var dispatchSizes: [Int] {
    onlySize.map { [$0] } ?? (quick ? [100, 10_000, 100_000] : [100, 10_000, 100_000, 1_000_000])
  }
  var dispatchActions: Int { quick ? 1_200 : 6_000 }
  var undoLogLengths: [Int] { quick ? [1_000, 100_000] : [1_000, 1_000_000] }

  init(quick: Bool) {
    self.quick = quick
    results.machine = Machine.describe()
    results.mode = quick ? "quick" : "full"
  }

  mutating func run() throws {
    func runs(_ name: String) -> Bool { only == nil || only == name }
    if runs("dispatch") { try dispatch() }
    if only == "open" { try openOnly() }
    if runs("undo") { try undo() }
    if runs("restore") { try restoreAndExport() }
    if runs("compact") { try compaction() }
    if runs("naive") { for size in dispatchSizes where size <= 100_000 { try naive(taskCount: size) } }
  }

  // MARK: - Dispatch: engine, floor, engine without persistence

  /// One size's dispatch run: the engine's store and the floor, with their workloads.
  struct DispatchRun {
    let taskCount: Int
    let enginePath: String
    let floorPath: String
    let sizeBefore: Int64
    var store: TasksStore?
    var engineFile: DatabaseQueue?
    var floor: Floor?
    var workload: Workload
    /// The seq the run started at: the file's creation ends there.
    var startSeq: Int64 = 0
    var engine = Samples()
    var floorSamples = Samples()
    /// What was going on around each engine send, in the order of `engine`'s values.
    var sendContexts: [SlowSends.Context] = []
  }

  /// Entries between the engine's automatic snapshots during the dispatch run: two fall due at
  /// every size, so the slowest send shows whether one stalls `send`.
  var snapshotSpacing: Int64 { Int64(dispatchActions * 2 / 5) }

  /// The engine and the floor at every size, measured in alternating blocks across all of
  /// them, so that whatever else the machine does falls on every size and both designs alike
  /// (on this shared machine, speed drifts by up to 2x between minutes). The floor replays
  /// each block's entries right after the engine wrote them; both files are compared at the end.
  mutating func dispatch() throws {
    var runs: [DispatchRun] = []
    defer {
      for run in runs {
        removeDatabase(run.enginePath)
        removeDatabase(run.floorPath)
      }
    }
    for taskCount in dispatchSizes {
      note("dispatch, \(taskCount) tasks: creating the database")
      let enginePath = temporaryDatabase("engine-\(taskCount)")
      let floorPath = temporaryDatabase("floor-\(taskCount)")
      var created = Samples()
      try created.time {
        // Closing checkpoints the WAL into the file, so the floor starts from a copy of it.
        _ = try TasksStore(
          path: enginePath, initialState: Workload.state(taskCount: taskCount), reducer: TasksReducer())
      }
      results.createMs[String(taskCount)] = created.median / 1_000
      try FileManager.default.copyItem(atPath: enginePath, toPath: floorPath)
      var run = DispatchRun(
        taskCount: taskCount, enginePath: enginePath, floorPath: floorPath, sizeBefore: fileSize(enginePath),
        workload: Workload(taskCount: taskCount))
      let store = try TasksStore(path: enginePath, initialState: TasksState(), reducer: TasksReducer())
      store.automaticSnapshotSpacing = snapshotSpacing
      run.startSeq = store.lastSeq
      run.store = store
      run.engineFile = try DatabaseQueue(path: enginePath)
      run.floor = try Floor(path: floorPath)
      runs.append(run)
    }
    // A few actions first, not measured, so that the first measured send does not pay for
    // preparing statements and loading pages, on either side.
    let warmup = 12
    for index in runs.indices {
      let store = runs[index].store!
      let seqBefore = store.lastSeq
      for action in 0..<warmup { try store.send(runs[index].workload.action(action)) }
      let entries = try runs[index].engineFile!.read { db in try EngineStatement.entries(after: seqBefore, in: db) }
      for entry in entries { try runs[index].floor!.perform(runs[index].floor!.steps(entry)) }
    }
    note("dispatch: \(dispatchActions) actions per size, engine and floor, in alternating blocks")
    let lockWaitsBefore = LockWait.counts
    let block = 100
    for start in stride(from: 0, to: dispatchActions, by: block) {
      for index in runs.indices {
        var run = runs[index]
        let store = run.store!
        let floor = run.floor!
        let seqBefore = store.lastSeq
        for action in start..<min(start + block, dispatchActions) {
          let next = run.workload.action(warmup + action)
          // Read outside the timing: each takes a lock.
          let (snapshotBefore, checkpointsBefore) = (store.isTakingSnapshot, store.walCheckpoints.inCommits)
          try run.engine.time { try store.send(next) }
          run.sendContexts.append(
            .init(
              duringSnapshot: snapshotBefore || store.isTakingSnapshot,
              checkpointInCommit: store.walCheckpoints.inCommits != checkpointsBefore))
        }
        let entries = try run.engineFile!.read { db in try EngineStatement.entries(after: seqBefore, in: db) }
        for entry in try entries.map(floor.steps) {
          try run.floorSamples.time { try floor.perform(entry) }
        }
        runs[index] = run
      }
    }
    let lockWaitsAfter = LockWait.counts
    results.lockWaits = (
      lockWaitsAfter.waits - lockWaitsBefore.waits,
      lockWaitsAfter.sleptMicroseconds - lockWaitsBefore.sleptMicroseconds
    )
    results.peakRSSMiB = peakResidentMiB()
    for index in runs.indices {
      let key = String(runs[index].taskCount)
      runs[index].store!.waitForSnapshots()
      results.checkpointsDuringRun[key] = runs[index].store!.walCheckpoints
      results.engine[key] = runs[index].engine
      results.floor[key] = runs[index].floorSamples
      results.slowSends[key] = SlowSends(
        engine: runs[index].engine, contexts: runs[index].sendContexts, floor: runs[index].floorSamples)
      results.snapshotsDuringRun[key] = try runs[index].engineFile!.read { db in
        try Int.fetchOne(db, sql: "SELECT count(*) FROM snapshots WHERE kind = 'automatic'") ?? 0
      }
      runs[index].store = nil  // closing checkpoints the WAL into the file
      runs[index].floor = nil
      let path = runs[index].enginePath
      let snapshotBytes = try runs[index].engineFile!.read { db in
        try Int64.fetchOne(
          db,
          sql: "SELECT (SELECT total(length(rows)) FROM snapshots) + (SELECT total(length(rows)) FROM snapshot_parts)")
          ?? 0
      }
      // The last connection to close checkpoints the WAL into the file and removes it.
      runs[index].engineFile = nil
      if runs[index].taskCount == 10_000 {
        // The log's growth: the file's, less the snapshots taken during the run.
        results.bytesPerAction =
          Double(fileSize(path) - runs[index].sizeBefore - snapshotBytes) / Double(dispatchActions)
      }
      note("dispatch, \(key) tasks: comparing the engine's file with the floor's")
      results.rowsCompared[key] = try Floor.compare(path, runs[index].floorPath)
      if runs[index].taskCount >= 100_000 {
        try open(path: path, key: key)
        try nearAndFar(path: path, key: key, firstSeq: runs[index].startSeq)
      }
      if runs[index].taskCount == dispatchSizes.last {
        results.fileLayout = try FileLayout(path: path)
      }
    }

    for taskCount in dispatchSizes {
      note("engine without persistence, \(taskCount) tasks")
      var state = Workload.state(taskCount: taskCount)
      let recorder = try StateRecorder(&state)
      var samples = Samples()
      var workload = Workload(taskCount: taskCount)
      let reducer = TasksReducer()
      for index in 0..<dispatchActions {
        let action = workload.action(index)
        _ = try samples.time { try recorder.reduce(reducer, action, &state) }
      }
      results.engineWithoutPersistence[String(taskCount)] = samples
    }
  }

  // MARK: - Open, and restore and export near and far, on a dispatch file

  /// Opening the file with the engine against reading the same tables raw, alternately, each
  /// until its state is in memory; then the release of each, timed apart: for the store, what
  /// the releasing thread waits for, and then the wait for its state to be freed on the
  /// engine's background queue (at a million tasks about a third of its opening: its
  /// dictionaries are freed in hash order, the raw rows in the order they were read).
  mutating func open(path: String, key: String, rounds: Int = 3) throws {
    note("open, \(key) tasks: engine against the raw read")
    var engine = Samples()
    var raw = Samples()
    var engineRelease = Samples()
    var rawRelease = Samples()
    var engineFreed = Samples()
    for _ in 0..<rounds {
      // Held in a variable the closures share, so that the release happens where it is timed.
      var store: TasksStore?
      try engine.time { store = try TasksStore.tasks(path: path) }
      engineRelease.time { store = nil }
      // The state is freed on a queue of the engine's: waited for apart, and over before the
      // raw read.
      engineFreed.time { TasksStore.waitForReleasedStates() }
      var rows: [[Floor.Value]]?
      try raw.time { rows = try Floor.readRows(path: path) }
      rawRelease.time { rows = nil }
      precondition(store == nil && rows == nil)
    }
    results.openEngineMs[key] = engine.median / 1_000
    results.openRawMs[key] = raw.median / 1_000
    // Then each in a process of its own, as an app opens its file at launch: in one process,
    // each read runs on the heap the other's freed memory left, whose reuse or page faults
    // move the times (at a million tasks the raw read took 568 ms after the engine built its
    // state on one thread, 720 ms after it built it on two).
    var engineFresh = Samples()
    var rawFresh = Samples()
    for _ in 0..<rounds {
      engineFresh.values.append(try timedChild("time-open", path: path))
      rawFresh.values.append(try timedChild("time-raw", path: path))
    }
    results.openEngineFreshMs[key] = engineFresh.median / 1_000
    results.openRawFreshMs[key] = rawFresh.median / 1_000
    results.releaseEngineMs[key] = engineRelease.median / 1_000
    results.releaseRawMs[key] = rawRelease.median / 1_000
    results.freedEngineMs[key] = engineFreed.median / 1_000
  }

  /// Runs this program's `--callgrind-child role` on `path`, natively, and returns the
  /// microseconds it printed.
  func timedChild(_ role: String, path: String) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0])
    process.arguments = ["--callgrind-child", role, "--path", path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0,
      let microseconds = Double(
        String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    else { throw FloorError("--callgrind-child \(role) failed (exit \(process.terminationStatus))") }
    return microseconds
  }

  /// Opening alone, for profiling (`--only open`): a new file of each size from 100,000 tasks
  /// (or `--size`), with the mix's first 100 actions in its log, opened and released as the
  /// dispatch run does, fifteen times rather than three, against the raw read.
  mutating func openOnly() throws {
    for taskCount in onlySize.map({ [$0] }) ?? dispatchSizes.filter({ $0 >= 100_000 }) {
      note("open, \(taskCount) tasks: creating the database")
      let path = temporaryDatabase("open-\(taskCount)")
      defer { removeDatabase(path) }
      do {
        let store = try TasksStore(
          path: path, initialState: Workload.state(taskCount: taskCount), reducer: TasksReducer())
        var workload = Workload(taskCount: taskCount)
        for action in 0..<100 { try store.send(workload.action(action)) }
      }
      TasksStore.waitForReleasedStates()
      try open(path: path, key: String(taskCount), rounds: 15)
    }
  }

  /// Restore and export of a seq 10 entries back and of one near the start of the run, on
  /// copies of the file (each restore is measured on a fresh copy).
  mutating func nearAndFar(path: String, key: String, firstSeq: Int64) throws {
    note("restore and export near and far, \(key) tasks")
    let last = try DatabaseQueue(path: path).read { db in
      try Int64.fetchOne(db, sql: "SELECT max(seq) FROM action_log") ?? 0
    }
    // The export of the current state, what any export costs, is timed right after each
    // export at a seq: what the seq adds is the median of the differences, which the machine's
    // drift over a run of one-second exports would hide (medians of exports timed apart moved
    // by tens of milliseconds from run to run at a million tasks).
    var current = Samples()
    for (name, target) in [("near", last - 10), ("far", firstSeq + 100)] {
      let copy = temporaryDatabase("restore-\(key)")
      defer { removeDatabase(copy) }
      try FileManager.default.copyItem(atPath: path, toPath: copy)
      let database = try RewindDatabase(path: copy)
      // The first read of a table after the run is a cold one: the medians leave it out.
      var export = Samples()
      var own = Samples()
      for _ in 0..<5 {
        _ = try export.time { try database.export(at: target) }
        _ = try current.time { try database.export() }
        own.values.append(export.values.last! - current.values.last!)
      }
      var restoring = Samples()
      try restoring.time { _ = try database.restore(to: target) }
      results.seqMs["\(key)/\(name)"] = SeqTimes(
        seq: target, back: last - target, restoreMs: restoring.median / 1_000, exportMs: export.median / 1_000,
        exportOwnMs: own.median / 1_000)
    }
    results.exportCurrentMs[key] = current.median / 1_000
  }

  // MARK: - Naive: the whole state as JSON on every action

  mutating func naive(taskCount: Int) throws {
    let actions =
      taskCount >= 100_000 ? (quick ? 10 : 40) : taskCount >= 10_000 ? (quick ? 60 : 300) : (quick ? 300 : 1_000)
    note("naive, \(taskCount) tasks: \(actions) actions")
    let path = temporaryDatabase("naive-\(taskCount)")
    defer { removeDatabase(path) }
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    let queue = try DatabaseQueue(path: path, configuration: configuration)
    try queue.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA journal_mode = WAL")
      try db.execute(sql: "CREATE TABLE app_state (id INTEGER PRIMARY KEY, json TEXT NOT NULL)")
      try db.execute(sql: "CREATE TABLE action_log (seq INTEGER PRIMARY KEY, action TEXT, payload TEXT)")
    }
    var state = Workload.state(taskCount: taskCount)
    let reducer = TasksReducer()
    let encoder = JSONEncoder()
    var workload = Workload(taskCount: taskCount)
    var samples = Samples()
    for index in 0..<actions {
      let action = workload.action(index)
      try samples.time {
        _ = reducer.reduce(into: &state, action: action)
        let document = NaiveDocument(
          tasks: Array(state.tasks.values), allTasks: state.allTasks.ids, favorited: state.favorited.ids,
          view: state.view)
        let json = String(decoding: try encoder.encode(document), as: UTF8.self)
        let payload = String(decoding: try encoder.encode(action), as: UTF8.self)
        try queue.write { db in
          try db.execute(sql: "INSERT OR REPLACE INTO app_state (id, json) VALUES (1, ?)", arguments: [json])
          try db.execute(
            sql: "INSERT INTO action_log (action, payload) VALUES (?, ?)", arguments: [action.name, payload])
        }
      }
    }
    results.naive[String(taskCount)] = samples
  }

  struct NaiveDocument: Encodable {
    var tasks: [TaskItem]
    var allTasks: [Int64]
    var favorited: [Int64]
    var view: TasksViewState
  }

  // MARK: - Undo and redo with short and long logs

  mutating func undo() throws {
    // Build every log first, then measure them in alternating blocks, so that whatever else
    // the machine does falls on each length alike.
    var stores: [(length: Int, path: String, store: TasksStore)] = []
    defer { for entry in stores { removeDatabase(entry.path) } }
    for length in undoLogLengths {
      note("undo: building a log of \(length) entries")
      let path = temporaryDatabase("undo-\(length)")
      let store = try TasksStore(path: path, initialState: Workload.state(taskCount: 100), reducer: TasksReducer())
      var random = SplitMix64(seed: 11)
      for index in 0..<length {
        try store.send(.rename(id: Int64(random.next() % 100) + 1, title: "Title \(index)"))
      }
      stores.append((length, path, store))
    }
    note("undo: measuring")
    var undos = Array(repeating: Samples(), count: stores.count)
    var redos = Array(repeating: Samples(), count: stores.count)
    for _ in 0..<6 {
      for (index, entry) in stores.enumerated() {
        for _ in 0..<100 { try undos[index].time { _ = try entry.store.undo() } }
        for _ in 0..<100 { try redos[index].time { _ = try entry.store.redo() } }
      }
    }
    for (index, entry) in stores.enumerated() {
      results.undo[String(entry.length)] = undos[index]
      results.redo[String(entry.length)] = redos[index]
    }
    try longTitleUndo()
  }

  /// Undo of one rename to a long title, plain and with a newline every six characters (its
  /// JSON has an escape every six), at two lengths, in alternating rounds: the cost per
  /// character should not grow with the length. (Text that mixed escapes with other
  /// characters was read in time quadratic in its length: 1.4 s for 400,000 characters.)
  mutating func longTitleUndo() throws {
    note("undo: long titles")
    let path = temporaryDatabase("undo-titles")
    defer { removeDatabase(path) }
    let store = try TasksStore(path: path, initialState: Workload.state(taskCount: 100), reducer: TasksReducer())
    for _ in 0..<5 {
      for characters in Results.longTitleLengths {
        for (kind, piece) in [("plain", "abcdef"), ("newlines", "abcde\n")] {
          try store.send(.rename(id: 1, title: String(repeating: piece, count: characters / 6)))
          try results.longTitleUndo["\(kind) \(characters)", default: Samples()].time { _ = try store.undo() }
        }
      }
    }
  }

  // MARK: - Compaction while a store sends

  /// `rewind compact` on a file with a store sending to it all the while, from another
  /// thread: the slowest send is the longest the store waited for what compaction did (its
  /// write lock, the WAL its reads let grow, see the README's Compaction).
  mutating func compaction() throws {
    let taskCount = onlySize ?? (quick ? 10_000 : 100_000)
    let entries = 3_000
    note("compaction, \(taskCount) tasks: making the history")
    let path = try makeHistory("compact", taskCount: taskCount, logLength: entries)
    defer { removeDatabase(path) }
    let store = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer())
    var workload = Workload(taskCount: taskCount)
    final class Outcome: @unchecked Sendable {
      let lock = NSLock()
      var done = false
      var ms = 0.0
      var error: (any Error)?
    }
    let outcome = Outcome()
    note("compaction, \(taskCount) tasks: compacting while the store sends")
    let thread = Thread {
      let start = DispatchTime.now().uptimeNanoseconds
      let error: (any Error)?
      do {
        _ = try RewindDatabase(path: path).compact(keep: 100)
        error = nil
      } catch let failure {
        error = failure
      }
      outcome.lock.withLock {
        (outcome.done, outcome.error) = (true, error)
        outcome.ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
      }
    }
    thread.start()
    var sends = Samples()
    // The WAL's size drives the waits: compaction's reads keep it from starting over.
    var walPeakBytes: Int64 = 0
    while !outcome.lock.withLock({ outcome.done }) {
      let action = workload.action(entries + sends.values.count)
      try sends.time { try store.send(action) }
      if sends.values.count % 64 == 0 { walPeakBytes = max(walPeakBytes, bytes(of: path + "-wal")) }
    }
    if let error = outcome.lock.withLock({ outcome.error }) { throw error }
    results.compaction = (
      taskCount, entries, outcome.lock.withLock { outcome.ms }, sends.values.count, sends.slowest / 1_000, walPeakBytes
    )
  }

  /// A closed database of `taskCount` tasks and `logLength` actions of the dispatch mix.
  func makeHistory(_ name: String, taskCount: Int, logLength: Int) throws -> String {
    let path = temporaryDatabase(name)
    let store = try TasksStore(path: path, initialState: Workload.state(taskCount: taskCount), reducer: TasksReducer())
    var workload = Workload(taskCount: taskCount)
    for index in 0..<logLength { try store.send(workload.action(index)) }
    store.waitForSnapshots()  // released with one under way, the store would drop it
    return path
  }

  // MARK: - Restore and export to a far seq

  mutating func restoreAndExport() throws {
    // About 4,200 rows, so the automatic policy takes a snapshot every ~4,200 entries.
    let taskCount = 2_000
    let logLength = quick ? 12_000 : 40_000
    note("restore: \(taskCount) tasks, \(logLength) log entries")
    let path = try makeHistory("restore", taskCount: taskCount, logLength: logLength)
    defer { removeDatabase(path) }
    // A far seq: early in the log, between two automatic snapshots.
    let target: Int64 = 6_000
    for withSnapshots in [true, false] {
      var export = Samples()
      var restore = Samples()
      // A restore logs an entry, so each of the three starts from a fresh copy: the median of
      // three, as for exports, rather than one sample that carries a cold start.
      for _ in 0..<3 {
        let copy = temporaryDatabase("restore-copy")
        defer { removeDatabase(copy) }
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        if !withSnapshots {
          try DatabaseQueue(path: copy).write { try $0.execute(sql: "DELETE FROM snapshots") }
        }
        let database = try RewindDatabase(path: copy)
        _ = try export.time { try database.export(at: target) }
        try restore.time { _ = try database.restore(to: target) }
      }
      let key = withSnapshots ? "with_snapshots" : "without_snapshots"
      results.exportMs[key] = export.median / 1_000
      results.restoreMs[key] = restore.median / 1_000
    }
    note("verify: \(logLength) entries")
    var verify = Samples()
    let report = try verify.time { try RewindDatabase(path: path).verify() }
    guard report.problems.isEmpty else { throw FloorError("verify found problems: \(report.problems)") }
    results.verifyUsPerEntry = verify.median / Double(report.entriesReplayed)
    results.restoreSetup = "\(taskCount) tasks, \(logLength) entries, to seq \(target)"
  }
}

/// Where a database file's bytes are: the state tables and their indexes, the log, snapshots.
struct FileLayout {
  var fileBytes: Int64 = 0
  var tableBytes: Int64 = 0
  var logBytes: Int64 = 0
  var snapshotBytes: Int64 = 0
  /// The `initialize` entries' row changes: the initial state, once more, in the log.
  var initialEntryBytes: Int64 = 0

  init(path: String) throws {
    fileBytes = fileSize(path)
    try DatabaseQueue(path: path).read { db in
      let pages = try Row.fetchAll(
        db,
        sql: """
          SELECT coalesce(m.tbl_name, s.name) AS owner, sum(s.pgsize) AS bytes
          FROM dbstat AS s LEFT JOIN sqlite_master AS m ON m.name = s.name GROUP BY owner
          """)
      for page in pages {
        let owner: String = page["owner"]
        let bytes: Int64 = page["bytes"]
        switch owner {
        case "action_log", "undo_steps": logBytes += bytes
        case "snapshots", "snapshot_parts": snapshotBytes += bytes
        case "tasks", "projects", "list_entries", "view_state": tableBytes += bytes
        default: break
        }
      }
      initialEntryBytes =
        try Int64.fetchOne(db, sql: "SELECT total(length(changes)) FROM action_log WHERE kind = 'initialize'") ?? 0
    }
  }
}
