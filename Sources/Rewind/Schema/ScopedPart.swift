import GRDB

/// A part of a child state's schema, reached from the parent through the child's key path
/// (``StateSchema/scope(_:viewPrefix:)``).
///
/// It runs the child's own part: what every action and every open runs for it
/// (``SpecializedPart``) is the code compiled where the child's schema declared the part,
/// given the child's state in place through the key path. Until this release `scope` made
/// each of the child's parts over again as a part of the parent's type, whose methods, called
/// through the existential, ran as unspecialized generic code: about 700 instructions a send
/// for each scoped view state, changed or not.
final class ScopedPart<Root, Child>: StatePart {
  let child: SpecializedPart<Child>
  /// The child's key path, applied in place through its offset where it has one (see
  /// ``StatePath``).
  let path: StatePath<Root, Child>
  var keyPath: WritableKeyPath<Root, Child> { path.keyPath }

  init(_ child: SpecializedPart<Child>, at keyPath: WritableKeyPath<Root, Child>) {
    self.child = child
    path = StatePath(keyPath)
  }

  func takeDefaults(from initial: Root) throws { try child.part.takeDefaults(from: initial[keyPath: keyPath]) }

  func setUp(_ db: Database) throws { try child.part.setUp(db) }

  func registerIfPresent(_ db: Database) throws { try child.part.registerIfPresent(db) }

  var declaredEntityTable: String? { child.part.declaredEntityTable }

  var storage: PartStorage { child.part.storage }

  func renewed() -> ScopedPart { ScopedPart(child.renewed(), at: keyPath) }

  func withViewPrefix(_ viewPrefix: String) -> ScopedPart { ScopedPart(child.prefixed(viewPrefix), at: keyPath) }

  func load(_ db: Database) throws -> (inout Root) -> Void {
    let update = try child.load(db)
    let keyPath = keyPath
    return { root in update(&root[keyPath: keyPath]) }
  }

  func idTest(in root: Root) -> Any? { child.idTest(root[keyPath: keyPath]) }

  func danglingReference(in root: Root, idTests: [String: Any]) -> String? {
    child.danglingReference(root[keyPath: keyPath], idTests)
  }

  /// A child stored in place (the path has an offset) is reached through its address, where no
  /// accessor runs; otherwise through a copy the getter gives, so that no setter runs.
  func hasChanges(in root: inout Root) -> Bool {
    if path.offset != nil { return path.modify(&root) { child.hasChanges(&$0) } }
    var value = root[keyPath: keyPath]
    return child.hasChanges(&value)
  }

  /// Takes the child's changes through a mutable access only when it has some, as the parts
  /// themselves do: through the key path, the access runs the child property's setter and
  /// observers, if it has any.
  func takeChanges(from root: inout Root, into changes: inout [RowChange]) throws {
    guard path.offset != nil || hasChanges(in: &root) else { return }
    try path.modify(&root) { try child.takeChanges(&$0, &changes) }
  }

  func rows(of root: Root, into batches: inout RowBatches) throws {
    try child.part.rows(of: root[keyPath: keyPath], into: &batches)
  }

  func rowCount(of root: Root) -> Int { child.part.rowCount(of: root[keyPath: keyPath]) }

  func owns(_ change: RowChange) -> Bool { child.part.owns(change) }

  func prepare(_ changes: [RowChange], _ direction: ChangeDirection) throws -> (inout Root) -> Void {
    let update = try child.part.prepare(changes, direction)
    let keyPath = keyPath
    return { root in update(&root[keyPath: keyPath]) }
  }
}
