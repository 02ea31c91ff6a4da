import GRDB

/// A part of a child state's schema, reached from the parent through the child's key path
/// (``StateSchema/scope(_:viewPrefix:)``).
///
/// It runs the child's own part: what every action and every open runs for it
/// (``SpecializedPart``) is the code compiled where the child's schema declared the part,
/// given the child's state in place through the key path. Until 6b92f13 `scope` made each of
/// the child's parts over again as a part of the parent's type, whose methods, called through
/// the existential, ran as unspecialized generic code: about 700 instructions a send for each
/// scoped view state, changed or not. Its per-action methods are inlinable, as `scope` is, so
/// that they too are specialized in the app's module (until 062d376 they ran as generic code,
/// about 150 instructions a send for each scoped part).
@usableFromInline
final class ScopedPart<Root, Child>: StatePart {
  @usableFromInline
  let child: SpecializedPart<Child>
  /// The child's key path, applied in place through its offset where it has one (see
  /// ``StatePath``).
  @usableFromInline
  let path: StatePath<Root, Child>
  @usableFromInline
  var keyPath: WritableKeyPath<Root, Child> { path.keyPath }

  @usableFromInline
  init(_ child: SpecializedPart<Child>, at keyPath: WritableKeyPath<Root, Child>) {
    self.child = child
    path = StatePath(keyPath)
  }

  @usableFromInline
  func takeDefaults(from initial: Root) throws { try child.part.takeDefaults(from: initial[keyPath: keyPath]) }

  @usableFromInline
  func setUp(_ db: Database) throws { try child.part.setUp(db) }

  @usableFromInline
  func registerIfPresent(_ db: Database) throws { try child.part.registerIfPresent(db) }

  @usableFromInline
  var declaredEntityTable: String? { child.part.declaredEntityTable }

  @usableFromInline
  var storage: PartStorage { child.part.storage }

  @usableFromInline
  func renewed() -> ScopedPart { ScopedPart(child.renewed(), at: keyPath) }

  @usableFromInline
  func withViewPrefix(_ viewPrefix: String) -> ScopedPart { ScopedPart(child.prefixed(viewPrefix), at: keyPath) }

  @usableFromInline
  func load(_ db: Database) throws -> (inout Root) -> Void {
    let update = try child.load(db)
    let keyPath = keyPath
    return { root in update(&root[keyPath: keyPath]) }
  }

  @usableFromInline
  func idTest(in root: Root) -> Any? { child.idTest(root[keyPath: keyPath]) }

  @usableFromInline
  func danglingReference(in root: Root, idTests: [String: Any]) -> String? {
    child.danglingReference(root[keyPath: keyPath], idTests)
  }

  /// A child stored in place (the path has an offset) is reached through its address, where no
  /// accessor runs; otherwise through a copy the getter gives, so that no setter runs.
  @inlinable
  func hasChanges(in root: inout Root) -> Bool {
    if path.offset != nil { return path.modify(&root) { child.hasChanges(&$0) } }
    var value = root[keyPath: keyPath]
    return child.hasChanges(&value)
  }

  /// Takes the child's changes through a mutable access only when it has some, as the parts
  /// themselves do: through the key path, the access runs the child property's setter and
  /// observers, if it has any.
  @inlinable
  func takeChanges(from root: inout Root, into changes: inout [RowChange]) throws {
    guard path.offset != nil || hasChanges(in: &root) else { return }
    try path.modify(&root) { try child.takeChanges(&$0, &changes) }
  }

  @usableFromInline
  func rows(of root: Root, into batches: inout RowBatches) throws {
    try child.part.rows(of: root[keyPath: keyPath], into: &batches)
  }

  @usableFromInline
  func rowCount(of root: Root) -> Int { child.part.rowCount(of: root[keyPath: keyPath]) }

  @usableFromInline
  func owns(_ change: RowChange) -> Bool { child.part.owns(change) }

  @usableFromInline
  func leavesValueAsIs(_ change: RowChange) -> Bool { child.part.leavesValueAsIs(change) }

  @usableFromInline
  func prepare(_ changes: [RowChange], _ direction: ChangeDirection) throws -> (inout Root) -> Void {
    let update = try child.part.prepare(changes, direction)
    let keyPath = keyPath
    return { root in update(&root[keyPath: keyPath]) }
  }
}
