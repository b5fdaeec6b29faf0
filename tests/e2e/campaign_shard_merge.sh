#!/usr/bin/env bash
# convfail test run --shard K/N and test merge: the same plan run once and as 4 parallel shards
# (GNU parallel when installed, else xargs -P 2) writing to ONE database, merged into another,
# gives the same per-model outcomes and the same groups (compared by query); merging twice
# changes nothing; a shard of another seed or ONNX Runtime release is refused with one line; a
# missing shard is reported with the count of models stored nowhere. Bad K/N: exit 2, one line.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
set -euo pipefail
PLAN=(--unfiltered --source synthetic --models 24 --nodes 5-15:5 --seed 11 --inputs 1)

# Bad K/N: refused before anything is opened or run.
for bad in 4/4 1/0 -1/4 x/4 1 1/4/2 ""; do
  expect_exit 2 cfdb "$T/bad.db" test run "${PLAN[@]}" --shard "$bad"
  [ "$(wc -l <"$T/err")" = 1 ] || fail "--shard '$bad': not one line: $(cat "$T/err")"
  expect_grep "shard" "$T/err"
done
SLURM_ARRAY_TASK_ID=16 SLURM_ARRAY_TASK_COUNT=16 expect_exit 2 cfdb "$T/bad.db" test run "${PLAN[@]}"
expect_grep "SLURM_ARRAY_TASK_ID" "$T/err"
[ ! -e "$T/bad.db" ] || fail "a refused run created its database"

# One run of the whole plan.
cfdb "$T/one.db" test run "${PLAN[@]}" --jobs 1 --minimise-budget 3 >"$T/one.out" 2>"$T/one.err" ||
  fail "single run: $(tail -3 "$T/one.err")"

# 4 shards at once on one database file (shard 3 from the Slurm variables).
cat >"$T/shard.sh" <<SH
#!/usr/bin/env bash
if [ "\$1" = 3 ]; then
  export SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=4
  set --
else
  set -- --shard "\$1/4"
fi
exec "$BUILD/convfail" --db "$T/shards.db" --data-dir "$SRC/data" test run ${PLAN[*]} --jobs 1 "\$@"
SH
run_shard() { bash "$T/shard.sh" "$1" >"$T/shard$1.out" 2>"$T/shard$1.err"; }
export -f run_shard
export T
if command -v parallel >/dev/null; then
  parallel --will-cite -j4 run_shard ::: 0 1 2 3 || fail "a shard failed: $(tail -q -n3 "$T"/shard*.err)"
else
  printf '%s\n' 0 1 2 3 | xargs -P 2 -I{} bash -c 'run_shard {}' ||
    fail "a shard failed: $(tail -q -n3 "$T"/shard*.err)"
fi
expect_grep "shard 3/4 from SLURM_ARRAY_TASK_ID" "$T/shard3.err"
expect_grep 'shard 1/4; `convfail test merge`' "$T/shard1.err"
# No row lost: 6 rows per shard campaign, each of its own residue.
[ "$(sqlite3 "$T/shards.db" "SELECT count(*) FROM campaigns")" = 4 ] || fail "not 4 shard campaigns"
sqlite3 "$T/shards.db" "SELECT json_extract(c.config_json, '\$.shard.index'), count(*),
  sum(m.seq % 4 = json_extract(c.config_json, '\$.shard.index')),
  json_extract(c.config_json, '\$.shard.plan_models') FROM campaigns c
  JOIN campaign_models m ON m.campaign_id = c.id GROUP BY c.id ORDER BY 1" >"$T/per_shard"
[ "$(cat "$T/per_shard")" = "$(printf '0|6|6|24\n1|6|6|24\n2|6|6|24\n3|6|6|24')" ] ||
  fail "shard rows: $(cat "$T/per_shard")"
[ "$(sqlite3 "$T/shards.db" "SELECT count(*) FROM campaign_groups WHERE minimised_nodes IS NOT NULL")" = 0 ] ||
  fail "a shard minimised"

cfdb "$T/x.db" test merge "$T/shards.db" --into "$T/all.db" --minimise-budget 3 \
  >"$T/merge.out" 2>"$T/merge.err" || fail "merge: $(tail -3 "$T/merge.err")"
expect_grep "24 models added" "$T/merge.out"
expect_grep "24 of 24 planned models stored, finished" "$T/merge.out"
# The same campaign as one run: configuration, rows, groups (minimised alike).
outcomes() {
  sqlite3 "$1" "SELECT seq, name, nodes, model_sha256, outcome, mismatch_mode, signature,
    operators_json, graph_json FROM campaign_models ORDER BY seq"
}
groups() {
  sqlite3 "$1" "SELECT outcome, signature, size, representative_seq, original_nodes,
    minimised_nodes, candidates_json IS NOT NULL FROM campaign_groups ORDER BY outcome, signature"
}
[ "$(sqlite3 "$T/all.db" "SELECT config_json FROM campaigns")" = \
  "$(sqlite3 "$T/one.db" "SELECT config_json FROM campaigns")" ] || fail "merged configuration differs"
