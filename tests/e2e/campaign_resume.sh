#!/usr/bin/env bash
# convfail test: the same seed gives the same models (byte-identical ONNX files), and a campaign
# killed with SIGKILL and run again ends with the same rows as an uninterrupted one.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
set -euo pipefail
ARGS=(test run --unfiltered --source synthetic --models 24 --nodes 5-15:5 --seed 3 --jobs 1 --inputs 2
  --no-minimise)

cfdb "$T/a.db" "${ARGS[@]}" >"$T/a.out" 2>"$T/a.err" || fail "run a: $(tail -3 "$T/a.err")"
grep -q "models/s" "$T/a.err" || fail "no progress line: $(cat "$T/a.err")"
grep -q ",," "$T/a.err" && fail "progress line with an empty field: $(cat "$T/a.err")"
# The same command on the finished campaign answers from the store: no worker started, no
# "0/0 models" progress line, the rows unchanged.
rows "$T/a.db" >"$T/a0.rows"
start=$(date +%s%N)
cfdb "$T/a.db" "${ARGS[@]}" >"$T/again.out" 2>"$T/again.err" || fail "rerun: $(cat "$T/again.err")"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_grep "campaign 1 is finished: all 24 planned models are stored, nothing to run" "$T/again.out"
grep -q "models/s" "$T/again.err" && fail "rerun printed a progress line: $(cat "$T/again.err")"
[ "$ms" -lt 2500 ] || fail "rerun of a finished campaign took $ms ms"
rows "$T/a.db" | diff "$T/a0.rows" - || fail "rerun changed the rows"
cfdb "$T/c.db" "${ARGS[@]}" >/dev/null 2>&1 || fail "run c"
rows "$T/a.db" >"$T/a.rows"
rows "$T/c.db" >"$T/c.rows"
[ "$(wc -l <"$T/a.rows")" = 24 ] || fail "24 rows expected: $(cat "$T/a.rows")"
diff "$T/a.rows" "$T/c.rows" || fail "same seed, different models"
[ "$(sqlite3 "$T/a.db" "SELECT count(DISTINCT model_sha256) FROM campaign_models")" -ge 3 ] ||
  fail "expected distinct models: $(cat "$T/a.rows")"
# The stored files are content-addressed: the same model is the same file.
sha=$(sqlite3 "$T/a.db" "SELECT model_sha256 FROM campaign_models WHERE model_sha256 IS NOT NULL LIMIT 1")
cmp "$T/convfail-data/models/$sha/model.onnx" "$T/convfail-data/models/$sha/model.onnx"
[ "$(sha256sum <"$T/convfail-data/models/$sha/model.onnx" | cut -d' ' -f1)" = "$sha" ] ||
  fail "model file not named by its sha256"
# Another seed, other models.
cfdb "$T/d.db" test run --unfiltered --source synthetic --models 6 --nodes 5-15:5 --seed 4 --jobs 1 --inputs 2 \
  --no-minimise >/dev/null 2>&1
[ "$(comm -12 <(sqlite3 "$T/a.db" "SELECT model_sha256 FROM campaign_models" | sort) \
  <(sqlite3 "$T/d.db" "SELECT model_sha256 FROM campaign_models" | sort) | grep -c .)" = 0 ] ||
  fail "seed 4 repeats seed 3's models"

# kill -9 once two rows are stored, then the same command again.
# convfail itself, not a function: a backgrounded function is a subshell, and killing it would
# leave convfail running.
"$BUILD/convfail" --db "$T/b.db" --data-dir "$SRC/data" "${ARGS[@]}" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do
  n=$(sqlite3 "$T/b.db" "SELECT count(*) FROM campaign_models" 2>/dev/null || echo 0)
  [ "${n:-0}" -ge 2 ] && break
  sleep 0.2
done
kill -9 "$pid" 2>/dev/null || fail "the run ended before it could be killed"
wait "$pid" 2>/dev/null || true
n=$(sqlite3 "$T/b.db" "SELECT count(*) FROM campaign_models")
[ "$n" -lt 24 ] || fail "killed too late ($n rows)"
[ -z "$(sqlite3 "$T/b.db" "SELECT finished_at FROM campaigns")" ] || fail "killed campaign finished"
cfdb "$T/b.db" "${ARGS[@]}" --json >"$T/b.json" 2>/dev/null || fail "resume failed"
jq -e ".already_stored == $n and .finished == true and .campaign == 1" "$T/b.json" >/dev/null ||
  fail "resume summary: $(cat "$T/b.json")"
rows "$T/b.db" >"$T/b.rows"
diff "$T/a.rows" "$T/b.rows" || fail "resumed campaign differs from the uninterrupted one"
[ "$(sqlite3 "$T/b.db" "SELECT count(*) FROM campaigns")" = 1 ] || fail "resume made a new campaign"
echo ok
