-- Rewind engine schema, version 9: a snapshot's checksum covers its seq.
--
-- A snapshot's checksum (FNV-1a of its text) covered its rows but not the seq they are the
-- state at, so a seq edited by hand (`UPDATE snapshots SET seq = ...`) went unnoticed: `restore
-- --to` and `export --at` took the rows for the state at the new seq and replayed the log from
-- there, and gave a wrong state with no error (`verify`, which replays the whole log, found it).
-- From this version the checksum is `fnv1a-seq:` and the hash of the seq in decimal, a colon,
-- then the text.
--
-- The tables do not change. Each stored snapshot's checksum is taken again by the engine's own
-- code, right after this file, in the same transaction (`EngineMigrations.followUps`): a
-- snapshot whose rows still match its checksum, or that has none (written before checksums),
-- is sealed with its seq as it stands; one whose rows no longer match keeps its checksum, which
-- the new form cannot match either, so it stays refused. A library that knows only schema 8
-- refuses the file as newer when it opens it, rather than refusing its snapshots as edited.
--
-- One that had the file open before the upgrade goes on writing: its snapshots would carry a
-- checksum of their rows alone, taken after the seal, and be refused as edited. The triggers
-- refuse them when they are written instead (its automatic snapshot is dropped and retried,
-- its `rewind snapshot` or `compact` fails with this message): quit older versions before
-- opening a file with this one for writing.
CREATE TRIGGER snapshots_are_sealed_with_their_seq BEFORE INSERT ON snapshots
WHEN NEW.checksum IS NULL OR NEW.checksum NOT GLOB 'fnv1a-seq:*'
BEGIN
  SELECT RAISE(ABORT, 'a snapshot written by Rewind 0.5 or earlier into a file upgraded to engine schema 9; quit that version');
END;

CREATE TRIGGER snapshots_stay_sealed_with_their_seq BEFORE UPDATE OF checksum ON snapshots
WHEN NEW.checksum IS NULL OR NEW.checksum NOT GLOB 'fnv1a-seq:*'
BEGIN
  SELECT RAISE(ABORT, 'a snapshot rewritten by Rewind 0.5 or earlier in a file upgraded to engine schema 9; quit that version');
END;
