#!/usr/bin/env bash
# Per-dimension choice and execution evidence, end to end on a synthetic set: one rule says crash
# on "error" in the title (wrong for half the issues: a body word tells), two cause rules are
# always right. `train` must choose the model (or blend) for symptom and keep the rules for
# cause, print the choice and store it; `classify` follows it and `--model-for` overrides it.
# A stored repro verdict becomes execution evidence: it moves the rules' symptom, is stored with
# the run, `explain` shows it (escaped), `--no-execution` leaves it out. `eval` prints the
# correct/wrong/abstained shares per confidence threshold.
# Usage: bash classifier_choice.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"

one_rule_set "$T/rules"
cat >"$T/rules/cause.json" <<'JSON'
{"rules": [
  {"id": "cause.shape_problem.shape_pass", "dimension": "cause", "label": "shape_problem",
   "fields": ["body"], "weight": 1.0, "patterns": ["\\bshape pass\\b"]},
  {"id": "cause.type_problem.dtype_pass", "dimension": "cause", "label": "type_problem",
   "fields": ["body"], "weight": 1.0, "patterns": ["\\bdtype pass\\b"]}
]}
JSON

python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
with open(t + "/issues.jsonl", "w") as out, open(t + "/gold.csv", "w") as gold:
    gold.write("repo,number,fold,symptom,cause,stage\n")
    for n in range(1, 81):
        odd = n % 2 == 1
        body = ("the converter raised segv boom in the %s pass" if odd else
                "the exported graph gives mismatch values in the %s pass") % ("shape" if n % 4 < 2 else "dtype")
        out.write(json.dumps({"repo": "acme/conv", "number": n, "title": "error when converting model %d" % n,
                              "state": "closed", "labels": [], "author": "u%d" % n,
                              "created_at": "2024-01-01", "body": body, "comments": []}) + "\n")
        gold.write(",".join(["acme/conv", str(n), str(n % 5), "crash" if odd else "wrong_model",
                             "shape_problem" if n % 4 < 2 else "type_problem",
                             "node_conversion" if odd else "optimization"]) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null

# --model-for needs a model, known dimensions, and not --no-model.
expect_exit 1 cf classify --rules "$T/rules" --model-for symptom
expect_grep "needs a trained model" "$T/err"

cf train --gold-file "$T/gold.csv" --folds 0-3 --rules "$T/rules" >"$T/train.txt"
grep -q "^symptom: " "$T/train.txt" || fail "train output: $(cat "$T/train.txt")"
grep -q "^  choice: rules (out-of-fold kappa, corrected: rules 1.000" "$T/train.txt" ||
  fail "cause keeps the rules: $(cat "$T/train.txt")"
grep -q "^    uncorrected: rules" "$T/train.txt" || fail "no uncorrected figures"
grep -q "bootstrap resamples" "$T/train.txt" || fail "no bootstrap evidence"
grep -q "^execution evidence: 0 training issue(s)" "$T/train.txt" || fail "no execution weights"
cf train --gold-file "$T/gold.csv" --folds 0-3 --rules "$T/rules" --json >"$T/train.json"
python3 - "$T/train.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
d = t["dimensions"]
assert d["cause"]["predictor"] == "rules", d["cause"]["choice"]
assert d["symptom"]["predictor"] in ("model", "blend"), d["symptom"]["choice"]
c = d["symptom"]["choice"]
assert c["cv"]["rules"]["kappa"] == 0 and c["gain"] >= c["margin"] and c["win_share"] >= 0.8, c
assert c["corrected"] is True and c["resamples"] == 2000, c
assert d["cause"]["choice"]["cv"]["rules"]["kappa"] == 1, d["cause"]["choice"]
assert set(t["execution"]["kinds"]) >= {"export_crash", "model_fails", "wrong_output"}, t["execution"]
PY

predictors() { python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['predictors'], sort_keys=True))" "$1"; }
cf classify --rules "$T/rules" --json >"$T/run.json"
want=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['dimensions']; print(json.dumps({k: v['predictor'] for k, v in d.items()}, sort_keys=True))" "$T/train.json")
[ "$(predictors "$T/run.json")" = "$want" ] || fail "classify does not follow the stored choice: $(predictors "$T/run.json") vs $want"
cf classify --rules "$T/rules" --model-for symptom,cause,stage --json >"$T/all.json"
[ "$(predictors "$T/all.json")" = '{"cause": "model", "stage": "model", "symptom": "model"}' ] ||
  fail "--model-for all: $(predictors "$T/all.json")"
