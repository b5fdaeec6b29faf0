#!/usr/bin/env bash
# convfail test, issue #44: --dtypes takes NNSmith's nine types (and all), --study is the study's
# configuration (all nine; float32 one flag away), the generator's version is in the key; an ONNX
# Runtime missing kernel is an ort_failure named by operator, version and element type (relu on
# int16); the stored smallest passing tolerance is what the oracle decides at that tolerance, and
# the report's tolerance curve and per-type table equal a recount of the stored rows.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
set -euo pipefail
D=$SRC/tests/data/campaign
HARNESS=$SRC/campaign/harness

# --- 1. --dtypes, --study, the generator's version -------------------------------------------
expect_exit 2 cf test run --dtypes complex64 --models 1
expect_grep "complex64" "$T/err"
[ ! -e "$DB" ] || [ "$(sqlite3 "$DB" "SELECT count(*) FROM campaigns")" = 0 ] ||
  fail "a refused --dtypes stored a campaign"
cf test run --unfiltered --study --nodes 3 --time-budget 0.001 --no-minimise --json >"$T/study.json" \
  2>"$T/err" || fail "--study: $(tail -3 "$T/err")"
cf test run --unfiltered --study --dtypes float32 --nodes 3 --time-budget 0.001 --no-minimise --json \
  >"$T/study32.json" 2>"$T/err" || fail "--study --dtypes float32: $(tail -3 "$T/err")"
nine=$(/usr/bin/python3 -c "import sys, json; sys.path.insert(0, '$HARNESS'); import synth; \
print(json.dumps(list(synth.dtype_list(('all',)))))")
generator=$(/usr/bin/python3 -c "import sys; sys.path.insert(0, '$HARNESS'); import synth; print(synth.GENERATOR)")
jq -e --argjson nine "$nine" --argjson g "$generator" \
  '.config.models == 1724 and .config.dtypes == $nine and .config.generator == $g' \
  "$T/study.json" >/dev/null || fail "--study: $(jq -c .config "$T/study.json")"
jq -e '.config.models == 1724 and .config.dtypes == ["float32"]' "$T/study32.json" >/dev/null ||
  fail "--study --dtypes float32: $(jq -c .config "$T/study32.json")"
[ "$(jq .campaign "$T/study.json")" != "$(jq .campaign "$T/study32.json")" ] ||
  fail "float32 only continued the nine-type campaign"
echo "ok   --dtypes nine or all, --study, the generator's version in the key"

# --- 2. relu on int16: no ONNX Runtime kernel, named by operator, version and type -------------
cf test run --source "script:$D/relu_int16.py" --jobs 1 --inputs 1 --no-minimise --json \
  >"$T/relu.json" 2>"$T/relu.err" || fail "relu run: $(tail -5 "$T/relu.err")"
c=$(jq .campaign "$T/relu.json")
row=$(sqlite3 "$DB" "SELECT outcome || '|' || signature || '|' || message FROM campaign_models
  WHERE campaign_id = $c")
case $row in
  "ort_failure|onnxruntime: no kernel for Relu(14) on int16|"*"Relu(14) node with name '/Relu'"*) ;;
  *) fail "relu on int16: $row" ;;
esac
# Shown as said (the version, the node's name), not as the lower-cased key.
cf test groups --campaign "$c" >"$T/groups.txt"
expect_grep "ort_failure .*Could not find an implementation for Relu(14) node with name '/Relu' (on int16)" \
  "$T/groups.txt"
cf test report --campaign "$c" >"$T/relu.md"
expect_grep "| Relu(14) | 1 | 1 |" "$T/relu.md"
echo "ok   relu on int16: ort_failure 'onnxruntime: no kernel for Relu(14) on int16'"

# --- 5a. the stored tolerance is the oracle's decision: +1 on ok.py's output -------------------
cf test run --source "script:$D/ok.py" --perturb-export --jobs 1 --inputs 2 --no-minimise --json \
  >"$T/p.json" 2>"$T/err" || fail "perturbed ok.py: $(tail -3 "$T/err")"
