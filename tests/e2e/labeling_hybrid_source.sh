#!/usr/bin/env bash
# --source hybrid[:ANNOTATOR] in `labels export` and `eval`: the manual label where one exists,
# else the classifier's when confident enough, else none; the manual/automatic counts printed
# agree with the records; classifier:RUN_ID names a run; option errors are one line.
# Usage: bash labeling_hybrid_source.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"

one_rule_set "$T/rules"
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
with open(t + "/issues.jsonl", "w") as out, open(t + "/gold.csv", "w") as gold, \
     open(t + "/manual.csv", "w") as manual:
    gold.write("repo,number,fold,symptom,cause,stage\n")
    manual.write("repo,number,symptom,cause,stage\n")
    for n in range(1, 11):
        out.write(json.dumps({"repo": "acme/conv", "number": n, "title": "error when converting %d" % n,
                              "state": "closed", "labels": [], "author": "u", "created_at": "2024-01-01",
                              "body": "text", "comments": []}) + "\n")
        s = "crash" if n <= 5 else "wrong_model"
        gold.write("acme/conv,%d,%d,%s,shape_problem,node_conversion\n" % (n, n % 5, s))
        if n >= 7:  # the annotator labeled issues 7-10 (symptom and cause, as gold)
            manual.write("acme/conv,%d,%s,shape_problem,\n" % (n, s))
PY
cf import "$T/issues.jsonl" >/dev/null
cf classify --rules "$T/rules" >/dev/null
cf labels import "$T/manual.csv" --annotator ann >/dev/null

# Errors.
expect_exit 2 cf labels export --source hybrid:ann --annotator ann
expect_exit 2 cf labels export --source hybrid:ann --min-confidence 1.5
expect_exit 2 cf labels export --annotator ann --min-confidence 0.5
expect_grep "applies to --source hybrid" "$T/err"
expect_exit 1 cf labels export --source hybrid:nobody
expect_grep "nobody" "$T/err"
[ "$(wc -l <"$T/err")" = 1 ] || fail "multi-line error: $(cat "$T/err")"
expect_exit 2 cf eval --gold-file "$T/gold.csv" --source hybrid:ann --fit-folds 0-3
expect_grep "takes none of" "$T/err"
expect_exit 2 cf eval --gold-file "$T/gold.csv" --source classifier:x
expect_exit 2 cf eval --gold-file "$T/gold.csv" --min-confidence 0.5

# Export: 10 issues; 7-10 manual (symptom, cause), the rest of the cells automatic where the
# rules decided (symptom crash everywhere, confidence 1 for a lone rule).
cf labels export --source hybrid:ann --min-confidence 0.5 --json >"$T/h.json" 2>"$T/h.err"
cf labels export --source hybrid:ann --min-confidence 0.5 >"$T/h.csv" 2>/dev/null
cf labels export --source classifier --format jsonl >"$T/c.jsonl"
python3 - "$T" <<'PY'
import csv, json, re, sys
t = sys.argv[1]
rows = json.load(open(t + "/h.json"))
assert len(rows) == 10, len(rows)
manual = automatic = 0
for r in rows:
    assert r["source"] == "hybrid:ann"
    n = r["number"]
    if n >= 7:
        assert r["origin"]["symptom"] == "manual" and r["origin"]["cause"] == "manual", r
        assert r["symptom"] == "wrong_model", r
    else:
        assert r["origin"].get("symptom") == "automatic" and r["symptom"] == "crash", r
        assert "cause" not in r["origin"] or r["origin"]["cause"] == "automatic"
    for d in ("symptom", "cause", "stage"):
        o = r["origin"].get(d)
        manual += o == "manual"
        automatic += o == "automatic"
        assert (o is None) == (r[d] is None), (r, d)
err = open(t + "/h.err").read()
m = re.fullmatch(r"hybrid:ann: 10 issue\(s\), (\d+) label\(s\) manual, (\d+) automatic\n", err)
assert m and int(m.group(1)) == manual == 8 and int(m.group(2)) == automatic, (err, manual, automatic)
c = list(csv.DictReader(open(t + "/h.csv")))
assert list(c[0].keys()) == ["repo", "number", "source", "symptom", "cause", "subtype", "stage",
                             "symptom_origin", "cause_origin", "stage_origin", "symptom_confidence",
                             "cause_confidence", "stage_confidence"], c[0].keys()
# A confidence exactly where the label is automatic.
for x in c:
    for d in ("symptom", "cause", "stage"):
        assert (x[d + "_confidence"] != "") == (x[d + "_origin"] == "automatic"), (x, d)
assert [(x["number"], x["symptom"], x["symptom_origin"]) for x in c] == \
       [(str(r["number"]), r["symptom"] or "", r["origin"].get("symptom", "")) for r in rows]
cl = [json.loads(l) for l in open(t + "/c.jsonl")]
assert len(cl) == 10 and all(x["symptom"] == "crash" and x["source"] == "classifier" for x in cl)
PY

# Eval: the classifier says crash everywhere (accuracy 0.5 on symptom); hybrid fixes 7-10.
cf eval --gold-file "$T/gold.csv" --json >"$T/run.json"
cf eval --gold-file "$T/gold.csv" --source classifier:1 --json >"$T/run1.json"
cf eval --gold-file "$T/gold.csv" --source hybrid:ann --min-confidence 0.5 --json >"$T/hy.json"
cf eval --gold-file "$T/gold.csv" --source hybrid:ann --min-confidence 0.5 >"$T/hy.txt"
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
run, run1, hy = (json.load(open(t + f)) for f in ("/run.json", "/run1.json", "/hy.json"))
assert run == run1, "classifier:1 differs from the latest run"
assert run["source"] == "classifier run 1" and hy["source"] == "hybrid:ann" and hy["run_id"] == 0
s, h = run["dimensions"]["symptom"], hy["dimensions"]["symptom"]
assert abs(s["accuracy"] - 0.5) < 1e-9, s["accuracy"]
assert abs(h["accuracy"] - 0.9) < 1e-9, h["accuracy"]  # 7-10 manual, 6 still wrong
assert h["cells"] == {"manual": 4, "automatic": 6}, h["cells"]
assert hy["dimensions"]["cause"]["cells"] == {"manual": 4, "automatic": 0}
assert s["cells"] == {"manual": 0, "automatic": 0}
text = open(t + "/hy.txt").read()
assert text.startswith("hybrid:ann vs "), text
assert "  cells: 4 manual, 6 automatic, 0 unlabeled\n" in text, text
assert "  cells: 4 manual, 0 automatic, 6 unlabeled\n" in text, text
PY
