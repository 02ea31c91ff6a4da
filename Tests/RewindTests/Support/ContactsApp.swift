import Foundation
import GRDB

@testable import Rewind

/// An app that evolves through four versions of its schema, each a migration history must
/// cross: version 2 adds a column, version 3 renames a column and a view property, version 4
/// splits a table with a row transform. Every version reads and writes the same file.
enum Contacts {
  // MARK: Migrations

  static let addPhone = SchemaMigration(
    "2-phone", .addColumn("phone", to: "people", .text, notNull: true, default: ""))
  static let renameName = SchemaMigration(
    "3-full-name", .renameColumn("name", to: "fullName", in: "people"), .renameViewProperty("query", to: "search"))
  static let splitAddresses = SchemaMigration.transform(
    "4-addresses",
    migrate: { db in
      try db.create(table: "addresses") { t in
        t.primaryKey("id", .integer)
        t.column("street", .text).notNull()
      }
      try db.execute(sql: "INSERT INTO addresses (id, street) SELECT id, street FROM people")
      try db.alter(table: "people") { $0.drop(column: "street") }
    },
    rows: { row in
      guard row.table == "people", let street = row["street"], let id = row["id"] else { return [row] }
      var person = row
      person["street"] = nil
      return [person, HistoryRow(table: "addresses", columns: ["id": id, "street": street])]
    })

  // MARK: Actions (one enum for every version; a version ignores what it cannot do)

  enum Action: LoggedAction, Equatable {
    case add(id: Int64, name: String, street: String)
    case rename(id: Int64, name: String)
    case setPhone(id: Int64, phone: String)
    case relocate(id: Int64, street: String)
    case delete(id: Int64)
    case reorder(id: Int64, to: Int)
    case select(Int64?)
    case search(String)
  }

  /// The state of any version, in the shape of the last: what each seq must export as.
  struct Final: Equatable, CustomStringConvertible {
    struct Person: Equatable {
      var fullName: String
      var phone: String
      var street: String
    }
    var people: [Int64: Person] = [:]
    var order: [Int64] = []
    var selected: Int64?
    var search = ""

    var description: String {
      "people \(people.sorted { $0.key < $1.key }), order \(order), view \(selected as Any) \(search)"
    }

    /// Reads an export of the last version.
    init(export: String) throws {
      guard case .object(let document) = try JSONValue.parse(export),
        case .object(let entities)? = document["entities"], case .array(let people)? = entities["people"],
        case .array(let addresses)? = entities["addresses"], case .object(let lists)? = document["lists"],
        case .object(let view)? = document["view"]
      else { throw RewindError(.corruptData, "not an export of version 4: \(export)") }
      var streets: [Int64: String] = [:]
      for case .object(let address) in addresses {
        guard case .integer(let id)? = address["id"], case .string(let street)? = address["street"] else {
          throw RewindError(.corruptData, "bad address \(address)")
        }
        streets[id] = street
      }
      for case .object(let person) in people {
        guard case .integer(let id)? = person["id"], case .string(let name)? = person["fullName"],
          case .string(let phone)? = person["phone"], person.count == 3
        else { throw RewindError(.corruptData, "bad person \(person)") }
        self.people[id] = Person(fullName: name, phone: phone, street: streets[id] ?? "(no address)")
      }
      guard streets.count == self.people.count else { throw RewindError(.corruptData, "addresses \(streets)") }
      if case .array(let ids)? = lists["everyone"] {
        order = ids.compactMap { if case .integer(let id) = $0 { id } else { nil } }
      }
      if case .integer(let id)? = view["selected"] { selected = id }
      if case .string(let text)? = view["search"] { search = text }
    }

    init() {}
  }
}

/// A version of the contacts app.
protocol ContactsVersion: PersistentState, Equatable {
  init()
  /// The state in the last version's shape.
  var final: Contacts.Final { get }
  var ids: [Int64] { get }
  mutating func apply(_ action: Contacts.Action)
}

struct ContactsReducer<State: ContactsVersion>: Reducer {
  func reduce(into state: inout State, action: Contacts.Action) -> Effect<Contacts.Action> {
    state.apply(action)
    return .none
  }
}

