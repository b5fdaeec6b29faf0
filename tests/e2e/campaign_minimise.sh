#!/usr/bin/env bash
# convfail test: minimisation shrinks a group's model and keeps its outcome and signature at
# every step (checked at every step by the oracle; the bundle's program runs on its own).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
set -euo pipefail
# Every exported model made wrong on purpose: a mismatch whatever the operators, so the model
# shrinks as far as one operator that keeps a float first output.
cf test run --unfiltered --source synthetic --models 1 --nodes 12 --seed 3 --jobs 1 --inputs 1 \
  --perturb-export --minimise-budget 40 --json >"$T/run.json" 2>"$T/run.err" ||
  fail "run: $(tail -3 "$T/run.err")"
jq -e '.outcomes.mismatch == 1 and .minimised_groups == 1' "$T/run.json" >/dev/null ||
  fail "summary: $(cat "$T/run.json")"
read -r id orig min sig < <(sqlite3 -separator ' ' "$DB" \
  "SELECT id, original_nodes, minimised_nodes, signature FROM campaign_groups")
[ "$orig" = 12 ] || fail "original_nodes $orig"
[ "$min" -lt "$orig" ] || fail "not shrunk: $orig -> $min"
sqlite3 "$DB" "SELECT minimised_graph_json FROM campaign_groups" | jq -e '.ops | length >= 1' >/dev/null ||
  fail "minimised_graph_json"
cf test bundle "$id" "$T/bundle" >/dev/null
[ -s "$T/bundle/program.py" ] && [ -s "$T/bundle/model.onnx" ] || fail "bundle: $(ls "$T/bundle")"
ops=$(grep -c '^        v[0-9]* = ' "$T/bundle/program.py")
[ "$ops" = "$min" ] || fail "program.py has $ops operators, expected $min"
# The minimised program runs on its own and has make_model / make_inputs.
/usr/bin/python3 -c "
import runpy, torch
ns = runpy.run_path('$T/bundle/program.py')
out = ns['make_model']()(*ns['make_inputs'](0))
" || fail "program.py does not run"
# ... and a main: run as a script it runs the model and exports it (#50 item 12).
(cd "$T/bundle" && /usr/bin/python3 program.py "$T/again.onnx" >"$T/main.out" 2>"$T/main.err") ||
  fail "python3 program.py: $(tail -3 "$T/main.err")"
expect_grep "^output 0: shape " "$T/main.out"
expect_grep "^exported to $T/again.onnx (opset 16)" "$T/main.out"
/usr/bin/python3 -c "import onnx; onnx.checker.check_model(onnx.load('$T/again.onnx'))" ||
  fail "program.py's export is no valid ONNX model"
# The budget bounds every oracle run of a group, the first and last included: the count printed
# is at most the budget (it printed 5 runs for --budget 3).
cf test minimise --group "$id" --budget 3 >"$T/min.out" 2>"$T/min.err" ||
  fail "minimise: $(tail -3 "$T/min.err")"
runs=$(sed -n 's/.*minimised [0-9]* -> [0-9]* operators (\([0-9]*\) oracle runs).*/\1/p' "$T/min.err")
[ -n "$runs" ] || fail "no minimised line: $(cat "$T/min.err" "$T/min.out")"
[ "$runs" -le 3 ] || fail "$runs oracle runs with --budget 3"

# A group id means one group in every command (#50 item 6): with a newer campaign stored, `test
# minimise --group ID` minimises that group of campaign 1, as bundle and bisect --group read it.
cf test run --source synthetic --models 1 --nodes 5 --seed 4 --inputs 1 --jobs 1 --no-minimise \
  >/dev/null 2>&1 || fail "second campaign"
[ "$(sqlite3 "$DB" "SELECT max(id) FROM campaigns")" = 2 ] || fail "no second campaign"
cf test minimise --group "$id" --budget 4 --json >"$T/min.json" 2>/dev/null ||
  fail "minimise --group $id of campaign 1: $(cat "$T/min.json")"
jq -e '.campaign == 1 and .groups == 1' "$T/min.json" >/dev/null || fail "$(cat "$T/min.json")"
expect_exit 1 cf test minimise --group "$id" --campaign 2
expect_grep "group $id is of campaign 1, not of campaign 2" "$T/err"
expect_exit 1 cf test minimise --group 999
expect_grep "no group 999" "$T/err"
echo ok
