-- Trained models (`convfail train`): one row per fit, never updated. id is the model's version;
-- classify uses the latest. training_hash = FNV-1a 64 over the training issues' keys and gold
-- labels; issues_json lists those keys (only issues of folds_json when folds were given).
CREATE TABLE trained_models (
  id            INTEGER PRIMARY KEY,
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),
  format        INTEGER NOT NULL,
  rules_hash    TEXT NOT NULL,
  gold_source   TEXT NOT NULL,
  folds_json    TEXT NOT NULL,   -- [] = every gold row
  training_hash TEXT NOT NULL,
  issue_count   INTEGER NOT NULL,
  issues_json   TEXT NOT NULL,   -- ["owner/name#N", ...]
  params_json   TEXT NOT NULL,   -- chosen regularisation and cross-validated figures per dimension
  model_json    TEXT NOT NULL    -- vocabulary, labels, weights
);
