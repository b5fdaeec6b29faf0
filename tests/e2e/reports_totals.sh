#!/usr/bin/env bash
# Every table of `convfail report` adds up to the issues in its heading (issue 50 item 3), in
# every format and in the web's report: issues the classifier abstained on (and, for a manual
# source, issues an annotator left unlabeled) are an "Abstained" / "Unlabeled" row, and a column
# of the cause-by-symptom cross table, instead of vanishing. The bundled sample, classified.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_web.sh"
cf import "$SRC"/data/sample/*.json "$SRC"/data/sample/*.jsonl >/dev/null
cf classify >/dev/null

# JSON: each count, per converter, sums to that converter's issues; the sum is the heading's.
cf report --source classifier --format json >"$T/r.json"
python3 - "$T/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["missing"] == "abstained", d.get("missing")
n, by_conv = d["issues"], d["issues_by_converter"]
assert sum(by_conv.values()) == n, (by_conv, n)
for key in ("stage_by_converter", "symptom_by_converter"):
    for conv, counts in d[key].items():
        assert sum(counts.values()) == by_conv[conv], (key, conv, counts, by_conv[conv])
        assert "abstained" in counts, (key, conv)
for conv, causes in d["cause_by_symptom"].items():
    total = sum(sum(s.values()) for s in causes.values())
    assert total == by_conv[conv], ("cause_by_symptom", conv, total, by_conv[conv])
abstained = sum(c["abstained"] for c in d["symptom_by_converter"].values())
assert abstained > 0, "the sample has issues the classifier abstained on"
print("ok   json: every count adds up to", n, "issues;", abstained, "abstained on symptom")
PY
issues=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["issues"])' "$T/r.json")

# CSV (tidy): the grand totals of the tables with a Total are the heading's count.
cf report --source classifier --format csv >"$T/r.csv"
for t in stage_by_converter symptom_by_converter; do
  grep -q "^$t,Total,Total,$issues\$" "$T/r.csv" || fail "csv $t total is not $issues: $(grep "^$t,Total,Total" "$T/r.csv")"
done
# The row is printed where issues lack the label: symptom (2 abstained), not stage (the
# classifier's stage abstains as its own label, Not Distinguishable).
grep -q "^symptom_by_converter,Abstained," "$T/r.csv" || fail "csv: no Abstained symptom row"
grep -q "^stage_by_converter,Abstained," "$T/r.csv" && fail "csv: an Abstained stage row of zeros"
# Table 10's grand total per converter sums to all issues.
python3 - "$T/r.csv" "$issues" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
total = sum(int(r[3]) for r in rows if r[0] == "cause_by_symptom" and r[1] == "Total"
            and r[2].startswith("Total ("))
assert total == int(sys.argv[2]), (total, sys.argv[2])
assert any(r[0] == "cause_by_symptom" and r[1] == "Abstained" for r in rows)
assert any(r[0] == "cause_by_symptom" and r[2].startswith("Abstained (") for r in rows)
print("ok   csv: totals", total)
PY

# Markdown, LaTeX and HTML print the row (and the cause-by-symptom column) too.
cf report --source classifier >"$T/r.md"
grep -q "(${issues} issues)" "$T/r.md" || fail "md heading"
grep -q "| Total *| .*| ${issues} (100%) *|" "$T/r.md" || fail "md: a Total that is not $issues: $(grep '| Total' "$T/r.md")"
[ "$(grep -c '| Abstained ' "$T/r.md")" -ge 2 ] || fail "md: Abstained rows missing: $(grep -c '| Abstained ' "$T/r.md")"
grep -q "| Cause .*| Abstained *| Total *|" "$T/r.md" || fail "md: no Abstained column in cause by symptom"
for f in latex html; do
  cf report --source classifier --format $f >"$T/r.$f"
  grep -q "Abstained" "$T/r.$f" || fail "$f has no Abstained row"
done
echo "ok   md, latex, html: Abstained rows and column"

# A manual source: the sample's hand labels; issues they leave out of a dimension are Unlabeled.
cf labels import "$SRC/data/sample/labels.csv" --annotator sample >/dev/null
cf report --source sample --format json >"$T/m.json"
python3 - "$T/m.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["missing"] == "unlabeled", d["missing"]
for conv, counts in d["symptom_by_converter"].items():
    assert sum(counts.values()) == d["issues_by_converter"][conv], (conv, counts)
print("ok   manual source: unlabeled, adds up")
PY

# The web's report is the same report.
start_server
expect_status 200 GET '/api/report?source=classifier&format=html'
grep -q "Abstained" "$T/body" || fail "/api/report html has no Abstained row"
echo "ok   serve's /api/report"
