/// A writable key path into the state that a part reads on every `send`, applied through its
/// byte offset when it names stored properties laid out inline in the root.
///
/// Applying a key path goes through the Swift runtime, which looks up generic metadata on
/// every application (about 500 instructions, several per `send`). `MemoryLayout.offset(of:)`
/// gives the offset of a path made of stored struct properties, the shape of almost every
/// state path; a path through a computed property, a class or an optional has none and is
/// applied as a key path.
@usableFromInline
struct StatePath<Root, Value> {
  @usableFromInline
  let keyPath: WritableKeyPath<Root, Value>
  @usableFromInline
  let offset: Int?

  @inlinable
  init(_ keyPath: WritableKeyPath<Root, Value>) {
    self.keyPath = keyPath
    offset = MemoryLayout<Root>.offset(of: keyPath)
  }

  /// Runs `body` on the value at the path, in place.
  @inlinable
  func modify<T>(_ root: inout Root, _ body: (inout Value) throws -> T) rethrows -> T {
    guard let offset else { return try body(&root[keyPath: keyPath]) }
    return try withUnsafeMutablePointer(to: &root) { pointer in
      try body(&(UnsafeMutableRawPointer(pointer) + offset).assumingMemoryBound(to: Value.self).pointee)
    }
  }

  /// Reads from the value at the path without copying it.
  ///
  /// `root` is `inout` only so that the value can be reached through its address; it is not
  /// changed. Through a key path the value is read with the getter, so a check that finds
  /// nothing to do does not run a computed property's setter.
  @inlinable
  func read<T>(_ root: inout Root, _ body: (Value) throws -> T) rethrows -> T {
    guard let offset else { return try body(root[keyPath: keyPath]) }
    return try withUnsafeMutablePointer(to: &root) { pointer in
      try body((UnsafeMutableRawPointer(pointer) + offset).assumingMemoryBound(to: Value.self).pointee)
    }
  }
}