c=$(jq .campaign "$T/p.json")
read -r tol sha < <(sqlite3 -separator ' ' "$DB" "SELECT min_tolerance, model_sha256 FROM
  campaign_models WHERE campaign_id = $c") || fail "no stored min_tolerance"
# |a - e| = 1 everywhere: the smallest passing t is max 1 / (1 + |e|) over both input sets.
/usr/bin/python3 - "$T/convfail-data/models/$sha" "$tol" <<'PY' || fail "stored tolerance $tol"
import glob, sys
import numpy as np
import onnx
from onnx import numpy_helper
e = [numpy_helper.to_array(onnx.load_tensor(f)) for f in glob.glob(sys.argv[1] + "/set_*/output_0.pb")]
assert len(e) == 2, e
want = max(float(np.max(1.0 / (1.0 + np.abs(x.astype(np.float64))))) for x in e)
got = float(sys.argv[2])
assert abs(got - want) <= 1e-6 * want, (got, want)
PY
above=$(/usr/bin/python3 -c "print('%.6g' % ($tol * 1.001))")
below=$(/usr/bin/python3 -c "print('%.6g' % ($tol * 0.999))")
for t in "$above:success" "$below:mismatch"; do
  cf test run --source "script:$D/ok.py" --perturb-export --jobs 1 --inputs 2 --no-minimise \
    --rtol "${t%%:*}" --atol "${t%%:*}" --json >"$T/t.json" 2>/dev/null
  jq -e --arg o "${t##*:}" '.outcomes[$o] == 1' "$T/t.json" >/dev/null ||
    fail "at atol = rtol = ${t%%:*} (stored $tol): $(jq -c .outcomes "$T/t.json")"
done
echo "ok   stored smallest passing tolerance $tol: success just above it, mismatch just below"

# --- 5b, 6. a --dtypes all campaign: the report's tables recounted from the stored rows --------
cf test run --unfiltered --source synthetic --models 60 --nodes 3-9:3 --dtypes all --seed 5 --inputs 1 \
  --jobs 2 --no-minimise --json >"$T/all.json" 2>"$T/all.err" || fail "all: $(tail -5 "$T/all.err")"
c=$(jq .campaign "$T/all.json")
cf test report --campaign "$c" --json >"$T/r.json"
cf test report --campaign "$c" >"$T/r.md"
expect_grep "Models failing at atol = rtol = t, per kind of difference" "$T/r.md"
expect_grep "Outcomes of synthetic models per tensor type" "$T/r.md"
compared=$(sqlite3 "$DB" "SELECT count(*) FROM campaign_models WHERE campaign_id = $c AND
  outcome IN ('success', 'mismatch') AND min_tolerance IS NOT NULL")
[ "$compared" -gt 0 ] || fail "no compared model with a stored tolerance: $(jq -c .outcomes "$T/all.json")"
jq -e --argjson n "$compared" '.tolerance_curve.compared == $n and .tolerance_curve.unknown == 0' \
  "$T/r.json" >/dev/null || fail "compared: $(jq -c .tolerance_curve "$T/r.json")"
for t in 1e-2 1e-3 1e-4 1e-5 1e-6 1e-7; do
  recount=$(sqlite3 "$DB" "SELECT kind || '=' || n FROM (SELECT COALESCE(difference_kind,
    'no difference') AS kind, count(*) FILTER (WHERE min_tolerance > $t) AS n FROM
    campaign_models WHERE campaign_id = $c AND outcome IN ('success', 'mismatch') GROUP BY kind)" |
    LC_ALL=C sort)
  total=$(sqlite3 "$DB" "SELECT count(*) FROM campaign_models WHERE campaign_id = $c AND
    outcome IN ('success', 'mismatch') AND min_tolerance > $t")
  shown=$(jq -r --arg t "$t" '[.tolerance_curve.rows[] | select(.kind != "all compared models")
    | "\(.kind)=\(.failing[$t])"] | .[]' "$T/r.json" | LC_ALL=C sort)
  [ "$shown" = "$recount" ] || fail "t = $t: report '$shown', stored rows '$recount'"
  jq -e --arg t "$t" --argjson n "$total" \
    '.tolerance_curve.rows[-1].failing[$t] == $n' "$T/r.json" >/dev/null ||
    fail "t = $t: total $(jq -c '.tolerance_curve.rows[-1]' "$T/r.json") vs $total"
done
echo "ok   tolerance curve = recount of $compared stored tolerances"
# Per type: all nine, each the models whose stored types hold it.
for d in $(echo "$nine" | jq -r '.[]'); do
  n=$(sqlite3 "$DB" "SELECT count(*) FROM campaign_models m, json_each(m.dtypes_json) j
    WHERE m.campaign_id = $c AND j.value = '$d'")
  [ "$n" -gt 0 ] || fail "no model of the campaign uses $d"
  jq -e --arg d "$d" --argjson n "$n" \
    '[.outcomes_by_touched_dtype[] | select(.label == $d)][0].models == $n' "$T/r.json" >/dev/null ||
    fail "$d: report $(jq -c --arg d "$d" '.outcomes_by_touched_dtype[] | select(.label == $d)' "$T/r.json") vs $n"
done
jq -e '[.outcomes_by_dtype[] | select(.reference)][0].models == 1724' "$T/r.json" >/dev/null ||
  fail "no study reference row"
jq -c '.outcomes' "$T/all.json"
echo "ok   per-type table: all nine types, counts = recount of the stored types"
# Per main type: each model once, under the main type stored with it.
for d in $(sqlite3 "$DB" "SELECT DISTINCT main_dtype FROM campaign_models WHERE campaign_id = $c"); do
  n=$(sqlite3 "$DB" "SELECT count(*) FROM campaign_models WHERE campaign_id = $c AND main_dtype = '$d'")
  jq -e --arg d "$d" --argjson n "$n" \
    '[.outcomes_by_dtype[] | select(.label == $d)][0].models == $n' "$T/r.json" >/dev/null ||
    fail "main $d: report $(jq -c --arg d "$d" '.outcomes_by_dtype[] | select(.label == $d)' "$T/r.json") vs $n"
done
[ "$(sqlite3 "$DB" "SELECT count(*) FROM campaign_models WHERE campaign_id = $c AND main_dtype IS NULL")" = 0 ] ||
  fail "an unfiltered synthetic model stored no main type"
echo "ok   per main type: each model once"
