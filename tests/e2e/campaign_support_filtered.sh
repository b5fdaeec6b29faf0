#!/usr/bin/env bash
# A filtered campaign (`test run`'s default) draws from the support matrix of the release under
# test: 100 synthetic models over all nine types, the matrix measured first (opset 16, the nine
# types). Checked from the stored rows against the stored matrix: no failing model's failure is
# the signature of a single-operator gap the matrix lists, and every node of every stored model
# (its spec.json: operator and type) is a pair whose cell works. Each model has a main type and
# the per-type table counts each model once under it (a second table: the types it touches).
# --unfiltered is another campaign, today's draw, with the matrix's summary printed beside it.
# Usage: bash campaign_support_filtered.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
chmod 755 "$T"  # scratch directories go here; the sandbox runs as uid 65534
export TMPDIR=$T
cf init >/dev/null || fail "init"
RUN=(test run --source synthetic --nodes 3-6:3 --dtypes all --seed 11 --inputs 1 --jobs 2
  --no-minimise)

t0=$(date +%s)
cf "${RUN[@]}" --models 100 --json >"$T/f.json" 2>"$T/f.err" || fail "filtered: $(tail -5 "$T/f.err")"
echo "filtered campaign (matrix measured first) in $(($(date +%s) - t0)) s: $(jq -c .outcomes "$T/f.json")"
c=$(jq .campaign "$T/f.json")
jq -e '.config.filtered == true and (.config.support_matrix.working_pairs_sha256 | length == 64)' \
  "$T/f.json" >/dev/null || fail "config: $(jq -c .config "$T/f.json")"
jq -e '.support_matrix.cells_per_class.works > 0' "$T/f.json" >/dev/null ||
  fail "no matrix summary: $(jq -c .support_matrix "$T/f.json")"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM campaign_models WHERE campaign_id = $c")" = 100 ] ||
  fail "not 100 models stored"
[ "$(sqlite3 "$DB" "SELECT count(DISTINCT dtype) FROM support_cells WHERE opset = 16")" = 9 ] ||
  fail "the matrix does not cover the nine types"

# 1. No failing model fails the way a single-operator gap of the matrix does.
gaps=$(sqlite3 "$DB" "SELECT m.seq || ' ' || m.outcome || ': ' || m.signature FROM campaign_models m
  WHERE m.campaign_id = $c AND m.outcome NOT IN ('success', 'invalid') AND m.signature IN
  (SELECT signature FROM support_cells WHERE opset = 16 AND class NOT IN ('works', 'not_in_eager',
  'wrong_result') AND signature IS NOT NULL)")
[ -z "$gaps" ] || fail "failing models with a single-operator gap's signature: $gaps"
failing=$(sqlite3 "$DB" "SELECT count(*) FROM campaign_models WHERE campaign_id = $c AND
  outcome NOT IN ('success', 'invalid')")
sqlite3 "$DB" "SELECT '  ' || outcome || ': ' || substr(message, 1, 160) FROM campaign_models
  WHERE campaign_id = $c AND outcome NOT IN ('success', 'invalid')"
echo "ok   none of the $failing failing models fails as a gap of the matrix fails"

# 2. Every node of every stored model is a pair that works (its spec, as stored).
sqlite3 "$DB" "SELECT op || ' ' || dtype FROM support_cells WHERE opset = 16 AND class = 'works'" \
  >"$T/works"
sqlite3 "$DB" "SELECT model_sha256 FROM campaign_models WHERE campaign_id = $c AND
  model_sha256 IS NOT NULL AND model_sha256 != ''" >"$T/shas"
[ "$(wc -l <"$T/shas")" -ge 50 ] || fail "fewer than 50 stored models: $(wc -l <"$T/shas")"
/usr/bin/python3 - "$T/works" "$T/shas" "$T/convfail-data/models" "$SRC/campaign/harness" <<'PY' ||
import json, os, sys
sys.path.insert(0, sys.argv[4])
import synth
works = set(open(sys.argv[1]).read().split("\n"))
bad, nodes, mains = [], 0, set()
for sha in open(sys.argv[2]).read().split():
    spec = json.load(open(os.path.join(sys.argv[3], sha, "spec.json")))
    mains.add(spec.get("main"))
    for n in spec["body"]:
        if n["op"] == "cast":
            continue
        t = n["t"] if n["t"] is not None else synth.measured_types(n["op"])[0]
        nodes += 1
        if "%s %s" % (n["op"], t) not in works:
            bad.append("%s: %s %s" % (sha[:12], n["op"], t))
print("%d nodes checked, main types %s" % (nodes, sorted(m for m in mains if m)))
if bad:
    print("nodes of pairs that do not work: %s" % bad[:10])
    sys.exit(1)
PY
  fail "a stored model has a node the matrix does not list as working"
echo "ok   every node of every stored model is a working pair of the matrix"

# 3. A main type per model; the per-type table counts each model once under it.
[ "$(sqlite3 "$DB" "SELECT count(*) FROM campaign_models WHERE campaign_id = $c AND
  (main_dtype IS NULL OR main_dtype NOT IN (SELECT value FROM json_each('$(jq -c .config.dtypes \
  "$T/f.json")')))")" = 0 ] || fail "a model without a main type of the nine"
cf test report --campaign "$c" --json >"$T/r.json" || fail "report"
for d in $(jq -r '.config.dtypes[]' "$T/f.json"); do
  n=$(sqlite3 "$DB" "SELECT count(*) FROM campaign_models WHERE campaign_id = $c AND main_dtype = '$d'")
  shown=$(jq --arg d "$d" '[.outcomes_by_dtype[] | select(.label == $d)][0].models // 0' "$T/r.json")
  [ "$shown" = "$n" ] || fail "$d: per main type $shown, stored $n"
done
jq -e '[.outcomes_by_dtype[] | select(.reference | not) | select(.label != "all synthetic models")
  | .models] | add == 100' "$T/r.json" >/dev/null || fail "the per-type rows do not count 100 models"
jq -e '[.outcomes_by_touched_dtype[] | select(.label != "all synthetic models") | .models] | add
  > 100' "$T/r.json" >/dev/null || fail "the touched-types table does not overlap"
mains=$(sqlite3 "$DB" "SELECT count(DISTINCT main_dtype) FROM campaign_models WHERE campaign_id = $c")
echo "ok   each model once under its main type ($mains main types), the touched table overlaps"

# 4. --unfiltered: another campaign (today's draw), the matrix's summary beside it.
cf "${RUN[@]}" --models 6 --unfiltered >"$T/u.txt" 2>"$T/u.err" || fail "unfiltered: $(tail -3 "$T/u.err")"
expect_grep "support matrix (onnxruntime .*not applied: --unfiltered): works=" "$T/u.txt"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM campaigns")" = 2 ] || fail "--unfiltered continued the filtered campaign"
echo "ok   --unfiltered is another campaign, the matrix summary printed beside it"
