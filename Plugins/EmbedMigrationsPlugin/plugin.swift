import Foundation
import PackagePlugin

/// Embeds `migrations/*.sql` into the target that uses the plugin, so the SQL files stay the
/// single source of truth for the engine's schema and need no resource bundle at run time.
@main
struct EmbedMigrationsPlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
    let folder = context.package.directoryURL.appending(path: "migrations")
    let files = try FileManager.default
      .contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
      .filter { $0.pathExtension == "sql" }
      .sorted { $0.lastPathComponent < $1.lastPathComponent }
    let output = context.pluginWorkDirectoryURL.appending(path: "EngineMigrations+Embedded.swift")
    return [
      .buildCommand(
        displayName: "Embedding engine migrations",
        executable: try context.tool(named: "EmbedMigrations").url,
        // The tool lists the folder itself when it runs, and the folder is an input: a file
        // added after SwiftPM planned the build (which it does not do again for that) changes
        // the folder, so the command runs again and embeds it.
        arguments: [output.path, folder.path],
        inputFiles: [folder] + files,
        outputFiles: [output]
      )
    ]
  }
}
