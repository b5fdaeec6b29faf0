-- The measured support matrix (`convfail test support`, campaign/store/support_store writes it): per
-- (torch, onnx, ONNX Runtime release, generator) one matrix; per operator of the synthetic
-- generator, tensor type and opset one cell, the class of where a one-operator model stopped
-- (works, not_in_eager, export_raised, invalid_export, no_kernel, ort_error, wrong_result,
-- crashed, invalid) with the stage, message and signature that say why. A filtered campaign draws only the
-- pairs a cell says work. And a synthetic model's main type (its generator's choice), beside the
-- types it uses (dtypes_json), for the per-type table.
CREATE TABLE support_matrices (
  id INTEGER PRIMARY KEY,
  torch TEXT NOT NULL,
  onnx TEXT NOT NULL,
  onnxruntime TEXT NOT NULL,
  generator INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (torch, onnx, onnxruntime, generator)
);
CREATE TABLE support_cells (
  matrix_id INTEGER NOT NULL REFERENCES support_matrices(id) ON DELETE CASCADE,
  op TEXT NOT NULL,
  dtype TEXT NOT NULL,
  opset INTEGER NOT NULL,
  class TEXT NOT NULL,
  stage TEXT,
  message TEXT,
  signature TEXT,  -- the failure's grouping key (repro's normaliser), as a campaign's models have
  seconds REAL,
  measured_at TEXT NOT NULL,
  PRIMARY KEY (matrix_id, op, dtype, opset)
);
ALTER TABLE campaign_models ADD COLUMN main_dtype TEXT;  -- synthetic: the model's main type
