import Foundation
import GRDB
@_spi(Benchmarks) import Rewind
import TasksExample

/// Instructions per send for the engine and the floor, counted by valgrind's callgrind: a
/// measure that, unlike time, does not drift with what else the machine runs.
///
/// For each size the benchmark creates the file natively, then runs itself twice under
/// `valgrind --tool=callgrind --toggle-collect=…`: once sending the mix through the engine,
/// once replaying the engine's statements through the floor. Only the functions named in
/// `--toggle-collect` are counted, so opening the file and warming up are left out.
@MainActor
struct InstructionCount {
  static let warmup = 60
  static let actions = 600

  let sizes: [Int]
  /// This program without its debug information, which callgrind runs.
  var program = ""

  mutating func run() throws -> String {
    try prepareProgram()
    defer { try? FileManager.default.removeItem(atPath: program) }
    var opens: [String] = []
    var lines = [
      "Instructions per send (callgrind, \(Self.actions) sends of the mix after \(Self.warmup) to warm up)",
      "tasks    | engine     | floor      | engine/floor | floor, no foreign keys | floor, no undo_steps",
    ]
    for size in sizes {
      note("instructions, \(size) tasks: creating the database")
      let (enginePath, floorPath) = try Self.startingFiles(taskCount: size)
      defer {
        removeDatabase(enginePath)
        removeDatabase(floorPath)
      }
      note("instructions, \(size) tasks: opening, the engine and the raw read, under callgrind")
      // With the work of the threads that build the state's tables while the file is read.
      let openEngine = try callgrind(
        collecting: "callgrindEngineOpen", "storeHandedOver", label: "open.\(size)",
        ["--callgrind-child", "open", "--path", floorPath])
      let openRaw = try callgrind(
        collecting: "callgrindRawRead", label: "raw.\(size)", ["--callgrind-child", "raw", "--path", floorPath])
      opens.append(
        "  \(size) tasks: engine \(String(format: "%.1fM", Double(openEngine) / 1e6)), raw read \(String(format: "%.1fM", Double(openRaw) / 1e6)), ratio \(String(format: "%.2f", Double(openEngine) / Double(openRaw)))"
      )
      note("instructions, \(size) tasks: the engine under callgrind")
      let engine = try callgrind(
        collecting: "callgrindEngineSends", label: "engine.\(size)",
        ["--callgrind-child", "engine", "--path", enginePath, "--size", "\(size)"])
      // The floor as the engine writes, then two variants that price what the engine asks of
      // SQLite: foreign keys enforced (its connections' setting), and the undo-stack writes.
      var floors: [Double] = []
      for variant in Variant.allCases {
        note("instructions, \(size) tasks: the floor (\(variant.rawValue)) under callgrind")
        let copy = temporaryDatabase("instructions-floor-\(variant.rawValue)")
        defer { removeDatabase(copy) }
        try FileManager.default.copyItem(atPath: floorPath, toPath: copy)
        let count = try callgrind(
          collecting: "callgrindFloorReplay", label: "floor-\(variant.rawValue).\(size)",
          ["--callgrind-child", "floor", "--variant", variant.rawValue, "--path", copy, "--engine-path", enginePath])
        floors.append(Double(count) / Double(Self.actions))
      }
      let e = Double(engine) / Double(Self.actions)
      lines.append(
        Self.tableRow([
          (String(size), 8), (Self.thousands(e), 10), (Self.thousands(floors[0]), 10),
          (String(format: "%.2f", e / floors[0]), 12), (Self.thousands(floors[1]), 22),
          (Self.thousands(floors[2]), 0),
        ]))
    }
    return (lines + ["", "Instructions to open (the store against reading the same tables raw)"] + opens)
      .joined(separator: "\n")
  }

