import ArgumentParser

@main
struct RewindCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rewind",
    abstract: "Inspect and restore Rewind databases, with no app code.",
    discussion: """
      A Rewind database holds an app's entities, order lists and view state in plain tables, \
      and every action in action_log with the row changes it made. This tool reads and \
      rewinds that history from the file alone.
      """,
    version: "0.1.0"
  )
}
