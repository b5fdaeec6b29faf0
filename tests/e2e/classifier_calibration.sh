#!/usr/bin/env bash
# Calibrated confidence, the selective (risk-coverage) figures of eval and the hybrid label source
# on the shared jajal2024 set: the selective JSON shape and its agreement with the text, the
# held-out fold never reaching the fitted calibration, and hybrid report cell counts.
# Usage: bash classifier_calibration.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
data=$SHARED/datasets/jajal2024
[ -f "$data/issues.jsonl" ] && [ -f "$data/labels.csv" ] || skip "shared dataset missing"

cf import "$data/issues.jsonl" >/dev/null
cf classify >/dev/null
gold=$data/labels.csv

# Option errors.
if cf eval --gold-file "$gold" --target-accuracy 1.5 2>/dev/null; then fail "--target-accuracy 1.5 accepted"; fi
if cf eval --gold-file "$gold" --human-share -0.1 2>/dev/null; then fail "--human-share -0.1 accepted"; fi
if cf eval --gold-file "$gold" --store-calibration 2>"$T/err"; then fail "--store-calibration without --fit-folds"; fi
grep -q -- "--fit-folds" "$T/err" || fail "error does not name --fit-folds"
if cf eval --gold-file "$gold" --fit-folds x 2>/dev/null; then fail "bad --fit-folds accepted"; fi

# Cross-validated on folds 0-3 and held out on fold 4: JSON shape, text equals JSON.
for folds in 0-3 4; do
  cf eval --gold-file "$gold" --folds "$folds" --fit-folds 0-3 --human-share 0.3 >"$T/e.txt"
  cf eval --gold-file "$gold" --folds "$folds" --fit-folds 0-3 --human-share 0.3 --json >"$T/e.json"
  python3 - "$T/e.txt" "$T/e.json" "$folds" <<'PY'
