#!/usr/bin/env bash
# `report --compare` says when an agreement is in-sample (#28 item 12): the classifier run being
# compared used a trained model whose training issues (trained_models.issues_json) include some
# of the compared issues. Trained on folds 0-3 of 40 synthetic issues, the model has seen 32 of
# the 40 an annotator labeled: the report says "trained on 32 of the 40 compared issues" (Markdown
# note, CSV row, JSON); compared only on fold 4, none; a run of the rules alone says nothing.
# Usage: bash reports_compare_trained.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null && command -v jq >/dev/null || skip "python3/jq missing"

one_rule_set "$T/rules"
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
with open(t + "/issues.jsonl", "w") as out, open(t + "/gold.csv", "w") as gold, \
     open(t + "/fold4.csv", "w") as fold4:
    for f in (gold, fold4):
        f.write("repo,number,fold,symptom,cause,stage\n")
    for n in range(1, 41):
        odd = n % 2 == 1
        body = "segv boom in the shape pass" if odd else "mismatch values in the dtype pass"
        out.write(json.dumps({"repo": "acme/conv", "number": n, "state": "closed",
                              "title": "error when converting model %d" % n,
                              "created_at": "2024-01-01", "body": body}) + "\n")
        row = ",".join(["acme/conv", str(n), str(n % 5), "crash" if odd else "wrong_model",
                        "shape_problem" if odd else "type_problem",
                        "node_conversion" if odd else "optimization"])
        gold.write(row + "\n")
        if n % 5 == 4:
            fold4.write(row + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null
cf train --gold-file "$T/gold.csv" --folds 0-3 --rules "$T/rules" --iterations 50 >/dev/null
cf classify --rules "$T/rules" >/dev/null
cf labels import "$T/gold.csv" --annotator ann >/dev/null
cf labels import "$T/fold4.csv" --annotator held >/dev/null

cf report --source ann --compare classifier >"$T/report.md"
expect_grep "In-sample: classifier (classifier run 1) used trained model 1, which was trained on 32 of the 40 compared issues" "$T/report.md"
cf report --source classifier:1 --compare ann --json >"$T/report.json"
[ "$(jq -c '.training_overlap' "$T/report.json")" = '[{"compared":40,"model_id":1,"run_id":1,"source":"classifier:1","trained_on":32}]' ] ||
  fail "training_overlap: $(jq -c '.training_overlap' "$T/report.json")"
cf report --source ann --compare classifier --format csv >"$T/report.csv"
expect_grep '^agreement,Trained on (classifier),Issues,32' "$T/report.csv"

# Compared on the held-out fold only: the model saw none of them, and the report adds no note.
cf report --source held --compare classifier --json >"$T/held.json"
[ "$(jq '.training_overlap[0].trained_on' "$T/held.json")" = 0 ] || fail "$(jq -c .training_overlap "$T/held.json")"
cf report --source held --compare classifier >"$T/held.md"
grep -q "In-sample" "$T/held.md" && fail "a note on a held-out comparison: $(grep In-sample "$T/held.md")"

# The rules alone: no model, nothing to say.
cf classify --rules "$T/rules" --no-model >/dev/null
cf report --source ann --compare classifier --json >"$T/rules.json"
[ "$(jq -c '.training_overlap' "$T/rules.json")" = '[]' ] || fail "rules-only run: $(jq -c .training_overlap "$T/rules.json")"
cf report --source ann --compare classifier >"$T/rules.md"
grep -q "In-sample" "$T/rules.md" && fail "a note on a rules-only run"
echo "ok: in-sample agreement named (32 of 40), none on the held-out fold or the rules alone"