// MARK: - Version 1: people(id, name, street), view {selected, query}

struct PersonV1: Entity {
  static let databaseTableName = "people"
  var id: Int64
  var name: String
  var street: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
      t.column("street", .text).notNull()
    }
  }
}

struct ViewV1: Codable, Equatable, Sendable {
  var selected: Int64?
  var query = ""
}

struct ContactsV1: ContactsVersion {
  var people = EntityTable<PersonV1>()
  var order = OrderedIDList<Int64>()
  var view = ViewV1()
  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.people), .list(\.order, named: "everyone", of: PersonV1.self), .view(\.view))
  }
  var ids: [Int64] { Array(order) }
  var final: Contacts.Final {
    var final = Contacts.Final()
    for person in people.values {
      final.people[person.id] = .init(fullName: person.name, phone: "", street: person.street)
    }
    final.order = Array(order)
    final.selected = view.selected
    final.search = view.query
    return final
  }
  mutating func apply(_ action: Contacts.Action) {
    switch action {
    case .add(let id, let name, let street):
      guard people[id] == nil else { return }
      people.insert(PersonV1(id: id, name: name, street: street))
      order.append(id)
    case .rename(let id, let name): people[id]?.name = name
    case .setPhone: break
    case .relocate(let id, let street): people[id]?.street = street
    case .delete(let id):
      guard people.remove(id: id) != nil else { return }
      _ = order.remove(id)
      if view.selected == id { view.selected = nil }
    case .reorder(let id, let index): if order.contains(id) { _ = order.move(id, to: min(index, order.count - 1)) }
    case .select(let id): view.selected = id
    case .search(let text): view.query = text
    }
  }
  mutating func repairViewState() {
    if let id = view.selected, people[id] == nil { view.selected = nil }
  }
}

// MARK: - Version 2: + people.phone

struct PersonV2: Entity {
  static let databaseTableName = "people"
  var id: Int64
  var name: String
  var street: String
  var phone: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("name", .text).notNull()
      t.column("street", .text).notNull()
      t.column("phone", .text).notNull().defaults(to: "")
    }
  }
}

struct ContactsV2: ContactsVersion {
  var people = EntityTable<PersonV2>()
  var order = OrderedIDList<Int64>()
  var view = ViewV1()
  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.people), .list(\.order, named: "everyone", of: PersonV2.self), .view(\.view))
      .migrations(Contacts.addPhone)
  }
  var ids: [Int64] { Array(order) }
  var final: Contacts.Final {
    var final = Contacts.Final()
    for person in people.values {
      final.people[person.id] = .init(fullName: person.name, phone: person.phone, street: person.street)
    }
    final.order = Array(order)
    final.selected = view.selected
    final.search = view.query
    return final
  }
  mutating func apply(_ action: Contacts.Action) {
    switch action {
    case .add(let id, let name, let street):
      guard people[id] == nil else { return }
      people.insert(PersonV2(id: id, name: name, street: street, phone: ""))
      order.append(id)
    case .rename(let id, let name): people[id]?.name = name
    case .setPhone(let id, let phone): people[id]?.phone = phone
    case .relocate(let id, let street): people[id]?.street = street
    case .delete(let id):
      guard people.remove(id: id) != nil else { return }
      _ = order.remove(id)
      if view.selected == id { view.selected = nil }
    case .reorder(let id, let index): if order.contains(id) { _ = order.move(id, to: min(index, order.count - 1)) }
    case .select(let id): view.selected = id
    case .search(let text): view.query = text
    }
  }
  mutating func repairViewState() {
    if let id = view.selected, people[id] == nil { view.selected = nil }
  }
}

// MARK: - Version 3: name → fullName, view query → search

struct PersonV3: Entity {
  static let databaseTableName = "people"
  var id: Int64
  var fullName: String
  var street: String
  var phone: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("fullName", .text).notNull()
      t.column("street", .text).notNull()
      t.column("phone", .text).notNull().defaults(to: "")
    }
  }
}

struct ViewV3: Codable, Equatable, Sendable {
  var selected: Int64?
  var search = ""
}