import json, re, sys
text, r = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
n = 160 if sys.argv[3] == "0-3" else 40
assert r["calibration"]["method"] == "isotonic" and r["calibration"]["fit_folds"] == [0, 1, 2, 3]
assert set(r["selective"]) == {"symptom", "cause", "stage"}, r["selective"].keys()
blocks = re.split(r"^(symptom|cause|stage): ", text, flags=re.M)
per_dim = dict(zip(blocks[1::2], blocks[2::2]))
for dim, s in r["selective"].items():
    thresholds = []
    for pct in (25, 50, 75, 100):
        p = s["coverage_%d" % pct]
        assert set(p) == {"n", "accuracy", "kappa", "threshold"}, p
        assert p["n"] == -(-pct * n // 100), (dim, pct, p)
        assert 0 <= p["accuracy"] <= 1 and -1 <= p["kappa"] <= 1 and 0 <= p["threshold"] <= 1
        thresholds.append(p["threshold"])
        m = re.search(r"^  coverage_%d: n=(\d+) accuracy=(\S+) kappa=(\S+) threshold=(\S+)$" % pct,
                      per_dim[dim], re.M)
        assert m and int(m.group(1)) == p["n"], (dim, pct)
        assert m.group(2) == "%.3f" % p["accuracy"] and m.group(3) == "%.3f" % p["kappa"], (dim, pct)
    assert thresholds == sorted(thresholds, reverse=True), thresholds
    d = r["dimensions"][dim]
    assert abs(s["coverage_100"]["accuracy"] - d["accuracy"]) < 1e-9, dim
    assert abs(s["coverage_100"]["kappa"] - d["kappa"]) < 1e-9, dim
    assert 0 <= s["ece"] <= 1
    assert re.search(r"^  selective: ece=%.3f \(isotonic calibration\)$" % s["ece"], per_dim[dim], re.M)
    t = s["target"]
    assert t["accuracy"] == 0.9
    if t["threshold"] is not None:
        assert t["reached"] >= 0.9 and 0 < t["coverage"] <= 1, t
    h = s["hybrid"]
    assert h["human"] == -(-3 * n // 10) and h["human"] + h["automatic"] == n, h
    assert h["kappa"] >= d["kappa"] - 1e-9, (dim, h, d["kappa"])  # people only fix labels
    print("folds %s %s: ece=%.3f cov50 acc=%.3f kappa=%.3f hybrid0.3 kappa=%.3f" % (
        sys.argv[3], dim, s["ece"], s["coverage_50"]["accuracy"], s["coverage_50"]["kappa"], h["kappa"]))
PY
done

# Everyone labeled by people: hybrid kappa 1.
cf eval --gold-file "$gold" --folds 4 --fit-folds 0-3 --human-share 1 --json >"$T/all.json"
python3 -c "
import json,sys; r=json.load(open(sys.argv[1]))
assert all(s['hybrid']['kappa'] == 1 for s in r['selective'].values()), r['selective']" "$T/all.json"

# Fold 4 never fits: scrambling its gold labels leaves the stored calibration unchanged.
python3 - "$gold" "$T/scrambled.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    if r["fold"] == "4":
        r["symptom"], r["cause"], r["stage"] = "hang", "typo", "export"
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=["repo", "number", "fold", "symptom", "cause", "stage"], extrasaction="ignore")
w.writeheader(); w.writerows(rows)
PY
cf eval --gold-file "$gold" --fit-folds 0-3 --store-calibration >/dev/null 2>&1
sqlite3 "$DB" "SELECT dimension, blocks_json, threshold FROM classifier_calibrations ORDER BY 1" >"$T/cal1"
sqlite3 "$DB" "SELECT count(*) FROM classifier_calibrated" >"$T/n1"
cf eval --gold-file "$T/scrambled.csv" --fit-folds 0-3 --store-calibration >/dev/null 2>&1
sqlite3 "$DB" "SELECT dimension, blocks_json, threshold FROM classifier_calibrations ORDER BY 1" >"$T/cal2"
cmp -s "$T/cal1" "$T/cal2" || fail "fold 4 labels changed the calibration fitted on folds 0-3"
[ "$(wc -l <"$T/cal1")" = 3 ] || fail "not one calibration per dimension"
[ "$(cat "$T/n1")" = 600 ] || fail "calibrated probabilities: $(cat "$T/n1"), expected 600"
# ...while fitting on fold 4 does see them.
cf eval --gold-file "$T/scrambled.csv" --fit-folds 0-4 --store-calibration >/dev/null 2>&1
sqlite3 "$DB" "SELECT dimension, blocks_json, threshold FROM classifier_calibrations ORDER BY 1" >"$T/cal3"
if cmp -s "$T/cal1" "$T/cal3"; then fail "the scrambled fold made no difference when fitted on"; fi
cf eval --gold-file "$gold" --fit-folds 0-3 --store-calibration >/dev/null 2>&1

# Hybrid: 10 issues labeled by annotator A (fold 4 rows); the rest from the classifier where the
# calibrated probability reaches the stored threshold.
python3 - "$gold" "$T/manual.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["fold"] == "4"][:10]
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=["repo", "number", "symptom", "cause", "stage"], extrasaction="ignore")
w.writeheader(); w.writerows(rows)
PY
cf labels import "$T/manual.csv" --annotator A >/dev/null
cf report --source hybrid:A --json >"$T/h.json"
cf report --source hybrid:A --format md >"$T/h.md"
cf report --source hybrid:A --min-confidence 0 --json >"$T/h0.json"
python3 - "$T/h.json" "$T/h.md" "$T/h0.json" "$DB" <<'PY'
import json, sqlite3, sys
r, md, r0 = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
db = sqlite3.connect(sys.argv[4])
manual_issues = {i for (i,) in db.execute("SELECT DISTINCT issue_id FROM manual_labels")}
assert len(manual_issues) == 10
manual = db.execute("SELECT count(*) FROM current_manual_labels WHERE annotator='A' AND value IS NOT NULL AND dimension != 'subtype'").fetchone()[0]
thresholds = dict(db.execute("SELECT dimension, threshold FROM classifier_calibrations"))
auto = 0
for issue, dim, p in db.execute("SELECT c.issue_id, c.dimension, c.probability FROM classifier_calibrated c JOIN classifier_labels l USING (run_id, issue_id, dimension) WHERE l.label IS NOT NULL"):
    if issue not in manual_issues and thresholds[dim] is not None and p >= thresholds[dim]:
        auto += 1
assert r["cells"] == {"manual": manual, "automatic": auto}, (r["cells"], manual, auto)
assert "%d labels manual, %d automatic" % (manual, auto) in md
# --min-confidence 0: every classifier label of the unlabeled issues.
every = db.execute("SELECT count(*) FROM classifier_labels WHERE label IS NOT NULL AND issue_id NOT IN (SELECT issue_id FROM manual_labels)").fetchone()[0]
assert r0["cells"] == {"manual": manual, "automatic": every}, (r0["cells"], every)
print("hybrid:A cells", r["cells"], "with --min-confidence 0:", r0["cells"])
PY
# agreement takes the hybrid source beside annotators: on A's 10 issues it holds A's labels.
cf agreement --annotators hybrid:A,A --json >"$T/agree.json"
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))['dimensions']
assert all(d[k]['n'] == 10 and d[k]['agreement'] == 1 for k in ('symptom','cause','stage')), d" "$T/agree.json"
if cf report --source hybrid: 2>"$T/err"; then fail "hybrid: accepted"; fi
grep -q "annotator" "$T/err" || fail "hybrid: error does not say what is missing"
echo ok
