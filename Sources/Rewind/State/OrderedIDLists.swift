/// A family of order lists, one per owner: the tasks of each project, the cards of each column.
///
/// Each owner's list is an ``OrderedIDList``, and a child is in at most one owner's list:
/// adding it to another owner's list moves it there. The schema declares the family once
/// (``StateSchema/lists(_:named:of:ownedBy:)``); its rows are `list_entries` rows that carry
/// the owner's id, so moving one child, within its owner or to another, writes one row, and
/// `sqlite3` shows each owner's order with one query. When an owner is deleted its list goes
/// with it, and a deleted child leaves its list: the engine does both, in the same log entry.
///
/// ```swift
/// state.projectTasks[projectID].append(taskID)
/// state.projectTasks[projectID].move(taskID, to: 0)   // one row changes
/// state.projectTasks[otherProjectID].append(taskID)   // moves it: one row changes
/// state.projectTasks.owner(of: taskID)                // otherProjectID
/// ```
public struct OrderedIDLists<Owner: Hashable & Comparable & Sendable, ID: Hashable & Comparable & Sendable>:
  Sendable
{
  /// The non-empty lists (and, during an action, lists it emptied), by owner.
  @usableFromInline
  var lists: [Owner: OrderedIDList<ID>] = [:]
  /// The owner of each child.
  @usableFromInline
  var owners: [ID: Owner] = [:]
  /// Owners whose lists the action in progress touched.
  @usableFromInline
  var touched: Set<Owner> = []

  /// Creates a family with no lists.
  @inlinable
  public init() {}

  /// The list of `owner`: empty when it has none. Setting or mutating it moves the children
  /// it gains out of any other owner's list. - Complexity: as ``OrderedIDList``'s operations,
  /// plus O(1) for each child the mutation touches (20,000 appends to one owner in one action
  /// took 40 s in a debug build when every access looked at all the action's children so far;
  /// 0.14 s now).
  @inlinable
  public subscript(owner: Owner) -> OrderedIDList<ID> {
    get { lists[owner] ?? OrderedIDList() }
    _modify {
      let owner = stored(owner)
      var list = lists.removeValue(forKey: owner) ?? OrderedIDList()
      defer { store(list, for: owner) }
      yield &list
    }
    set {
      let owner = stored(owner)
      var list = lists.removeValue(forKey: owner) ?? OrderedIDList()
      // Through the list's own operations, so each member's change is tracked.
      for id in list.ids where !newValue.contains(id) { list.remove(id) }
      for (offset, id) in newValue.enumerated() {
        if list.contains(id) { list.move(id, to: offset) } else { list.insert(id, at: offset) }
      }
      store(list, for: owner)
    }
  }

  /// `owner` as the family holds it, if it has a list: its entries' rows name it in those
  /// bytes, and an equal string (the other Unicode normalization form) may be spelled in others.
  @inlinable
  func stored(_ owner: Owner) -> Owner {
    lists.index(forKey: owner).map { lists[$0].key } ?? owner
  }

  /// The owner whose list holds `id`, or `nil`. - Complexity: O(1).
  @inlinable
  public func owner(of id: ID) -> Owner? { owners[id] }

  /// The owners that have a non-empty list, in no particular order.
  @inlinable
  public var ownersWithLists: [Owner] { lists.compactMap { $0.value.isEmpty ? nil : $0.key } }

  /// The number of children in all lists. - Complexity: O(1).
  @inlinable
  public var count: Int { owners.count }

  /// Removes `id` from its owner's list. Returns whether it was in one.
  @inlinable
  @discardableResult
  public mutating func remove(_ id: ID) -> Bool {
    guard let owner = owners[id] else { return false }
    return self[owner].remove(id)
  }

  /// Removes the list of `owner`.
  @inlinable
  public mutating func removeList(of owner: Owner) {
    self[owner].removeAll()
  }

  // MARK: - Engine access

  /// Puts back a list after a mutation: its new members leave their previous owners' lists.
  @inlinable
  mutating func store(_ list: OrderedIDList<ID>, for owner: Owner) {
    touched.insert(owner)
    var list = list
    let changed = list.touched
    list.touched = []
    for id in changed {
      if list.contains(id) {
        if let previous = owners[id], previous != owner {
          lists[previous]?.remove(id)
          touched.insert(previous)
        }
        owners[id] = owner
      } else if owners[id] == owner {
        owners[id] = nil
      }
    }
    // An emptied list stays until the action's changes are taken: it holds their tracking.
    lists[owner] = list.isEmpty && list.pending.isEmpty ? nil : list
  }

  /// Sets or clears the owner and position of `id` without recording a change (loading,
  /// undo, rollback).
  @inlinable
  mutating func setPosition(_ key: String?, of id: ID, owner: Owner?) {
    if let previous = owners[id] {
      lists[previous]?.setPosition(nil, of: id)
      if lists[previous]?.isEmpty == true, lists[previous]?.pending.isEmpty == true { lists[previous] = nil }
      owners[id] = nil
    }
    if let key, let owner {
      lists[owner, default: OrderedIDList()].setPosition(key, of: id)
      owners[id] = owner
    }
  }

  /// Appends `id` to `owner`'s list with `key` (rows read in order), without recording it.
  @inlinable
  mutating func loadPosition(_ key: String, of id: ID, owner: Owner) {
    lists[owner, default: OrderedIDList()].loadPosition(key, of: id)
    owners[id] = owner
  }

  /// Whether the current action touched the list (possibly leaving it as it was).
  @usableFromInline
  var hasPendingChanges: Bool { !touched.isEmpty }

  /// The (id, owner and key before, owner and key after) of every child the current action
  /// moved, added or removed, and resets tracking. A child moved between owners is one change.
  mutating func takeChanges() -> [(id: ID, before: (Owner, String)?, after: (Owner, String)?)] {
    guard !touched.isEmpty else { return [] }
    var before: [ID: (Owner, String)] = [:]
    var after: [ID: (Owner, String)] = [:]
    var ids: [ID] = []
    for owner in touched {
      guard var list = lists[owner] else { continue }
      for (id, old, new) in list.takeChanges(keepingCapacity: false) {
        if before[id] == nil, after[id] == nil { ids.append(id) }
        if let old { before[id] = (owner, old) }
        if let new { after[id] = (owner, new) }
      }
      lists[owner] = list.isEmpty ? nil : list
    }
    touched = []
    return ids.compactMap { id in
      let (old, new) = (before[id], after[id])
      if let old, let new, old.0 == new.0, old.1 == new.1 { return nil }
      return (id, old, new)
    }
  }
}

