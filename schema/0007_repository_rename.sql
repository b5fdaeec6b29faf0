-- Renamed repositories: GitHub answers the old name with 301 to /repositories/<id>. The crawler
-- then stores the new name and the repository's id, and remembers the old name, so that later
-- runs (asked for the old name) go to the new location without the redirect.
ALTER TABLE repositories ADD COLUMN github_id INTEGER;

CREATE TABLE repository_aliases (
  old_name  TEXT PRIMARY KEY COLLATE NOCASE,   -- "owner/name" before the rename
  repo_id   INTEGER NOT NULL REFERENCES repositories(id)
);
