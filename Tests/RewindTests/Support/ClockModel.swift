import Foundation

@testable import Rewind

/// The world clock in plain Swift values, no SQLite: what each action must leave, including
/// what the engine does for the app (a deleted group's timezones go, a deleted timezone leaves
/// its lists), and the document the history operations bring back.
struct ClockModel<Keys: ClockKeys>: Equatable {
  struct Zone: Equatable {
    var city: String
    var offset: Int
    var group: Keys.Key
  }

  struct Document: Equatable {
    var groups: [Keys.Key: String] = [:]
    var zones: [Keys.Key: Zone] = [:]
    /// Each group's timezones in order; a group with none has no entry.
    var order: [Keys.Key: [Keys.Key]] = [:]
    var favourites: [Keys.Key] = []
  }

  var document = Document()
  var view = ClockView<Keys.Key>()

  init() {}

  /// The model of an app state.
  init(_ state: ClockState<Keys>) {
    for group in state.groups.values { document.groups[group.id] = group.name }
    for zone in state.zones.values {
      document.zones[zone.id] = Zone(city: zone.city, offset: zone.offset, group: zone.groupId)
    }
    for owner in state.groupZones.ownersWithLists { document.order[owner] = state.groupZones[owner].ids }
    document.favourites = state.favourites.ids
    view = state.view
  }

  /// What the app's reducer, and the engine after it, do. `uuids` must give the ids the
  /// store's generator gives, in the same order.
  mutating func reduce(_ action: ClockAction<Keys.Key>, uuids: SeededUUIDs) {
    switch action {
    case .addGroup(let name):
      let id = Keys.key(uuids.next(), name: name)
      guard document.groups[id] == nil else { break }
      document.groups[id] = name
      view.selectedGroup = id
    case .renameGroup(let id, let name):
      if document.groups[id] != nil { document.groups[id] = name }
    case .deleteGroup(let id):
      guard document.groups.removeValue(forKey: id) != nil else { break }
      // The foreign key cascades: its timezones go, and leave the favourites.
      let gone = Set(document.zones.filter { $0.value.group == id }.keys)
      for zone in gone { document.zones[zone] = nil }
      document.order[id] = nil
      document.favourites.removeAll { gone.contains($0) }
      if view.selectedGroup == id { view.selectedGroup = nil }
      if let zone = view.selectedZone, gone.contains(zone) { view.selectedZone = nil }
    case .addZone(let city, let offset, let group):
      guard document.groups[group] != nil else { break }
      let id = Keys.key(uuids.next(), name: city)
      guard document.zones[id] == nil else { break }
      document.zones[id] = Zone(city: city, offset: offset, group: group)
      document.order[group, default: []].append(id)
    case .moveZone(let id, let offset):
      guard let group = document.zones[id]?.group else { break }
      Self.move(id, in: &document.order[group, default: []], to: offset)
    case .moveZoneToGroup(let id, let group, let offset):
      guard let zone = document.zones[id], document.groups[group] != nil else { break }
      if zone.group == group {
        Self.move(id, in: &document.order[group, default: []], to: offset)
      } else {
        leaveGroupList(id)
        document.zones[id]?.group = group
        var list = document.order[group] ?? []
        list.insert(id, at: min(max(offset, 0), list.count))
        document.order[group] = list
      }
    case .renameZone(let id, let city):
      document.zones[id]?.city = city
    case .deleteZone(let id):
      guard document.zones[id] != nil else { break }
      leaveGroupList(id)
      document.zones[id] = nil
      document.favourites.removeAll { $0 == id }
      if view.selectedZone == id { view.selectedZone = nil }
    case .favourite(let id):
      guard document.zones[id] != nil else { break }
      if let index = document.favourites.firstIndex(of: id) {
        document.favourites.remove(at: index)
      } else {
        document.favourites.append(id)
      }
    case .moveFavourite(let id, let offset):
      Self.move(id, in: &document.favourites, to: offset)
    case .selectZone(let id):
      view.selectedZone = id.flatMap { document.zones[$0] != nil ? $0 : nil }
    case .selectGroup(let id):
      view.selectedGroup = id.flatMap { document.groups[$0] != nil ? $0 : nil }
    }
  }

  private mutating func leaveGroupList(_ id: Keys.Key) {
    guard let group = document.zones[id]?.group, var list = document.order[group] else { return }
    list.removeAll { $0 == id }
    document.order[group] = list.isEmpty ? nil : list
  }

  /// `OrderedIDList.move`: the id ends at `offset`, clamped.
  private static func move(_ id: Keys.Key, in list: inout [Keys.Key], to offset: Int) {
    guard let index = list.firstIndex(of: id) else { return }
    list.remove(at: index)
    list.insert(id, at: min(max(offset, 0), list.count))
  }

  /// The app's repair of view state that names what no longer exists.
  mutating func repair() {
    if let zone = view.selectedZone, document.zones[zone] == nil { view.selectedZone = nil }
    if let group = view.selectedGroup, document.groups[group] == nil { view.selectedGroup = nil }
  }

  var isRepaired: Bool {
    var repaired = self
    repaired.repair()
    return repaired == self
  }
}
