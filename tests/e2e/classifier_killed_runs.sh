#!/usr/bin/env bash
# Issue #41, item 5: a classify killed with SIGKILL left its run in progress with part of its
# labels, and `report --source classifier:N` printed the tables of that partial run without a
# word. Now a run records the pid, start time and host of its process (schema 0018): a report of
# an unfinished run is refused with one line naming --allow-partial (with it, the report says it
# is partial), and the next classify marks the runs of dead processes abandoned.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null && command -v python3 >/dev/null || skip "sqlite3/python3 missing"
N=${CONVFAIL_KILLED_RUNS_N:-20000}

python3 - "$T/issues.jsonl" "$N" <<'PY'
import json, sys
words = ["export", "crash", "Segmentation fault", "wrong output", "unsupported operator", "opset",
         "RuntimeError", "shape mismatch", "hang", "tensor", "Conv2d", "dynamic axes"]
with open(sys.argv[1], "w") as f:
    for i in range(1, int(sys.argv[2]) + 1):
        w = [words[(i * 7 + k) % len(words)] for k in range(12)]
        f.write(json.dumps({"repo": "pytorch/pytorch", "number": i,
                            "title": f"{w[0]} {w[1]} in model {i}",
                            "body": " ".join(w) + f" at layer {i % 97}\n" * 6, "state": "closed",
                            "created_at": "2022-01-01T00:00:00Z"}) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null
runs() { sqlite3 "$DB" "SELECT id, in_progress, abandoned_at IS NOT NULL FROM classifier_runs ORDER BY id"; }

# kill_classify AFTER: starts a classify, kills it with SIGKILL once its run (an id above AFTER)
# has stored some labels and before it finishes; prints the run id.
kill_classify() {
  "$BUILD/convfail" --db "$DB" --data-dir "$SRC/data" classify >/dev/null 2>&1 &
  local pid=$! i run labeled
  for i in $(seq 1 600); do
    run=$(sqlite3 "$DB" "SELECT max(id) FROM classifier_runs WHERE in_progress = 1 AND id > $1" 2>/dev/null || true)
    labeled=0
    [ -n "$run" ] && labeled=$(sqlite3 "$DB" "SELECT count(*) FROM classifier_labels WHERE run_id = $run" 2>/dev/null || echo 0)
    [ "${labeled:-0}" -gt 0 ] && break
    kill -0 $pid 2>/dev/null || fail "classify ended before it could be killed"
    sleep 0.05
  done
  kill -9 $pid
  wait $pid 2>/dev/null || true
  [ -n "$run" ] && [ "$(sqlite3 "$DB" "SELECT in_progress FROM classifier_runs WHERE id = $run")" = 1 ] ||
    fail "no unfinished run left by the killed classify: $(runs)"
  echo "$run"
}

R1=$(kill_classify 0)
R2=$(kill_classify "$R1")
labeled=$(sqlite3 "$DB" "SELECT count(DISTINCT issue_id) FROM classifier_labels WHERE run_id = $R1")
echo "killed classify twice: runs $R1 and $R2 left in progress ($labeled of $N issues labeled in run $R1)"

# 1. A report of the killed run is refused in one line naming --allow-partial.
expect_exit 1 cf report --source "classifier:$R1"
[ "$(wc -l <"$T/err")" = 1 ] || fail "expected a one-line error: $(cat "$T/err")"
expect_grep "classifier run $R1 is unfinished: its classify (pid [0-9]* on .*) died; $labeled of $N issues have labels" "$T/err"
expect_grep "allow-partial" "$T/err"
[ ! -s "$T/out" ] || fail "tables printed: $(head -c 300 "$T/out")"
echo "ok 1: report of the killed run refused: $(cat "$T/err")"

# 2. With --allow-partial the report is printed and says it is partial (md and json).
cf report --source "classifier:$R1" --allow-partial >"$T/partial.md"
grep -q "PARTIAL: classifier run $R1 is unfinished" "$T/partial.md" ||
  fail "the report does not say it is partial: $(head -3 "$T/partial.md")"
cf report --source "classifier:$R1" --allow-partial --json >"$T/partial.json"
jq -e --arg r "$R1" '.partial[0] | startswith("classifier run " + $r + " is unfinished")' \
  "$T/partial.json" >/dev/null || fail "no partial member in the JSON report"
echo "ok 2: --allow-partial prints it, marked partial"

# 3. Each classify marks the runs of dead processes abandoned as it starts (the second, killed
#    one marked the first's), and completes its own.
[ "$(runs)" = "$R1|1|1
$R2|1|0" ] || fail "the second classify did not mark run $R1: $(runs)"
cf classify >"$T/out" 2>"$T/err"
expect_grep "classifier run(s) $R2 were left unfinished by a classify that died; marked abandoned" "$T/err"
R3=$(sqlite3 "$DB" "SELECT max(id) FROM classifier_runs")
[ "$(runs)" = "$R1|1|1
$R2|1|1
$R3|0|0" ] || fail "runs not marked: $(runs)"
cf report --source classifier >"$T/latest.md"
if grep -q PARTIAL "$T/latest.md"; then fail "the latest complete run reported as partial"; fi
expect_exit 1 cf report --source "classifier:$R2" --compare "classifier:$R3"
expect_grep "classifier run $R2 is unfinished" "$T/err"
# A classify with nothing left to mark says nothing about it.
cf classify >"$T/out" 2>"$T/err"
if grep -q "abandoned" "$T/err"; then fail "runs marked twice: $(cat "$T/err")"; fi
echo "ok 3: the classify after each kill marked the killed run abandoned"
echo "PASS: killed classify runs are never a silent source"
