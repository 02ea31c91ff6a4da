import Foundation

extension Process {
  /// Waits for the process to end and says how, without relying on Foundation noticing: on
  /// Linux, Foundation can miss a child's exit when another child exits at the same moment,
  /// and then the child stays a zombie and `waitUntilExit()` never returns (CI hung so, with
  /// the tool run from two threads at once). The exit is read with `waitid(WNOWAIT)`, which
  /// leaves the child to Foundation to reap. (Twin: `TasksExampleTests`' copy.)
  ///
  /// - Returns: the exit status, or the signal that ended the process and `crashed`.
  @discardableResult
  func waitForExit() -> (status: Int32, crashed: Bool) {
    var info = siginfo_t()
    while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) == -1 {
      guard errno == EINTR else {
        // Reaped already, by Foundation, which then knows how it ended.
        waitUntilExit()
        return (terminationStatus, terminationReason == .uncaughtSignal)
      }
    }
    return (info._sifields._sigchld.si_status, Int(info.si_code) != Int(CLD_EXITED))
  }
}
