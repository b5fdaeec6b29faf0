-- Calibrated confidence of a classifier run (`eval --fit-folds F --store-calibration`): per
-- dimension the isotonic step function fitted on gold labels and the confidence threshold that
-- reached the target accuracy (cross-validated on the fitting folds); per label the calibrated
-- probability that it is right, which the hybrid label source reads.
CREATE TABLE classifier_calibrations (
  run_id          INTEGER NOT NULL REFERENCES classifier_runs(id) ON DELETE CASCADE,
  dimension       TEXT NOT NULL,
  method          TEXT NOT NULL,   -- isotonic
  blocks_json     TEXT NOT NULL,   -- [[raw confidence from, probability], ...] ascending
  threshold       REAL,            -- NULL: the target accuracy was not reached
  target_accuracy REAL NOT NULL,
  fitted_on       TEXT NOT NULL,   -- gold source and folds
  samples         INTEGER NOT NULL,
  created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  PRIMARY KEY (run_id, dimension)
) WITHOUT ROWID;
CREATE TABLE classifier_calibrated (
  run_id      INTEGER NOT NULL REFERENCES classifier_runs(id) ON DELETE CASCADE,
  issue_id    INTEGER NOT NULL REFERENCES issues(id),
  dimension   TEXT NOT NULL,
  probability REAL NOT NULL,
  PRIMARY KEY (run_id, issue_id, dimension)
) WITHOUT ROWID;
