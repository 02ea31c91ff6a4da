/// The test store's diff, for checking its output.
@_spi(Testing)
public enum StateDiffProbe {
  public static func diff<T>(expected: T, actual: T) -> String { StateDiff.lines(expected: expected, actual: actual) }
}
