-- `convfail bisect` (repro/bisect_store): runs of one model on one ONNX Runtime release, and each
-- bisect's answer. Apart from repro_runs, whose latest row per model is the issue's verdict on
-- the pinned runtime.

-- One run of a model (by content) on a release; reused by later bisects of the same model with
-- the same run options. attempt 2 is the re-run of a release beside a change of verdict.
CREATE TABLE runtime_runs (
  id           INTEGER PRIMARY KEY,
  model_sha256 TEXT NOT NULL,
  options_key  TEXT NOT NULL,   -- sha256 of the run options (tolerances, seed, dims, inputs)
  ort_version  TEXT NOT NULL,
  attempt      INTEGER NOT NULL DEFAULT 1,
  verdict      TEXT NOT NULL,   -- crash_reproduced | wrong_output_reproduced | not_reproduced | not_runnable
  step         TEXT,
  signature    TEXT,
  reason       TEXT,
  message      TEXT,
  duration_ms  REAL,
  started_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  UNIQUE (model_sha256, options_key, ort_version, attempt)
);

-- One bisect of one model: what reports show as fixed in / regressed in / still failing.
CREATE TABLE bisects (
  id                INTEGER PRIMARY KEY,
  model_sha256      TEXT NOT NULL,
  model_path        TEXT,
  issue_id          INTEGER REFERENCES issues(id),
  campaign_group_id INTEGER REFERENCES campaign_groups(id),
  from_version      TEXT NOT NULL,
  to_version        TEXT NOT NULL,
  first_bad         TEXT,
  regressed_in      TEXT,
  fixed_in          TEXT,
  newest_known      TEXT,
  still_failing     INTEGER NOT NULL,
  new_runs          INTEGER NOT NULL,
  stored_runs       INTEGER NOT NULL,
  result_json       TEXT NOT NULL,
  created_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX bisects_issue ON bisects (issue_id, id);
CREATE INDEX bisects_group ON bisects (campaign_group_id, id);
