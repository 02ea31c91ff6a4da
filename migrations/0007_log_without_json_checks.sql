-- Rewind engine schema, version 7: the log's cost per entry.
--
-- action_log and snapshots, rebuilt without their CHECK (json_valid(...)) constraints. SQLite
-- parsed every entry's payload and changes again on insert: a tenth of SQLite's own work per
-- action (rewind-bench --instructions: 87.6k instructions per action with the checks, 78.5k
-- without), and a second parse of a whole snapshot while it holds the write lock. The engine
-- writes that JSON itself; reading an entry parses it and refuses one that is not valid, naming
-- its seq, `verify` checks every entry's JSON, and snapshots keep their checksum.
--
-- The engine binds each entry's time, so the DEFAULT below only serves rows written by hand.

CREATE TABLE action_log_v7 (
  seq INTEGER PRIMARY KEY,
  time TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  action TEXT NOT NULL,
  payload TEXT NOT NULL,
  changes TEXT NOT NULL,
  kind TEXT NOT NULL DEFAULT 'action',
  step INTEGER,
  group_key TEXT
);
INSERT INTO action_log_v7 (seq, time, action, payload, changes, kind, step, group_key)
  SELECT seq, time, action, payload, changes, kind, step, group_key FROM action_log;
DROP TABLE action_log;
ALTER TABLE action_log_v7 RENAME TO action_log;

CREATE TABLE snapshots_v7 (
  id INTEGER PRIMARY KEY,
  label TEXT UNIQUE,
  seq INTEGER NOT NULL,
  time TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  kind TEXT NOT NULL CHECK (kind IN ('manual', 'automatic', 'base')),
  row_count INTEGER NOT NULL,
  rows TEXT NOT NULL,
  checksum TEXT,
  schema_seq INTEGER
);
INSERT INTO snapshots_v7 (id, label, seq, time, kind, row_count, rows, checksum, schema_seq)
  SELECT id, label, seq, time, kind, row_count, rows, checksum, schema_seq FROM snapshots;
DROP TABLE snapshots;
ALTER TABLE snapshots_v7 RENAME TO snapshots;
CREATE INDEX snapshots_by_seq ON snapshots(seq);
