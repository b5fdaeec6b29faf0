-- A classify run is written in short transactions (so label posts and other jobs get the lock
-- between them) and stays invisible while in_progress = 1: readers take the latest run with
-- in_progress = 0. Runs stored before this migration, and runs inserted by other tools, are
-- complete (0).
ALTER TABLE classifier_runs ADD COLUMN in_progress INTEGER NOT NULL DEFAULT 0;
