-- Rewind engine schema, version 2: undo steps and history kinds.

-- What each log entry is: an app action, or one of the engine's own history operations.
--   action      an action sent to the store
--   initialize  the initial state's rows, written when the database was created
--   undo, redo  an undo step reverted or reapplied
--   jump        time travel to an earlier seq (whole state, document or view state only)
--   repair      view state fixed after a document jump (a selection of a deleted entity)
ALTER TABLE action_log ADD COLUMN kind TEXT NOT NULL DEFAULT 'action'
  CHECK (kind IN ('action', 'initialize', 'undo', 'redo', 'jump', 'repair', 'restore', 'import'));
-- The undo step the entry belongs to (NULL: undo skips it). Consecutive entries with the same
-- group key share a step. An entry keeps its step id after the step leaves the stacks (when a
-- new action drops the redo stack), so this is not a foreign key.
ALTER TABLE action_log ADD COLUMN step INTEGER;
ALTER TABLE action_log ADD COLUMN group_key TEXT;

-- The undo and redo stacks. A step's id is the seq of its first entry and last_seq the seq of
-- its last, so its entries are found by a short rowid range scan. Steps with undone = 0 form
-- the undo stack (top: the largest id); steps with undone = 1 form the redo stack (top: the
-- smallest id). Undone steps are always the ones with the largest ids (undo takes the top of
-- the undo stack; a new step first drops the redo stack), so both tops are rowid look-ups and
-- no index is needed. A dropped step's entries stay in the log.
CREATE TABLE undo_steps (
  id INTEGER PRIMARY KEY,
  last_seq INTEGER NOT NULL,
  group_key TEXT,
  undone INTEGER NOT NULL DEFAULT 0 CHECK (undone IN (0, 1))
);

-- Version 1 databases: the initialize entry, and one undo step per entry that changed the
-- document (any table other than view_state).
UPDATE action_log SET kind = 'initialize' WHERE action = 'initialize';
INSERT INTO undo_steps (id, last_seq)
  SELECT seq, seq FROM action_log
  WHERE kind = 'action'
    AND EXISTS (SELECT 1 FROM json_each(changes) WHERE json_extract(value, '$.table') <> 'view_state');
UPDATE action_log SET step = seq WHERE seq IN (SELECT id FROM undo_steps);