  /// Instructions per send of each kind of action of the mix, sent alone, for the engine and
  /// the floor: where the engine's own cost is, action by action.
  mutating func runByKind() throws -> String {
    try prepareProgram()
    defer { try? FileManager.default.removeItem(atPath: program) }
    var lines = [
      "Instructions per send by kind of action (callgrind, \(Self.actions) sends of one kind after \(Self.warmup))",
      "tasks    | kind     | engine     | floor      | engine/floor | engine - floor",
    ]
    for size in sizes {
      for (kind, name) in Workload.kinds.enumerated() {
        note("instructions, \(size) tasks, \(name) alone: the engine and the floor under callgrind")
        let (enginePath, floorPath) = try Self.startingFiles(taskCount: size)
        defer {
          removeDatabase(enginePath)
          removeDatabase(floorPath)
        }
        let engine = Double(
          try callgrind(
            collecting: "callgrindEngineSends", label: "engine.\(size).\(name)",
            ["--callgrind-child", "engine", "--path", enginePath, "--size", "\(size)", "--kind", "\(kind)"]))
        let floor = Double(
          try callgrind(
            collecting: "callgrindFloorReplay", label: "floor.\(size).\(name)",
            [
              "--callgrind-child", "floor", "--variant", Variant.asEngine.rawValue, "--path", floorPath,
              "--engine-path", enginePath,
            ]))
        let (e, f) = (engine / Double(Self.actions), floor / Double(Self.actions))
        lines.append(
          Self.tableRow([
            (String(size), 8), (name, 8), (Self.thousands(e), 10), (Self.thousands(f), 10),
            (String(format: "%.2f", e / f), 12), (Self.thousands(e - f), 0),
          ]))
      }
    }
    return lines.joined(separator: "\n")
  }

  /// A new engine file of `taskCount` tasks, and a copy of it for the floor to replay on.
  private static func startingFiles(taskCount: Int) throws -> (engine: String, floor: String) {
    let enginePath = temporaryDatabase("instructions-engine-\(taskCount)")
    let floorPath = temporaryDatabase("instructions-floor-\(taskCount)")
    _ = try TasksStore(path: enginePath, initialState: Workload.state(taskCount: taskCount), reducer: TasksReducer())
    try FileManager.default.copyItem(atPath: enginePath, toPath: floorPath)
    return (enginePath, floorPath)
  }

  /// A line of a table: each cell padded to its width (0: the last, not padded).
  private static func tableRow(_ cells: [(text: String, width: Int)]) -> String {
    cells.map { $0.width > 0 ? $0.text.padding(toLength: $0.width, withPad: " ", startingAt: 0) : $0.text }
      .joined(separator: " | ")
  }

  /// Instructions as thousands, as the tables print them ("163.7k").
  private static func thousands(_ count: Double) -> String { String(format: "%.1fk", count / 1_000) }

  /// What the floor replays: the engine's statements on its schema, or a variant.
  enum Variant: String, CaseIterable {
    case asEngine = "as-engine"
    /// The floor as it was before it ran the engine's connection settings: foreign keys off
    /// (SQLite's default), so no foreign-key checks and no statement journal per upsert.
    case withoutForeignKeys = "no-foreign-keys"
    case withoutUndoSteps = "no-undo-steps"
  }

  static let valgrind = ProcessInfo.processInfo.environment["VALGRIND"] ?? "/usr/bin/valgrind"

  /// Makes the copy of this program that callgrind runs, in ``program``. Throws when valgrind
  /// is missing.
  private mutating func prepareProgram() throws {
    guard FileManager.default.isExecutableFile(atPath: Self.valgrind) else {
      throw FloorError("--instructions needs valgrind at \(Self.valgrind) (Debian: apt-get install valgrind)")
    }
    // valgrind 3.19 cannot read the DWARF 5 debug information Swift emits: run a copy without
    // it (the symbol table, which `--toggle-collect` matches, stays).
    program = temporaryDatabase("rewind-bench") + ".bin"
    try FileManager.default.copyItem(atPath: Bundle.main.executablePath ?? CommandLine.arguments[0], toPath: program)
    try Self.runQuietly("/usr/bin/strip", ["--strip-debug", program])
  }

