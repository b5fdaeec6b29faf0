#!/usr/bin/env bash
# `test match` / `test groups` (#50 item 8): a candidate issue must hold the failure's own terms
# (the operator, or the error's specific words), never only words every converter issue holds.
# 30 stored issues all say onnx, export, model, torch, error; a third of them also say "add"
# (common here, by document frequency); one names torch.sinh. A mismatch group of Add alone and
# an ONNX Runtime failure that names no operator get no candidate ("no candidate"); the Sinh
# conversion failure gets the one issue that names sinh, and says it matched on sinh.
# Usage: bash campaign_group_candidates.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null && command -v python3 >/dev/null || skip "sqlite3/python3 missing"

python3 - "$T/issues.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for n in range(1, 31):
        body = "Exporting my model to ONNX with torch fails with an error"
        if n <= 10:
            body += "; I add two tensors first"
        if n == 17:
            body += " in torch.sinh"
        f.write(json.dumps({"repo": "pytorch/pytorch", "number": n, "title": "onnx export error",
                            "body": body, "state": "open"}) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null
sqlite3 "$DB" <<'SQL'
INSERT INTO campaigns(id, config_json, versions_json, finished_at)
  VALUES (1, '{"seed":3}', '{"torch":"1.13.1"}', '2026-01-02T00:00:00Z');
INSERT INTO campaign_models(campaign_id, seq, source, name, nodes, outcome, signature, message, graph_json) VALUES
  (1, 0, 'synthetic', 's0', 5, 'mismatch', 'mismatch optimised: small float difference',
   'outputs differ', '{"ops":["Add"],"edges":[]}'),
  (1, 1, 'synthetic', 's1', 5, 'ort_failure', '[onnxruntimeerror] : n : fail : node ''<name>'' failed',
   '[ONNXRuntimeError] : 1 : FAIL : Node (Add_1) failed', '{"ops":["Add"],"edges":[]}'),
  (1, 2, 'synthetic', 's2', 5, 'conversion_failure',
   'unsupportedoperatorerror: exporting the operator ''aten::sinh'' to onnx opset version n is not supported.',
   'UnsupportedOperatorError: Exporting the operator ''aten::sinh'' to ONNX opset version 16 is not supported.', NULL),
  (1, 3, 'synthetic', 's3', 5, 'success', '', '', '{"ops":["Add"],"edges":[]}');
SQL
cf test match >/dev/null
cf test groups --json >"$T/groups.json"
cf test groups >"$T/groups.txt"
python3 - "$T/groups.json" <<'PY'
import json, sys
groups = {g["outcome"]: g for g in json.load(open(sys.argv[1]))}
assert groups["mismatch"]["candidates"] == [], groups["mismatch"]
assert groups["ort_failure"]["candidates"] == [], groups["ort_failure"]
sinh = groups["conversion_failure"]["candidates"]
assert [c["issue"] for c in sinh] == ["pytorch/pytorch#17"], sinh
assert sinh[0]["why"].startswith("matched: sinh"), sinh
PY
[ "$(grep -c "no candidate: no stored issue names its operator or error (new)" "$T/groups.txt")" = 2 ] ||
  fail "'no candidate' lines: $(cat "$T/groups.txt")"
expect_grep "candidate pytorch/pytorch#17  score [0-9.]*  matched: sinh" "$T/groups.txt"
echo "ok: no candidate on shared words; sinh matched on sinh"