[ -n "$(sqlite3 "$T/all.db" "SELECT finished_at FROM campaigns")" ] || fail "merged campaign not finished"
outcomes "$T/one.db" >"$T/one.rows"
outcomes "$T/all.db" >"$T/all.rows"
[ "$(wc -l <"$T/one.rows")" = 24 ] || fail "24 rows expected"
diff "$T/one.rows" "$T/all.rows" || fail "merged models differ from the single run"
groups "$T/one.db" >"$T/one.groups"
groups "$T/all.db" >"$T/all.groups"
[ -s "$T/one.groups" ] || fail "the plan has no failure group: pick another seed"
diff "$T/one.groups" "$T/all.groups" || fail "merged groups differ from the single run"
# The merged campaign's models have their files (bundle reads them).
sha=$(sqlite3 "$T/all.db" "SELECT model_sha256 FROM campaign_models WHERE model_sha256 IS NOT NULL LIMIT 1")
[ -f "$T/convfail-data/models/$sha/model.onnx" ] || fail "model files not in the merged store"
# `test compare` of the single run and the merge: nothing changed.
cfdb "$T/one.db" test compare 1 --db-b "$T/all.db" --fail-on new >"$T/cmp.md" || fail "compare one/all"
expect_grep "No change" "$T/cmp.md"

# The documented line: each shard its own database (one folder, one model store).
mkdir -p "$T/own"
own_shard() {
  "$BUILD/convfail" --db "$T/own/shard$1.db" --data-dir "$SRC/data" test run $PLAN_TEXT --jobs 1 \
    --shard "$1/4" >/dev/null 2>"$T/own/shard$1.err"
}
export -f own_shard
export PLAN_TEXT="${PLAN[*]}" BUILD SRC
if command -v parallel >/dev/null; then
  parallel --will-cite -j4 own_shard ::: 0 1 2 3 || fail "a shard failed: $(tail -q -n3 "$T"/own/*.err)"
else
  printf '%s\n' 0 1 2 3 | xargs -P 2 -I{} bash -c 'own_shard {}' ||
    fail "a shard failed: $(tail -q -n3 "$T"/own/*.err)"
fi
cfdb "$T/x.db" test merge "$T"/own/shard{0,1,2,3}.db --into "$T/own/all.db" --no-minimise \
  >/dev/null 2>"$T/own/merge.err" || fail "merge of 4 databases: $(cat "$T/own/merge.err")"
outcomes "$T/own/all.db" >"$T/own.rows"
diff "$T/one.rows" "$T/own.rows" || fail "4 databases merged differ from the single run"

# Merging again changes nothing.
dump() { sqlite3 "$1" ".dump campaigns campaign_models campaign_groups"; }
dump "$T/all.db" >"$T/all.before"
cfdb "$T/x.db" test merge "$T/shards.db" --into "$T/all.db" --json >"$T/merge2.json" 2>/dev/null ||
  fail "second merge"
jq -e '.added == 0 and .already_stored == 24 and .files_copied == 0' "$T/merge2.json" >/dev/null ||
  fail "second merge: $(cat "$T/merge2.json")"
dump "$T/all.db" >"$T/all.after"
diff "$T/all.before" "$T/all.after" >/dev/null || fail "merging twice changed the database"

# A shard of another seed, another release: refused with one line naming it, nothing written.
for change in "seed|7|seed 7, not 11" "ort|\"9.9.9\"|ort 9.9.9, not"; do
  IFS='|' read -r key value says <<<"$change"
  cp "$T/shards.db" "$T/other.db"
  sqlite3 "$T/other.db" "UPDATE campaigns SET config_json = json_set(config_json, '\$.$key',
    json('$value')) WHERE id = (SELECT max(id) FROM campaigns)"
  before=$(counts "$T/all.db")
  expect_exit 1 cfdb "$T/x.db" test merge "$T/other.db" --into "$T/all.db"
  [ "$(wc -l <"$T/err")" = 1 ] || fail "$key refusal not one line: $(cat "$T/err")"
  expect_grep "$says" "$T/err"
  [ "$(counts "$T/all.db")" = "$before" ] || fail "a refused merge wrote"
done

# A missing shard: counted, named, exit 1, the campaign left unfinished.
cp "$T/shards.db" "$T/three.db"
sqlite3 "$T/three.db" "DELETE FROM campaign_models WHERE campaign_id = (SELECT id FROM campaigns
  WHERE json_extract(config_json, '\$.shard.index') = 1);
  DELETE FROM campaign_groups WHERE campaign_id = (SELECT id FROM campaigns
  WHERE json_extract(config_json, '\$.shard.index') = 1);
  DELETE FROM campaigns WHERE json_extract(config_json, '\$.shard.index') = 1"
expect_exit 1 cfdb "$T/x.db" test merge "$T/three.db" --into "$T/part.db" --no-minimise
expect_grep "6 of 24 planned models are stored in no shard (missing shards: 1/4)" "$T/err"
[ -z "$(sqlite3 "$T/part.db" "SELECT finished_at FROM campaigns")" ] || fail "partial merge finished"
[ "$(sqlite3 "$T/part.db" "SELECT count(*) FROM campaign_models")" = 18 ] || fail "partial rows"

# A refused merge writes nothing, not even an empty target (#50 item 5): a database with no shard
# campaign, a missing shard file (said plainly, not "run convfail init").
expect_exit 1 cfdb "$T/x.db" test merge "$T/one.db" --into "$T/never.db"
expect_grep "holds no shard campaign" "$T/err"
[ ! -e "$T/never.db" ] || fail "a refused merge created $T/never.db"
expect_exit 1 cfdb "$T/x.db" test merge "$T/nowhere.db" --into "$T/never.db"
expect_grep "shard database $T/nowhere.db does not exist" "$T/err"
grep -q "convfail init" "$T/err" && fail "a missing shard suggests convfail init"
[ ! -e "$T/never.db" ] && [ ! -e "$T/nowhere.db" ] || fail "a refused merge created a database"
echo ok
