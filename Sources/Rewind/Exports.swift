// Reducers read generated ids and the date with `@Dependency`, and a store's init takes the
// `DependencyValues` to change: apps get swift-dependencies with Rewind, as TCA's do.
@_exported import Dependencies
// Entities declare their tables with GRDB's schema API and conform to its record protocols,
// so apps get GRDB with Rewind.
@_exported import GRDB
