-- Execution evidence of a classifier run: per issue and dimension, the stored repro verdicts that
-- voted for a label (classifier/execution_evidence.h), with the weight they carried and the line
-- `explain` and the web show ("confirmed by re-execution: crash in ONNX Runtime, signature ...").
-- repro_run_id names the repro_runs row the verdict came from (written by repro/, read here only
-- as a number).
CREATE TABLE classifier_execution_evidence (
  run_id       INTEGER NOT NULL REFERENCES classifier_runs(id) ON DELETE CASCADE,
  issue_id     INTEGER NOT NULL REFERENCES issues(id),
  dimension    TEXT NOT NULL,
  label        TEXT NOT NULL,
  kind         TEXT NOT NULL,   -- export_crash, model_fails, wrong_output, unsupported_operator, ...
  weight       REAL NOT NULL,
  repro_run_id INTEGER NOT NULL,
  run_kind     TEXT NOT NULL,   -- model | script
  verdict      TEXT NOT NULL,
  step         TEXT,
  signature    TEXT,
  summary      TEXT NOT NULL,
  PRIMARY KEY (run_id, issue_id, dimension, kind)
) WITHOUT ROWID;