struct ContactsV3: ContactsVersion {
  var people = EntityTable<PersonV3>()
  var order = OrderedIDList<Int64>()
  var view = ViewV3()
  static var schema: StateSchema<Self> {
    StateSchema(.entities(\.people), .list(\.order, named: "everyone", of: PersonV3.self), .view(\.view))
      .migrations(Contacts.addPhone, Contacts.renameName)
  }
  var ids: [Int64] { Array(order) }
  var final: Contacts.Final {
    var final = Contacts.Final()
    for person in people.values {
      final.people[person.id] = .init(fullName: person.fullName, phone: person.phone, street: person.street)
    }
    final.order = Array(order)
    final.selected = view.selected
    final.search = view.search
    return final
  }
  mutating func apply(_ action: Contacts.Action) {
    switch action {
    case .add(let id, let name, let street):
      guard people[id] == nil else { return }
      people.insert(PersonV3(id: id, fullName: name, street: street, phone: ""))
      order.append(id)
    case .rename(let id, let name): people[id]?.fullName = name
    case .setPhone(let id, let phone): people[id]?.phone = phone
    case .relocate(let id, let street): people[id]?.street = street
    case .delete(let id):
      guard people.remove(id: id) != nil else { return }
      _ = order.remove(id)
      if view.selected == id { view.selected = nil }
    case .reorder(let id, let index): if order.contains(id) { _ = order.move(id, to: min(index, order.count - 1)) }
    case .select(let id): view.selected = id
    case .search(let text): view.search = text
    }
  }
  mutating func repairViewState() {
    if let id = view.selected, people[id] == nil { view.selected = nil }
  }
}

// MARK: - Version 4: addresses split out of people

struct PersonV4: Entity {
  static let databaseTableName = "people"
  var id: Int64
  var fullName: String
  var phone: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("fullName", .text).notNull()
      t.column("phone", .text).notNull().defaults(to: "")
    }
  }
}

struct Address: Entity {
  static let databaseTableName = "addresses"
  var id: Int64
  var street: String
  static func createTable(_ db: Database) throws {
    try db.create(table: databaseTableName) { t in
      t.primaryKey("id", .integer)
      t.column("street", .text).notNull()
    }
  }
}

struct ContactsV4: ContactsVersion {
  var people = EntityTable<PersonV4>()
  var addresses = EntityTable<Address>()
  var order = OrderedIDList<Int64>()
  var view = ViewV3()
  static var schema: StateSchema<Self> {
    StateSchema(
      .entities(\.people), .entities(\.addresses), .list(\.order, named: "everyone", of: PersonV4.self), .view(\.view)
    )
    .migrations(Contacts.addPhone, Contacts.renameName, Contacts.splitAddresses)
  }
  var ids: [Int64] { Array(order) }
  var final: Contacts.Final {
    var final = Contacts.Final()
    for person in people.values {
      final.people[person.id] = .init(
        fullName: person.fullName, phone: person.phone, street: addresses[person.id]?.street ?? "(no address)")
    }
    final.order = Array(order)
    final.selected = view.selected
    final.search = view.search
    return final
  }
  mutating func apply(_ action: Contacts.Action) {
    switch action {
    case .add(let id, let name, let street):
      guard people[id] == nil else { return }
      people.insert(PersonV4(id: id, fullName: name, phone: ""))
      addresses.insert(Address(id: id, street: street))
      order.append(id)
    case .rename(let id, let name): people[id]?.fullName = name
    case .setPhone(let id, let phone): people[id]?.phone = phone
    case .relocate(let id, let street): addresses[id]?.street = street
    case .delete(let id):
      guard people.remove(id: id) != nil else { return }
      _ = addresses.remove(id: id)
      _ = order.remove(id)
      if view.selected == id { view.selected = nil }
    case .reorder(let id, let index): if order.contains(id) { _ = order.move(id, to: min(index, order.count - 1)) }
    case .select(let id): view.selected = id
    case .search(let text): view.search = text
    }
  }
  mutating func repairViewState() {
    if let id = view.selected, people[id] == nil { view.selected = nil }
  }
}
