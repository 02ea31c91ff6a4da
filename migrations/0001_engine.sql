-- Rewind engine schema, version 1.
--
-- Applied in file-name order when a database is opened, and recorded in `grdb_migrations`.
-- Never edit a released file: add a new numbered one.

-- Engine metadata: key/value pairs (the history position lives here from version 2 on).
CREATE TABLE rewind_meta (
  key TEXT PRIMARY KEY NOT NULL,
  value
);

-- The entity tables the app declared, so tools can read and write them with no app code.
CREATE TABLE rewind_entity_tables (
  name TEXT PRIMARY KEY NOT NULL,
  key_column TEXT NOT NULL
);

-- Order lists reference entity ids; each list names the entity table its ids live in.
CREATE TABLE rewind_lists (
  name TEXT PRIMARY KEY NOT NULL,
  entity_table TEXT NOT NULL REFERENCES rewind_entity_tables(name)
);

-- One row per list member. `position` is a fractional index key: the list's order is
-- `ORDER BY position`, and moving one item rewrites that item's row only.
CREATE TABLE list_entries (
  list TEXT NOT NULL,
  id NOT NULL,
  position TEXT NOT NULL,
  PRIMARY KEY (list, id)
);
CREATE INDEX list_entries_by_position ON list_entries(list, position);

-- The view-state tree: one row per path, its value as JSON text.
CREATE TABLE view_state (
  path TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL CHECK (json_valid(value))
);

-- Every committed action, with the row changes it made (table, key, before, after) as JSON.
CREATE TABLE action_log (
  seq INTEGER PRIMARY KEY,
  time TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  action TEXT NOT NULL,
  payload TEXT NOT NULL CHECK (json_valid(payload)),
  changes TEXT NOT NULL CHECK (json_valid(changes))
);
