-- Rewind engine schema, version 3: snapshots and compaction.

-- Full copies of the state tables as they were right after `seq`, as JSON:
--   {"list_entries":[{row}, ...], "tasks":[...], "view_state":[...]}
--   manual     taken with a label (`rewind snapshot --label NAME`)
--   automatic  taken after max(1000, rows in the state) log entries since the last one, so
--              that restoring any seq reads a bounded number of entries, and the cost of
--              taking them, spread over the actions between them, stays flat
--   base       the state compaction folded older history into; history starts here
CREATE TABLE snapshots (
  id INTEGER PRIMARY KEY,
  label TEXT UNIQUE,
  seq INTEGER NOT NULL,
  time TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  kind TEXT NOT NULL CHECK (kind IN ('manual', 'automatic', 'base')),
  row_count INTEGER NOT NULL,
  rows TEXT NOT NULL CHECK (json_valid(rows))
);
CREATE INDEX snapshots_by_seq ON snapshots(seq);

-- The seq history starts after: 0, or the base snapshot's seq after a compaction.
INSERT INTO rewind_meta (key, value) VALUES ('base_seq', 0);
