-- The converter campaign (`convfail test`, module campaign/, the only writer of these tables):
-- one campaign = one plan of models (synthetic, torchvision, script) run through torch eager,
-- torch.onnx.export and ONNX Runtime, each model's outcome, and the failure groups.
CREATE TABLE campaigns (
  id            INTEGER PRIMARY KEY,
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  finished_at   TEXT,           -- NULL while running or interrupted (resumable)
  config_json   TEXT NOT NULL,  -- sources, seed, nodes range, opset, rtol, atol, inputs, dtypes, max_elements
  versions_json TEXT NOT NULL   -- {"torch": ..., "onnx": ..., "onnxruntime": ...}
);

-- One row per planned model; seq is its position in the campaign's deterministic plan.
-- outcome: conversion_failure | ort_failure | mismatch | success | invalid.
CREATE TABLE campaign_models (
  campaign_id    INTEGER NOT NULL REFERENCES campaigns(id),
  seq            INTEGER NOT NULL,
  source         TEXT NOT NULL,  -- synthetic | torchvision | script
  name           TEXT NOT NULL,  -- e.g. synthetic-n30-s17, torchvision:resnet18, script:foo.py
  nodes          INTEGER,        -- operators in the torch program (requested N for synthetic)
  model_sha256   TEXT,           -- the exported ONNX model, content-addressed on disk
  outcome        TEXT NOT NULL,
  mismatch_mode  TEXT,           -- optimised | unoptimised | both (for mismatch)
  signature      TEXT,           -- normalised error text (repro/signature), the grouping key
  message        TEXT,           -- the error as said, cut and escaped
  max_abs_diff   REAL,
  max_rel_diff   REAL,
  operators_json TEXT,           -- ONNX operator types in node order: ["Conv","Relu",...]
  graph_json     TEXT,           -- {"ops":["Conv",...],"edges":[[from,to],...]} over ONNX node indices
  durations_json TEXT,           -- {"eager":s,"export":s,"ort":s,...}
  group_id       INTEGER,        -- campaign_groups.id for failures
  PRIMARY KEY (campaign_id, seq)
);
CREATE INDEX campaign_models_outcome ON campaign_models (campaign_id, outcome);

-- Failures grouped by (outcome, signature); one minimised model per group and the issues it
-- may already be reported in.
CREATE TABLE campaign_groups (
  id                   INTEGER PRIMARY KEY,
  campaign_id          INTEGER NOT NULL REFERENCES campaigns(id),
  outcome              TEXT NOT NULL,
  signature            TEXT NOT NULL,
  size                 INTEGER NOT NULL,
  representative_seq   INTEGER,
  original_nodes       INTEGER,
  minimised_nodes      INTEGER,   -- NULL until minimised
  minimised_sha256     TEXT,
  minimised_program    TEXT,      -- the minimised torch program, a short Python file
  minimised_graph_json TEXT,      -- same shape as campaign_models.graph_json
  candidates_json      TEXT,      -- [{"issue":"owner/repo#n","score":x,"why":"..."}], [] = new
  labels_json          TEXT,      -- {"symptom":..,"cause":..,"stage":..} from the classifier
  UNIQUE (campaign_id, outcome, signature)
);
