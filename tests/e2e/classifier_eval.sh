#!/usr/bin/env bash
# Imports the shared jajal2024 issues, classifies them, evaluates against labels.csv on the
# development folds and on the held-out fold, and checks that the printed figures equal the
# --json ones. Usage: bash classifier_eval.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
data=$SHARED/datasets/jajal2024
[ -f "$data/issues.jsonl" ] && [ -f "$data/labels.csv" ] || skip "shared dataset missing"

cf import "$data/issues.jsonl" >/dev/null
cf classify --json >"$T/run.json"
python3 - "$T/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
assert run["issues"] == 200, run
assert run["run_id"] == 1
assert len(run["rules_hash"]) == 16
PY

# Wrong arguments: clear errors, non-zero exits.
if cf eval --gold-file "$data/labels.csv" --folds x 2>"$T/err"; then echo "bad --folds accepted"; exit 1; fi
grep -q "folds" "$T/err"
if cf eval 2>/dev/null; then echo "eval without gold accepted"; exit 1; fi
if cf eval --gold-file "$data/labels.csv" --run 99 2>"$T/err"; then echo "unknown run accepted"; exit 1; fi
grep -q "no classifier run 99" "$T/err"
if cf explain nonsense 2>/dev/null; then echo "bad issue ref accepted"; exit 1; fi

for folds in 0-3 4; do
  cf eval --gold-file "$data/labels.csv" --folds "$folds" >"$T/eval.txt"
  cf eval --gold-file "$data/labels.csv" --folds "$folds" --json >"$T/eval.json"
  python3 - "$T/eval.txt" "$T/eval.json" "$folds" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
report = json.load(open(sys.argv[2]))
expected_n = 160 if sys.argv[3] == "0-3" else 40
assert report["gold_issues"] == expected_n and report["missing"] == 0, report
for dim in ("symptom", "cause", "stage"):
    d = report["dimensions"][dim]
    m = re.search(r"^%s: (.*)$" % dim, text, re.M)
    assert m, "no line for " + dim
    printed = dict(kv.split("=") for kv in m.group(1).split() if "=" in kv)
    assert int(printed["n"]) == d["n"] == expected_n, (printed, d)
    for key in ("accuracy", "macro_f1", "kappa", "coverage", "covered_accuracy", "covered_kappa"):
        assert printed[key] == "%.3f" % d[key], (dim, key, printed[key], d[key])
    assert 0 <= d["coverage"] <= 1 and -1 <= d["kappa"] <= 1
    assert sum(sum(r) for r in d["confusion"]["counts"]) == expected_n
    print("folds %s %s: kappa=%.3f coverage=%.3f" % (sys.argv[3], dim, d["kappa"], d["coverage"]))
PY
done

# --by-rule: per-rule counts equal the stored evidence on development issues, and the printed
# table equals the JSON.
cf eval --gold-file "$data/labels.csv" --folds 0-3 --by-rule >"$T/rules.txt"
cf eval --gold-file "$data/labels.csv" --folds 0-3 --by-rule --json >"$T/rules.json"
python3 - "$T/rules.txt" "$T/rules.json" "$DB" "$data/labels.csv" <<'PY'
import csv, json, re, sqlite3, sys
text, report = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
dev = {(r["repo"].lower(), int(r["number"])) for r in csv.DictReader(open(sys.argv[4])) if r["fold"] != "4"}
fired = {}
for rule, repo, number in sqlite3.connect(sys.argv[3]).execute(
        "SELECT DISTINCT e.rule_id, r.full_name, i.number FROM classifier_evidence e "
        "JOIN issues i ON i.id = e.issue_id JOIN repositories r ON r.id = i.repo_id"):
    if (repo.lower(), number) in dev:
        fired[rule] = fired.get(rule, 0) + 1
rules = {r["rule"]: r for r in report["rules"]}
assert {k: v["fired"] for k, v in rules.items()} == fired, "fired counts differ from the evidence"
for r in report["rules"]:
    m = re.search(r"^  %s +(\d+) +(\d+) +([\d.]+) +([\d.]+) +([\d.]+)" % re.escape(r["rule"]), text, re.M)
    assert m, "no line for " + r["rule"]
    assert (int(m.group(1)), int(m.group(2))) == (r["fired"], r["agreed"]), r
    assert m.group(3) == "%.3f" % r["precision"] and m.group(5) == "%.2f" % r["lift"], r
print("by-rule: %d rules" % len(rules))
PY

# explain shows labels and evidence with the match marked (plain text on a pipe).
ref=$(python3 -c "import json,sys; o=json.loads(open(sys.argv[1]).readline()); print('%s#%d' % (o['repo'], o['number']))" "$data/issues.jsonl")
cf explain "$ref" >"$T/explain.txt"
grep -q "^symptom: " "$T/explain.txt"
grep -q ">>.*<<" "$T/explain.txt"
echo "ok"