  /// Runs this program with `arguments` under callgrind, counting only inside `functions`, and
  /// returns the instructions counted. Callgrind collects per thread: a thread's work is
  /// counted inside a function of its own named here.
  private func callgrind(collecting functions: String..., label: String, _ arguments: [String]) throws -> Int {
    // REWIND_CALLGRIND_KEEP=folder keeps each profile there, for callgrind_annotate.
    let kept = ProcessInfo.processInfo.environment["REWIND_CALLGRIND_KEEP"]
    // valgrind cannot write a profile into a folder that does not exist (it says only that
    // it exited with 1).
    if let kept { try FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true) }
    let output =
      kept.map { "\($0)/callgrind.\(label)" } ?? temporaryDatabase("callgrind") + ".out"
    defer { if kept == nil { try? FileManager.default.removeItem(atPath: output) } }
    // Swift seeds its hashing at random in each process, so a dictionary's probes (and the
    // instructions they take) differ from run to run: a fixed seed makes two runs of the same
    // binary count the same, and a change's effect measurable to a few hundred instructions.
    try Self.runQuietly(
      Self.valgrind,
      ["--tool=callgrind", "--callgrind-out-file=\(output)"] + functions.map { "--toggle-collect=*\($0)*" }
        + [program] + arguments,
      environment: ["SWIFT_DETERMINISTIC_HASHING": "1"])
    let text = try String(contentsOfFile: output, encoding: .utf8)
    guard
      let line = text.split(separator: "\n").last(where: { $0.hasPrefix("totals:") || $0.hasPrefix("summary:") }),
      let count = line.split(separator: " ").last.flatMap({ Int($0) })
    else { throw FloorError("no instruction total in callgrind's output") }
    return count
  }

  /// Runs `executable`, its output discarded; throws if it fails.
  private static func runQuietly(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:]
  ) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.standardError = FileHandle(forWritingAtPath: "/dev/null")
    process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw FloorError("\(executable) exited with \(process.terminationStatus): \(arguments.joined(separator: " "))")
    }
  }

  /// The child under callgrind: sends (or replays) the warm-up, then the counted actions.
  @MainActor
  static func child(
    _ role: String, variant: String?, path: String, enginePath: String?, size: Int?, kind: Int? = nil
  ) throws {
    switch role {
    case "engine":
      guard let size else { throw FloorError("--size is needed") }
      if let kind, !Workload.kinds.indices.contains(kind) { throw FloorError("--kind \(kind) is no kind of the mix") }
      let store = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer())
      store.automaticSnapshotSpacing = .max  // no background thread while counting
      var workload = Workload(taskCount: size, onlyKind: kind)
      let actions = (0..<(warmup + actions)).map { workload.action($0) }
      for action in actions.prefix(warmup) { try store.send(action) }
      try callgrindEngineSends(store, Array(actions.dropFirst(warmup)))
    case "floor":
      guard let enginePath else { throw FloorError("--engine-path is needed") }
      let start = try DatabaseQueue(path: path).read { db in
        try Int64.fetchOne(db, sql: "SELECT max(seq) FROM action_log") ?? 0
      }
      var entries = try DatabaseQueue(path: enginePath).read { db in try EngineStatement.entries(after: start, in: db) }
      if variant == Variant.withoutUndoSteps.rawValue {
        entries = entries.map { $0.filter { !$0.sql.contains("undo_steps") } }
      }
      let floor = try Floor(path: path, foreignKeys: variant != Variant.withoutForeignKeys.rawValue)
      let steps = try entries.map(floor.steps)
      for entry in steps.prefix(warmup) { try floor.perform(entry) }
      try callgrindFloorReplay(floor, Array(steps.dropFirst(warmup)))
    case "create":
      // A file to profile by hand (`perf record ... --callgrind-child open --path F`).
      _ = try TasksStore(path: path, initialState: Workload.state(taskCount: size ?? 10_000), reducer: TasksReducer())
    case "open":
      try callgrindEngineOpen(path)
    case "raw":
      _ = try callgrindRawRead(path)
    case "time-open", "time-raw":
      // One timed open in this fresh process, as an app opens its file at launch, until the
      // state is in memory (what it holds is never released: the process ends): the
      // microseconds on standard output.
      var samples = Samples()
      let state: Any =
        role == "time-open"
        ? try samples.time { try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer()) }
        : try samples.time { try Floor.readRows(path: path) }
      FileHandle.standardOutput.write(Data("\(samples.values[0])\n".utf8))
      withExtendedLifetime(state) { exit(0) }
    default:
      throw FloorError("unknown --callgrind-child \(role)")
    }
  }
}

/// The engine's counted sends: callgrind collects inside this function only.
@MainActor @inline(never)
func callgrindEngineSends(_ store: TasksStore, _ actions: [TasksAction]) throws {
  for action in actions { try store.send(action) }
}

/// The floor's counted replay: callgrind collects inside this function only.
@inline(never)
func callgrindFloorReplay(_ floor: Floor, _ entries: [[Floor.Step]]) throws {
  for entry in entries { try floor.perform(entry) }
}

/// Opening a store on the file: callgrind collects inside this function only.
@MainActor @inline(never)
func callgrindEngineOpen(_ path: String) throws {
  let store = try TasksStore(path: path, initialState: TasksState(), reducer: TasksReducer())
  // The store outlives the copy of its state read here: released the other way round (as
  // the compiler chose to for one build), this thread freed the state, 4.4M instructions at
  // 10,000 tasks that the store hands to its background queue.
  withExtendedLifetime(store) { _ = store.state.tasks.count }
}

/// Reading the file's tables raw: callgrind collects inside this function only.
@inline(never)
func callgrindRawRead(_ path: String) throws -> Int {
  try Floor.readRows(path: path).count
}
