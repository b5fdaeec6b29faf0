#!/usr/bin/env bash
# convfail test compare: two campaigns of the same small plan, B with every exported model made
# wrong (the --perturb-export test hook): the differing setting comes first, the transition
# success -> mismatch and B's new group are listed (md, tidy csv, json), and --fail-on new exits
# 1; a campaign compared with itself lists no change and passes the gate. --db-a/--db-b read two
# databases.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
set -euo pipefail
PLAN=(test run --unfiltered --source synthetic --models 12 --nodes 5-15:5 --seed 11 --inputs 1 --jobs 1
  --no-minimise)
cfdb "$DB" "${PLAN[@]}" >/dev/null 2>"$T/a.err" || fail "run A: $(tail -3 "$T/a.err")"
cfdb "$DB" "${PLAN[@]}" --perturb-export >/dev/null 2>"$T/b.err" || fail "run B: $(tail -3 "$T/b.err")"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM campaigns")" = 2 ] || fail "two campaigns expected"
# What the comparison must find, by query: models that succeeded in A and mismatch in B.
expected=$(sqlite3 "$DB" "SELECT count(*) FROM campaign_models a JOIN campaign_models b ON
  b.seq = a.seq AND b.name = a.name WHERE a.campaign_id = 1 AND b.campaign_id = 2 AND
  a.outcome = 'success' AND b.outcome = 'mismatch'")
[ "$expected" -ge 1 ] || fail "no success -> mismatch model: pick another seed"
new_groups=$(sqlite3 "$DB" "SELECT count(*) FROM campaign_groups b WHERE b.campaign_id = 2 AND
  NOT EXISTS (SELECT 1 FROM campaign_groups a WHERE a.campaign_id = 1 AND a.outcome = b.outcome
  AND a.signature = b.signature)")
[ "$new_groups" -ge 1 ] || fail "B has no new group: pick another seed"

expect_exit 1 cf test compare 1 2 --fail-on new
expect_grep "^## What differs" "$T/out"
expect_grep "| perturb_export | - | true |" "$T/out"
expect_grep "| success | mismatch | $expected |" "$T/out"
expect_grep "| new in B | mismatch |" "$T/out"
# seq 2 fails to export in both (no model file: matched by plan position and name).
expect_grep "| still failing | conversion_failure | .*aten::frac" "$T/out"
expect_grep "fail-on new: $new_groups failure group(s) of B are not in A" "$T/err"
[ "$(wc -l <"$T/err")" = 1 ] || fail "the gate's refusal is not one line: $(cat "$T/err")"
# The differences are printed before anything else.
[ "$(grep -n '^## ' "$T/out" | head -1 | cut -d: -f2-)" = "## What differs: configuration and versions" ] ||
  fail "the differences do not come first"

cf test compare 1 2 --json >"$T/c.json"
jq -e --argjson n "$expected" --argjson g "$new_groups" '.new_groups == $g and
  ([.transitions[] | select(.from == "success" and .to == "mismatch")][0].models == $n) and
  .models.in_both == 12 and .models.by_position >= $n and .no_change == false and
  ([.groups[] | select(.status == "new")][0].size_b >= 1) and
  ([.groups[] | select(.status == "new")][0].representative | startswith("synthetic-"))' \
  "$T/c.json" >/dev/null || fail "compare json: $(jq -c . "$T/c.json" | head -c 3000)"
cf test compare 1 2 --format csv >"$T/c.csv"
expect_grep "^transitions,success -> mismatch,Models,$expected\$" "$T/c.csv"
expect_grep "^differences,perturb_export,B,true\$" "$T/c.csv"
expect_grep "^groups,1,Status,new\$" "$T/c.csv"

# A campaign with itself: no change, the gate passes. The same through --db-a/--db-b.
cf test compare 1 1 --fail-on new >"$T/self.md" || fail "self-compare failed the gate"
expect_grep "No change" "$T/self.md"
expect_grep "Nothing: the same configuration and the same versions." "$T/self.md"
grep -q '^| new in B \|^| fixed in B ' "$T/self.md" && fail "self-compare lists a new or fixed group"
cp "$DB" "$T/copy.db"
cf test compare 2 --db-b "$T/copy.db" --fail-on regressed >"$T/copy.md" ||
  fail "campaign 2 against its copy"
expect_grep "No change" "$T/copy.md"
expect_exit 1 cf test compare --db-a "$T/copy.db" 1 --db-b "$DB" 2 --fail-on regressed
expect_grep "model(s) succeeded in A and fail in B" "$T/err"
# Refusals: an unknown campaign, no campaign named.
expect_exit 1 cf test compare 1 9
expect_grep "campaign 9 not found" "$T/err"
expect_exit 2 cf test compare 1

# The gate fires only on the converter (#48 item 5): where A could not run the models that
# mismatch in B (planted: invalid with the float16 runner limit, regrouped), B's mismatch group is
# not comparable, the reason is named, and --fail-on new passes.
cp "$DB" "$T/nc.db"
sqlite3 "$T/nc.db" "UPDATE campaign_models SET outcome = 'invalid', mismatch_mode = NULL,
  signature = 'not runnable: runner: unsupported tensor type: float',
  message = 'not runnable: runner: Unsupported tensor type: float16' WHERE campaign_id = 1 AND
  seq IN (SELECT seq FROM campaign_models WHERE campaign_id = 2 AND outcome = 'mismatch')"
cfdb "$T/nc.db" test match --campaign 1 >/dev/null
cfdb "$T/nc.db" test compare 1 2 --fail-on new >"$T/nc.md" 2>"$T/nc.err" ||
  fail "the gate fired on models A did not run: $(cat "$T/nc.err")"
expect_grep "| not comparable | mismatch |" "$T/nc.md"
expect_grep "A: invalid: not runnable: runner: Unsupported tensor type: float16" "$T/nc.md"
expect_grep "| in both, not comparable (one side did not run it) | $expected |" "$T/nc.md"
grep -q "^| new in B " "$T/nc.md" && fail "a group of models A did not run is new"
cfdb "$T/nc.db" test compare 1 2 --fail-on regressed >/dev/null 2>&1 ||
  fail "--fail-on regressed fired on models A did not run"
# The groups are shown by their representative's message as said (the key stays beside it).
jq -e '[.groups[] | select(.status == "new")][0] | (.message | startswith("mismatch (")) and
  (.signature | startswith("mismatch "))' "$T/c.json" >/dev/null ||
  fail "the new group is not shown by its message: $(jq -c '.groups[0]' "$T/c.json")"

# An unfinished side never passes the gate silently: one line, non-zero.
cp "$DB" "$T/unf.db"
sqlite3 "$T/unf.db" "UPDATE campaigns SET finished_at = NULL WHERE id = 2"
if cfdb "$T/unf.db" test compare 1 2 --fail-on new >"$T/unf.md" 2>"$T/unf.err"; then
  fail "the gate passed on an unfinished campaign"
fi
expect_grep "campaign 2 (B) is not finished" "$T/unf.err"
[ "$(wc -l <"$T/unf.err")" = 1 ] || fail "not one line: $(cat "$T/unf.err")"
expect_grep "Campaign B is not finished" "$T/unf.md"
echo ok
