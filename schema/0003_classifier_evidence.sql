-- Classifier evidence and extracted facts, beside classifier_labels (0001).
-- Every decision keeps its evidence: the rule, the field it looked at, the byte span, the text.
CREATE TABLE classifier_evidence (
  id           INTEGER PRIMARY KEY,
  run_id       INTEGER NOT NULL REFERENCES classifier_runs(id) ON DELETE CASCADE,
  issue_id     INTEGER NOT NULL REFERENCES issues(id),
  dimension    TEXT NOT NULL,
  label        TEXT NOT NULL,
  subtype      TEXT,
  rule_id      TEXT NOT NULL,
  field        TEXT NOT NULL,   -- title, body, code, traceback, error_line, reporter_comment, ...
  field_index  INTEGER NOT NULL DEFAULT 0,  -- which block/comment of that field
  span_start   INTEGER NOT NULL,            -- byte offsets into that field's text
  span_end     INTEGER NOT NULL,
  matched_text TEXT NOT NULL,
  weight       REAL NOT NULL
);
CREATE INDEX classifier_evidence_issue ON classifier_evidence(run_id, issue_id);

-- Facts extracted from an issue: error type and message, operators, opset, framework versions.
CREATE TABLE classifier_extractions (
  run_id    INTEGER NOT NULL REFERENCES classifier_runs(id) ON DELETE CASCADE,
  issue_id  INTEGER NOT NULL REFERENCES issues(id),
  kind      TEXT NOT NULL,   -- error_type, error_message, onnx_op, aten_op, tf_op, opset, version:<pkg>
  value     TEXT NOT NULL,
  PRIMARY KEY (run_id, issue_id, kind, value)
) WITHOUT ROWID;
