-- Rewind engine schema, version 5: the app's schema versions, and history carried across them.
--
-- From this version on, the engine records its own migrations in rewind_engine_migrations
-- (earlier releases used grdb_migrations, which belongs to the app if it runs GRDB's
-- DatabaseMigrator; the engine moves its identifiers out of it when it applies this file).

CREATE TABLE rewind_engine_migrations (
  identifier TEXT PRIMARY KEY NOT NULL
);

-- The app's own migrations, in the order the app declares them: version 2 is the first.
--   seq      the migration's log entry (kind 'migration'); 0 when the file was created by a
--            version of the app that already had it (no image in the log predates it)
--   kind     changes    the changes are described in `changes`; the engine applies them to the
--                       row images of earlier entries and snapshots when it reads them
--            transform  the app rewrote its tables; the row images of earlier entries and
--                       snapshots were rewritten with its row transform when it ran
--            barrier    history before `seq` is readable in its old shape, but is never undone,
--                       jumped to or restored; a snapshot at `seq` starts what follows
--   changes  a JSON array of the described changes (empty for a transform or a barrier)
CREATE TABLE rewind_app_migrations (
  version INTEGER PRIMARY KEY,
  identifier TEXT NOT NULL UNIQUE,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('changes', 'transform', 'barrier')),
  changes TEXT NOT NULL CHECK (json_valid(changes))
);

-- The seq of the schema a snapshot's rows are in: a base snapshot written by compaction after
-- a migration holds rows in the shape of that migration, not of its own seq. NULL: its seq.
ALTER TABLE snapshots ADD COLUMN schema_seq INTEGER;
