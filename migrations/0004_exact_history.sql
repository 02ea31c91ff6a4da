-- Rewind engine schema, version 4: exact history.

-- action_log, rebuilt without the CHECK on kind: kinds are checked when the engine reads them,
-- and the table gains a kind written by compaction:
--   compact     older history folded into a base snapshot (payload: base seq, entries removed),
--               logged so that every store on the file notices it
CREATE TABLE action_log_v4 (
  seq INTEGER PRIMARY KEY,
  time TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  action TEXT NOT NULL,
  payload TEXT NOT NULL CHECK (json_valid(payload)),
  changes TEXT NOT NULL CHECK (json_valid(changes)),
  kind TEXT NOT NULL DEFAULT 'action',
  step INTEGER,
  group_key TEXT
);
INSERT INTO action_log_v4 (seq, time, action, payload, changes, kind, step, group_key)
  SELECT seq, time, action, payload, changes, kind, step, group_key FROM action_log;
DROP TABLE action_log;
ALTER TABLE action_log_v4 RENAME TO action_log;

-- The entries of a step's latest application: the undo (or redo) entry that last moved it and
-- the repair after it. The next redo (or undo) reverts exactly those rows, column by column, so
-- undo then redo returns to where it started. NULL: the step's own entries.
ALTER TABLE undo_steps ADD COLUMN applied_from INTEGER;
ALTER TABLE undo_steps ADD COLUMN applied_to INTEGER;

-- A checksum of `rows` (FNV-1a, 64 bits, hex), checked whenever a snapshot is read: a snapshot
-- edited after it was taken is refused instead of restored. NULL for older snapshots.
ALTER TABLE snapshots ADD COLUMN checksum TEXT;