cf classify --rules "$T/rules" --model-for cause --json >"$T/cause.json"
[ "$(predictors "$T/cause.json")" = '{"cause": "model", "stage": "rules", "symptom": "rules"}' ] ||
  fail "--model-for cause: $(predictors "$T/cause.json")"
expect_exit 2 cf classify --rules "$T/rules" --model-for symptom,colour
expect_grep 'unknown dimension "colour"' "$T/err"
expect_exit 2 cf classify --rules "$T/rules" --model-for symptom --no-model
cf classify --rules "$T/rules" >"$T/run.txt"
grep -q "^  cause (rules):" "$T/run.txt" || fail "classify does not print the predictor: $(cat "$T/run.txt")"

# eval: correct/wrong/abstained shares at each confidence threshold.
cf eval --gold-file "$T/gold.csv" --folds 4 --json >"$T/eval.json"
python3 - "$T/eval.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["selective"]
for dim, one in s.items():
    rows = one["thresholds"]
    assert [r["threshold"] for r in rows] == [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95], rows
    for r in rows:
        assert abs(r["correct"] + r["wrong"] + r["abstained"] - 1) < 1e-9, r
    assert all(a["abstained"] <= b["abstained"] for a, b in zip(rows, rows[1:])), rows
PY
cf eval --gold-file "$T/gold.csv" --folds 4 --thresholds 0.9,0.5 >"$T/eval.txt"
grep -q "^  at confidence threshold t" "$T/eval.txt" || fail "no threshold table: $(head -30 "$T/eval.txt")"
[ "$(grep -c '^  0\.[59]0 ' "$T/eval.txt")" = 6 ] || fail "--thresholds 0.9,0.5: $(cat "$T/eval.txt")"
expect_exit 2 cf eval --gold-file "$T/gold.csv" --thresholds 1.5

# Execution evidence: issue 1's converted model crashes in ONNX Runtime (a repro_runs row as
# `reproduce` stores it; its signature carries an escape sequence). The rules said crash.
sqlite3 "$DB" "INSERT INTO repro_runs(issue_id, verdict, step, signature, model_path)
  SELECT id, 'crash_reproduced', 'session', 'onnxruntimeerror: boom ' || char(27) || '[31mred', '/m.onnx'
  FROM issues WHERE number = 1"
cf classify --rules "$T/rules" --no-model --json >"$T/exec.json"
python3 - "$T/exec.json" "$DB" <<'PY'
import json, sqlite3, sys
r = json.load(open(sys.argv[1]))
assert r["execution_issues"] == 1 and r["moved_by_execution"] == {"symptom": 1}, r
con = sqlite3.connect(sys.argv[2])
rows = con.execute("select e.dimension, e.label, e.kind, e.weight, e.summary from classifier_execution_evidence e "
                   "join issues i on i.id = e.issue_id where run_id = ? and i.number = 1", (r["run_id"],)).fetchall()
assert len(rows) == 1 and rows[0][:3] == ("symptom", "wrong_model", "model_fails") and rows[0][3] > 0, rows
assert rows[0][4].startswith("confirmed by re-execution: crash in ONNX Runtime, signature onnxruntimeerror: boom"), rows
label = con.execute("select l.label, l.scores_json from classifier_labels l join issues i on i.id = l.issue_id "
                    "where run_id = ? and i.number = 1 and dimension = 'symptom'", (r["run_id"],)).fetchone()
assert label[0] == "wrong_model" and json.loads(label[1])["without_execution"] == "crash", label
PY
cf classify --rules "$T/rules" --no-model --no-execution --json >"$T/noexec.json"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['execution_issues']==0 and r['moved_by_execution']=={}, r" "$T/noexec.json" ||
  fail "--no-execution still used the verdict"
cf explain acme/conv#1 --rules "$T/rules" --no-model >"$T/explain.txt"
expect_grep "confirmed by re-execution: crash in ONNX Runtime" "$T/explain.txt"
expect_grep "classify: wrong_model by rules" "$T/explain.txt"
expect_grep "the text alone: crash" "$T/explain.txt"
if grep -q $'\x1b' "$T/explain.txt"; then fail "explain printed a raw escape sequence"; fi
cf explain acme/conv#1 --rules "$T/rules" --no-model --json >"$T/explain.json"
python3 - "$T/explain.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["dimensions"]["symptom"]
assert s["label"] == "crash" and s["classified"]["label"] == "wrong_model", s
assert s["execution"][0]["signature"].endswith("\x1b[31mred"), s["execution"]  # JSON keeps the text
PY
cf explain acme/conv#1 --rules "$T/rules" --no-model --no-execution >"$T/plain.txt"
if grep -q "re-execution" "$T/plain.txt"; then fail "--no-execution still shows the verdict"; fi
echo "choice and execution evidence ok"
