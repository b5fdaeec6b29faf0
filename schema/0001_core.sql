-- convfail core schema: repositories, issues, their labels, comments, timeline events, and
-- full-text search. Later migrations add crawl state, classifier details, artifacts and repro runs.

CREATE TABLE repositories (
  id          INTEGER PRIMARY KEY,
  full_name   TEXT NOT NULL UNIQUE COLLATE NOCASE   -- "owner/name"; converter: see taxonomy
);

CREATE TABLE issues (
  id                 INTEGER PRIMARY KEY,
  repo_id            INTEGER NOT NULL REFERENCES repositories(id),
  number             INTEGER NOT NULL,
  github_id          INTEGER,
  title              TEXT NOT NULL DEFAULT '',
  body               TEXT,
  state              TEXT,
  author             TEXT,
  author_association TEXT,
  created_at         TEXT,
  updated_at         TEXT,
  closed_at          TEXT,
  html_url           TEXT,
  is_pull_request    INTEGER NOT NULL DEFAULT 0,
  comment_count      INTEGER,          -- as GitHub reports it; stored comments may be fewer
  has_fix_link       INTEGER NOT NULL DEFAULT 0,  -- the study's data-availability filter
  raw_json           TEXT,             -- the object as received
  stored_at          TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  UNIQUE (repo_id, number)
);
CREATE INDEX issues_created ON issues(created_at);

CREATE TABLE issue_labels (
  issue_id  INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  name      TEXT NOT NULL,
  PRIMARY KEY (issue_id, name)
) WITHOUT ROWID;
CREATE INDEX issue_labels_name ON issue_labels(name);

CREATE TABLE comments (
  id                 INTEGER PRIMARY KEY,
  issue_id           INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  position           INTEGER NOT NULL,   -- 0-based order in the thread
  github_id          INTEGER,
  author             TEXT,
  author_association TEXT,
  created_at         TEXT,
  updated_at         TEXT,
  body               TEXT,
  raw_json           TEXT,
  UNIQUE (issue_id, position)
);

CREATE TABLE timeline_events (
  id                   INTEGER PRIMARY KEY,
  issue_id             INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  position             INTEGER NOT NULL,
  event                TEXT,     -- closed, referenced, cross-referenced, connected, labeled, ...
  actor                TEXT,
  created_at           TEXT,
  commit_id            TEXT,
  source_repo          TEXT,     -- cross-referenced: repository of the referencing issue or PR
  source_number        INTEGER,
  source_is_pull_request INTEGER,
  source_state         TEXT,
  raw_json             TEXT,
  UNIQUE (issue_id, position)
);

-- Full-text search over titles, bodies and comment bodies (external content, kept by triggers).
CREATE VIRTUAL TABLE issues_fts USING fts5(
  title, body, content='issues', content_rowid='id', tokenize='unicode61');
CREATE VIRTUAL TABLE comments_fts USING fts5(
  body, content='comments', content_rowid='id', tokenize='unicode61');

CREATE TRIGGER issues_fts_insert AFTER INSERT ON issues BEGIN
  INSERT INTO issues_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TRIGGER issues_fts_delete AFTER DELETE ON issues BEGIN
  INSERT INTO issues_fts(issues_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
END;
CREATE TRIGGER issues_fts_update AFTER UPDATE OF title, body ON issues BEGIN
  INSERT INTO issues_fts(issues_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
  INSERT INTO issues_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
END;
CREATE TRIGGER comments_fts_insert AFTER INSERT ON comments BEGIN
  INSERT INTO comments_fts(rowid, body) VALUES (new.id, new.body);
END;
CREATE TRIGGER comments_fts_delete AFTER DELETE ON comments BEGIN
  INSERT INTO comments_fts(comments_fts, rowid, body) VALUES ('delete', old.id, old.body);
END;
CREATE TRIGGER comments_fts_update AFTER UPDATE OF body ON comments BEGIN
  INSERT INTO comments_fts(comments_fts, rowid, body) VALUES ('delete', old.id, old.body);
  INSERT INTO comments_fts(rowid, body) VALUES (new.id, new.body);
END;

-- Manual labels: append-only. Every label, change, skip and adjudication is a new row; the
-- current label of an annotator for a dimension is their latest row. Never updated or deleted
-- (the triggers below refuse it).
CREATE TABLE manual_labels (
  id          INTEGER PRIMARY KEY,
  issue_id    INTEGER NOT NULL REFERENCES issues(id),
  annotator   TEXT NOT NULL,
  dimension   TEXT NOT NULL,   -- symptom | cause | subtype | stage
  value       TEXT,            -- a label id; NULL with kind 'skip'
  kind        TEXT NOT NULL DEFAULT 'label',  -- label | skip | adjudication | undo
  note        TEXT,
  source      TEXT,            -- cli, import:<file>, annotate, adjudicate
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX manual_labels_issue ON manual_labels(issue_id, annotator, dimension, id);
CREATE TRIGGER manual_labels_no_update BEFORE UPDATE ON manual_labels BEGIN
  SELECT RAISE(ABORT, 'manual labels are append-only');
END;
CREATE TRIGGER manual_labels_no_delete BEFORE DELETE ON manual_labels BEGIN
  SELECT RAISE(ABORT, 'manual labels are append-only');
END;

-- Classifier runs and their per-issue decisions. label is NULL when the classifier abstained
-- (stage abstains as 'not_distinguishable').
CREATE TABLE classifier_runs (
  id           INTEGER PRIMARY KEY,
  started_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  finished_at  TEXT,
  rules_hash   TEXT NOT NULL,
  rules_dir    TEXT,
  issue_count  INTEGER,
  params_json  TEXT
);
CREATE TABLE classifier_labels (
  run_id      INTEGER NOT NULL REFERENCES classifier_runs(id) ON DELETE CASCADE,
  issue_id    INTEGER NOT NULL REFERENCES issues(id),
  dimension   TEXT NOT NULL,   -- symptom | cause | stage
  label       TEXT,
  subtype     TEXT,
  confidence  REAL NOT NULL,
  scores_json TEXT,
  PRIMARY KEY (run_id, issue_id, dimension)
) WITHOUT ROWID;
