#!/usr/bin/env bash
# The study's pilot: importing pilot.csv (placeholders with --create-missing) and
# `convfail agreement --annotators R1,R2` prints kappa 0.90 for cause and 0.95 for symptom.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
PILOT=$SHARED/datasets/jajal2024/pilot.csv
[ -f "$PILOT" ] || skip "$PILOT missing"

# Without the issues in the store every row is skipped, counted, and nothing is written.
cf labels import "$PILOT" >"$T/out" 2>"$T/err"
grep -q "0 label(s) written" "$T/out"
grep -q "skipped 120 row(s) for 60 issue(s) not in the store" "$T/err"
[ "$(sqlite3 "$T/db" 'SELECT count(*) FROM manual_labels')" = 0 ]

cf labels import "$PILOT" --create-missing >"$T/out"
grep -q "240 label(s) written.*60 placeholder issue(s) created" "$T/out"

cf agreement --annotators R1,R2 >"$T/agree"
cat "$T/agree"
grep -q "^cause: n = 60, .*κ = 0.90 " "$T/agree"
grep -q "^symptom: n = 60, .*κ = 0.95 " "$T/agree"
# The confusion tables name their labels as the web does: a header row of label names (the
# row labels, in the same order), no c1, c2 codes to look up.
python3 - "$T/agree" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
heads = [i for i, l in enumerate(lines) if l.strip().startswith("R1\\R2")]
assert len(heads) == 2, lines
for h in heads:
    names = lines[h].split()[1:]
    rows = []
    for l in lines[h + 1:]:
        if not l.startswith("  "):
            break
        rows.append(l.split()[0])
    assert names == rows and len(names) >= 2, (names, rows)
    assert not any(re.fullmatch(r"c\d+", n) for n in names), names
PY

cf agreement --annotators R1,R2 --json >"$T/agree.json"
python3 - "$T/agree.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["dimensions"]
assert round(d["cause"]["kappa"], 2) == 0.90, d["cause"]["kappa"]
assert round(d["symptom"]["kappa"], 2) == 0.95, d["symptom"]["kappa"]
for dim in ("cause", "symptom"):
    lo, hi = d[dim]["ci95"]
    assert lo < d[dim]["kappa"] < hi and d[dim]["n"] == 60
    assert 0 < d[dim]["agreement"] <= 1
PY
# Only one dimension when asked.
cf agreement --annotators R1,R2 --dimension cause --json | python3 -c \
  'import json,sys; d=json.load(sys.stdin)["dimensions"]; assert list(d) == ["cause"], d'
echo ok
