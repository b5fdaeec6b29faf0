-- Artifacts found in issues (model files, archives, repro scripts, external links) and the
-- verdicts of re-executing them.
CREATE TABLE artifacts (
  id           INTEGER PRIMARY KEY,
  issue_id     INTEGER NOT NULL REFERENCES issues(id),
  kind         TEXT NOT NULL,   -- model | archive | script | external_link
  source_field TEXT,            -- body | comment:<position>
  url          TEXT,            -- for links
  code         TEXT,            -- for scripts
  sha256       TEXT,            -- after fetching
  size_bytes   INTEGER,
  local_path   TEXT,
  fetch_status TEXT,            -- NULL (not fetched) | ok | error:<why> | skipped:<why>
  found_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  UNIQUE (issue_id, kind, url, code)
);

-- One row per re-execution of one model (or script). verdict: crash_reproduced |
-- wrong_output_reproduced | not_reproduced | not_runnable.
CREATE TABLE repro_runs (
  id             INTEGER PRIMARY KEY,
  issue_id       INTEGER REFERENCES issues(id),
  artifact_id    INTEGER REFERENCES artifacts(id),
  model_path     TEXT,
  verdict        TEXT NOT NULL,
  step           TEXT,          -- parse | checker | shape_inference | session | run | compare | export | eager | ...
  signature      TEXT,          -- normalised error text
  reason         TEXT,          -- for not_runnable
  output_name    TEXT,          -- for wrong_output_reproduced: the worst output
  max_abs_error  REAL,
  max_rel_error  REAL,
  ort_version    TEXT,
  onnx_version   TEXT,
  torch_version  TEXT,
  started_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  duration_ms    REAL,
  details_json   TEXT
);
CREATE INDEX repro_runs_issue ON repro_runs(issue_id, id);
