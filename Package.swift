// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Rewind",
  platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
  products: [
    .library(name: "Rewind", targets: ["Rewind"]),
    .library(name: "RewindTesting", targets: ["RewindTesting"]),
    .executable(name: "rewind", targets: ["RewindCLI"]),
    .executable(name: "tasks", targets: ["TasksCLI"]),
    .executable(name: "rewind-bench", targets: ["RewindBench"]),
  ],
  dependencies: [
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    // Tests only: property-based checks of history over random action sequences.
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    // `swift package generate-documentation --target Rewind` builds the DocC catalog.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    // RewindTesting: diffs of app values (custom-dump) reported to whichever test framework
    // runs (IssueReporting, from xctest-dynamic-overlay).
    .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
    // `rewind ui`: Hummingbird, the Swift server ecosystem's HTTP server, in its own target.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    // Reducers read generated ids and the current date through `@Dependency`, so that a test
    // store can make them deterministic.
    .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
  ],
  targets: [
    // The engine.
    .target(
      name: "Rewind",
      dependencies: [
        .product(name: "GRDB", package: "GRDB.swift"),
        // The C API, to read a file's header through SQLite's file layer (see DatabaseFile).
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
        // The dependencies (`\.uuid`, `\.date`) a store scopes its reducer and effects to.
        .product(name: "Dependencies", package: "swift-dependencies"),
        "RewindSQLiteShim",
      ],
      plugins: ["EmbedMigrationsPlugin"]
    ),
    // SQLite's variadic `sqlite3_db_config`, which Swift cannot call, for the one option the
    // engine sets that GRDB's own shim does not wrap.
    .target(name: "RewindSQLiteShim", dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")]),
    // The engine's schema lives in `migrations/*.sql`; this tool and plugin compile those files
    // into the library so they stay the single source of truth.
    .executableTarget(name: "EmbedMigrations"),
    .plugin(
      name: "EmbedMigrationsPlugin",
      capability: .buildTool(),
      dependencies: ["EmbedMigrations"]
    ),
    // An exhaustive test store for apps' reducer tests (Swift Testing or XCTest).
    .target(
      name: "RewindTesting",
      dependencies: [
        "Rewind",
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        // Links the test frameworks' reporting hooks into whatever test bundle uses the store.
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
    // The example app from the seed articles, as a library so tests can drive it.
    .target(name: "TasksExample", dependencies: ["Rewind"]),
    // What both command-line tools share: negative numbers as values, suggestions for
    // misspelt commands.
    .target(
      name: "CommandLineSupport",
      dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]
    ),
    .executableTarget(
      name: "TasksCLI",
      dependencies: [
        "TasksExample", "CommandLineSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // `rewind ui`: the timeline page and its JSON API. The engine does not depend on it.
    .target(
      name: "RewindUI",
      dependencies: [
        "Rewind",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .executableTarget(
      name: "RewindCLI",
      dependencies: [
        "Rewind", "CommandLineSupport", "RewindUI",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // `swift run -c release rewind-bench`: the engine against its baselines, in one run.
    .executableTarget(
      name: "RewindBench",
      dependencies: [
        "Rewind", "TasksExample",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .testTarget(
      name: "RewindTests",
      dependencies: [
        "Rewind", "RewindTesting", "TasksExample",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      // Files written by earlier releases, read from the source tree by ReleaseFixtureTests.
      exclude: ["Fixtures"]
    ),
    .testTarget(
      name: "TasksExampleTests",
      dependencies: ["TasksExample", "TasksCLI", "RewindCLI"]
    ),
  ]
)
