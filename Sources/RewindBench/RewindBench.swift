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
      "Run one workload only, for profiling: dispatch, undo, open, restore or naive.", visibility: .hidden))
  var only: String?
  @Option(help: ArgumentHelp("Run dispatch at this task count only, for profiling.", visibility: .hidden))
  var size: Int?

  func run() throws {
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

  var dispatchSizes: [Int] { onlySize.map { [$0] } ?? [100, 10_000, 100_000] }
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
    if runs("undo") { try undo() }
    if runs("open") { try open() }
    if runs("restore") { try restoreAndExport() }
    if runs("naive") { for size in dispatchSizes { try naive(taskCount: size) } }
  }

  // MARK: - Dispatch: engine, floor, engine without persistence

  /// One size's dispatch run: the engine's store and the floor, with their workloads.
  struct DispatchRun {
    let taskCount: Int
    let enginePath: String
    let floorPath: String
    let sizeBefore: Int64
    var store: TasksStore?
    var floor: Floor?
    var engineWorkload: Workload
    var floorWorkload: Workload
    var engine = Samples()
    var floorSamples = Samples()
  }

  /// The engine and the floor at every size, measured in alternating blocks across all of
  /// them, so that whatever else the machine does falls on every size and both designs alike
  /// (on this shared machine, speed drifts by up to 2x between minutes).
  mutating func dispatch() throws {
    var runs: [DispatchRun] = []
    defer {
      for run in runs {
        removeDatabase(run.enginePath)
        removeDatabase(run.floorPath)
      }
    }
    for taskCount in dispatchSizes {
      note("dispatch, \(taskCount) tasks: creating the databases")
      let initial = Workload.state(taskCount: taskCount)
      let enginePath = temporaryDatabase("engine-\(taskCount)")
      let floorPath = temporaryDatabase("floor-\(taskCount)")
      // Create both and close them (which checkpoints the WAL into the file) before measuring
      // the engine's file size; then reopen for the actions.
      _ = try TasksStore(path: enginePath, initialState: initial, reducer: TasksReducer())
      _ = try TasksStore(path: floorPath, initialState: initial, reducer: TasksReducer())
      var run = DispatchRun(
        taskCount: taskCount, enginePath: enginePath, floorPath: floorPath, sizeBefore: fileSize(enginePath),
        engineWorkload: Workload(taskCount: taskCount), floorWorkload: Workload(taskCount: taskCount))
      run.store = try TasksStore(path: enginePath, initialState: initial, reducer: TasksReducer())
      run.floor = try Floor(path: floorPath, state: initial)
      runs.append(run)
    }
    note("dispatch: \(dispatchActions) actions per size, engine and floor, in alternating blocks")
    let block = 100
    for start in stride(from: 0, to: dispatchActions, by: block) {
      for index in runs.indices {
        var run = runs[index]
        let store = run.store!
        let floor = run.floor!
        for action in start..<min(start + block, dispatchActions) {
          let next = run.engineWorkload.action(action)
          try run.engine.time { try store.send(next) }
        }
        for action in start..<min(start + block, dispatchActions) {
          let next = run.floorWorkload.action(action)
          try run.floorSamples.time { try floor.perform(next) }
        }
        runs[index] = run
      }
    }
    results.peakRSSMiB = peakResidentMiB()
    for index in runs.indices {
      let key = String(runs[index].taskCount)
      results.engine[key] = runs[index].engine
      results.floor[key] = runs[index].floorSamples
      runs[index].store = nil  // closing checkpoints the WAL into the file
      runs[index].floor = nil
      if runs[index].taskCount == 10_000 {
        results.bytesPerAction =
          Double(fileSize(runs[index].enginePath) - runs[index].sizeBefore) / Double(dispatchActions)
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
  }

  /// A closed database of `taskCount` tasks and `logLength` actions of the dispatch mix.
  func makeHistory(_ name: String, taskCount: Int, logLength: Int) throws -> String {
    let path = temporaryDatabase(name)
    let store = try TasksStore(path: path, initialState: Workload.state(taskCount: taskCount), reducer: TasksReducer())
    var workload = Workload(taskCount: taskCount)
    for index in 0..<logLength { try store.send(workload.action(index)) }
    return path
  }

  // MARK: - Open: the engine against reading the same tables raw

  mutating func open() throws {
    let taskCount = 100_000
    let logLength = quick ? 5_000 : 50_000
    note("open: \(taskCount) tasks and \(logLength) more log entries")
    let path = try makeHistory("open", taskCount: taskCount, logLength: logLength)
    defer { removeDatabase(path) }
    var engine = Samples()
    var raw = Samples()
    for _ in 0..<5 {
      try engine.time { _ = try TasksStore.tasks(path: path).state.tasks.count }
      _ = try raw.time { try Floor.readTables(path: path) }
    }
    results.openEngineMs = engine.median / 1_000
    results.openRawMs = raw.median / 1_000
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
      let copy = temporaryDatabase("restore-copy")
      defer { removeDatabase(copy) }
      try FileManager.default.copyItem(atPath: path, toPath: copy)
      if !withSnapshots {
        try DatabaseQueue(path: copy).write { try $0.execute(sql: "DELETE FROM snapshots") }
      }
      let database = try RewindDatabase(path: copy)
      var export = Samples()
      for _ in 0..<3 { _ = try export.time { try database.export(at: target) } }
      var restore = Samples()
      try restore.time { _ = try database.restore(to: target) }
      let key = withSnapshots ? "with_snapshots" : "without_snapshots"
      results.exportMs[key] = export.median / 1_000
      results.restoreMs[key] = restore.median / 1_000
    }
    results.restoreSetup = "\(taskCount) tasks, \(logLength) entries, to seq \(target)"
  }
}
