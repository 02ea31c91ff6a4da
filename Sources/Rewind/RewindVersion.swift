/// The version of this Rewind release, as `rewind --version` and `tasks --version` print it.
public let rewindVersion = "0.6.0"
