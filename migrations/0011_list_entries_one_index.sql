-- Rewind engine schema, version 11: one index on list_entries, covering what loading reads.
--
-- list_entries had two indexes besides its primary key: (list, position), which loaded a fixed
-- list in order, and (list, owner, position), which loaded a keyed list family and found a
-- position's neighbours. Neither held `id`, so loading a list of 100,000 members looked each
-- row up in the table, and every list write updated both.
--
-- A fixed list's rows carry a NULL owner, so (list, owner, position) orders a fixed list as
-- (list, position) did. With `id` added it covers both loading queries: opening reads the index
-- alone, in order, and each insert, move or removal of a member updates one index, not two.
DROP INDEX list_entries_by_position;
DROP INDEX list_entries_by_owner;
CREATE INDEX list_entries_by_owner ON list_entries(list, owner, position, id);