extension OrderedIDLists: Equatable {
  /// Two families are equal when every owner has the same ids in the same order.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.owners == rhs.owners && lhs.lists.allSatisfy { owner, list in list == rhs[owner] }
  }
}

extension OrderedIDLists: CustomReflectable {
  /// The family reflects as its owners' ids in order, sorted by owner, so test diffs show the
  /// order and none of the bookkeeping.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: lists.keys.sorted().filter { !lists[$0]!.isEmpty }.map { owner -> Mirror.Child in
        (label: "\(owner)", value: lists[owner]!.ids)
      },
      displayStyle: .dictionary)
  }
}

extension OrderedIDLists: Codable where Owner: Codable, ID: Codable {
  private struct OwnerList: Codable {
    var owner: Owner
    var ids: [ID]
  }

  /// Encodes the non-empty lists as an array of `{"owner": ..., "ids": [...]}`, sorted by owner
  /// (the form `rewind export` writes).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(
      lists.keys.sorted().compactMap { owner in
        lists[owner]!.isEmpty ? nil : OwnerList(owner: owner, ids: lists[owner]!.ids)
      })
  }

  /// Decodes what ``encode(to:)`` writes; an owner named twice or an id in two lists is an
  /// error.
  public init(from decoder: any Decoder) throws {
    self.init()
    let container = try decoder.singleValueContainer()
    let decoded = try container.decode([OwnerList].self)
    for list in decoded {
      guard lists[list.owner] == nil, list.ids.allSatisfy({ owners[$0] == nil }) else {
        throw DecodingError.dataCorrupted(
          .init(codingPath: decoder.codingPath, debugDescription: "an owner or an id appears twice in keyed lists"))
      }
      self[list.owner] = OrderedIDList(list.ids)
    }
    guard count == decoded.reduce(0, { $0 + $1.ids.count }) else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "duplicate ids in a keyed list"))
    }
    // Decoded lists are a value, not an action's changes.
    for owner in touched { lists[owner]?.pending = [:] }
    touched = []
  }
}

extension OrderedIDLists: CustomStringConvertible {
  /// Each owner's ids in order, owners sorted: `[1: [3, 2], 2: [5]]`.
  public var description: String {
    let owners = lists.keys.sorted().filter { !lists[$0]!.isEmpty }
    return owners.isEmpty ? "[:]" : "[" + owners.map { "\($0): \(lists[$0]!.ids)" }.joined(separator: ", ") + "]"
  }
}
