-- Rewind engine schema, version 6: keyed order lists.
--
-- A keyed list family (rewind_lists.owner_table set) keeps one order list per row of its
-- owner table: the tasks of each project, the cards of each column. Its list_entries rows
-- carry the owner's id in `owner` (NULL in the rows of fixed lists). A child is in at most one
-- owner's list of a family, so the primary key stays (list, id), and moving a child, within
-- its owner or to another one, writes one row. Each owner's order is one indexed query:
--
--   SELECT owner, id FROM list_entries WHERE list = 'projectTasks' ORDER BY owner, position;
ALTER TABLE list_entries ADD COLUMN owner;
CREATE INDEX list_entries_by_owner ON list_entries(list, owner, position);

-- The owner table of a keyed list family (an entity table); NULL for a fixed list.
ALTER TABLE rewind_lists ADD COLUMN owner_table TEXT REFERENCES rewind_entity_tables(name);
