// Entities declare their tables with GRDB's schema API and conform to its record protocols,
// so apps get GRDB with Rewind.
@_exported import GRDB
