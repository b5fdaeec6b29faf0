-- Who writes a classify run while in_progress = 1 (issue #41): the process (pid, and its start
-- time in clock ticks after boot, /proc/PID/stat, so that a reused pid is told apart) on host,
-- and how many issues it set out to label. A classify that finds a run of its host whose
-- process is gone marks it abandoned (abandoned_at): still invisible to readers of the latest
-- run, and `report --source classifier:N` refuses it, as any unfinished run, unless
-- --allow-partial. Runs written before this migration have no owner (NULL): never marked.
ALTER TABLE classifier_runs ADD COLUMN pid INTEGER;
ALTER TABLE classifier_runs ADD COLUMN pid_started INTEGER;
ALTER TABLE classifier_runs ADD COLUMN host TEXT;
ALTER TABLE classifier_runs ADD COLUMN planned_issues INTEGER;
ALTER TABLE classifier_runs ADD COLUMN abandoned_at TEXT;
