-- Rewind engine schema, version 8: large snapshots stored in parts.
--
-- A store takes its automatic snapshots on a second connection while it goes on sending. One
-- insert of a whole state (130 MB of JSON at a million tasks) held the write lock for as long
-- as it took to write, about a second, and the store's next send waited for it. The snapshot
-- worker now writes the text in parts of at most 256 KiB, each in a write transaction of its
-- own, and the snapshot's row last, in the transaction that checks its parts are all there:
-- until then no reader sees the snapshot.
--
-- A snapshot's text is its parts' `rows` in `part` order, then its own `rows`. `part_set` names
-- its parts; NULL (every snapshot of an earlier version, and small ones) means it has none.
-- Deleting a snapshot deletes its parts. Parts no snapshot names (a worker stopped between its
-- transactions) are removed by a later snapshot once they are an hour old: `part_set` begins
-- with the time they were written.
ALTER TABLE snapshots ADD COLUMN part_set INTEGER;

CREATE TABLE snapshot_parts (
  part_set INTEGER NOT NULL,
  part INTEGER NOT NULL,
  rows TEXT NOT NULL,
  PRIMARY KEY (part_set, part)
);

CREATE TRIGGER snapshot_parts_go_with_their_snapshot AFTER DELETE ON snapshots
WHEN old.part_set IS NOT NULL
BEGIN
  DELETE FROM snapshot_parts WHERE part_set = old.part_set;
END;
