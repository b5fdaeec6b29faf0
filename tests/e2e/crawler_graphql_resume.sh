#!/usr/bin/env bash
# Issue #16: a GraphQL crawl killed with SIGKILL mid-run, then run again, ends with the same
# database as an uninterrupted one (the cursor is checkpointed in each page's transaction), and
# --max-issues stops and resumes the same way.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_crawler.sh"
CF="$BUILD/convfail"
REPO=onnx/tensorflow-onnx
export GITHUB_TOKEN="ghp_resume$RANDOM"

start_fake URL --issues 1500 --latency-ms 150
"$CF" --db "$T/full.db" crawl $REPO --api graphql --api-url "$URL" --graphql-page-size 20 >/dev/null
full=$(sqlite3 "$T/full.db" "SELECT count(*) FROM issues")
[ "$full" -gt 1000 ] || fail "reference crawl stored only $full issues"

killed=0
for delay in 1.0 1.6; do
  "$CF" --db "$T/killed.db" crawl $REPO --api graphql --api-url "$URL" --graphql-page-size 20 \
    >/dev/null 2>&1 &
  pid=$!
  sleep $delay
  if kill -9 $pid 2>/dev/null; then killed=$((killed + 1)); fi
  wait $pid 2>/dev/null || true
  echo "after kill at ${delay}s: $(sqlite3 "$T/killed.db" "SELECT count(*) FROM issues" 2>/dev/null || echo 0) of $full"
done
[ $killed -ge 1 ] || fail "the crawl finished before it could be killed"
partial=$(sqlite3 "$T/killed.db" "SELECT count(*) FROM issues")
[ "$partial" -lt "$full" ] || fail "the kill came too late to test resuming"
sqlite3 "$T/killed.db" "SELECT next_url FROM crawl_state" | grep -q '^graphql:{"after":"' ||
  fail "no GraphQL cursor checkpointed"
"$CF" --db "$T/killed.db" crawl $REPO --api graphql --api-url "$URL" --graphql-page-size 20 >/dev/null
same_rows "$T/full.db" "$T/killed.db" "killed and resumed"
echo "ok: killed crawl resumed ($partial of $full stored before)"

# --max-issues: stops with a checkpoint, the next runs continue to the same rows.
runs=0
while :; do
  runs=$((runs + 1))
  [ $runs -le 20 ] || fail "--max-issues runs never completed"
  "$CF" --db "$T/max.db" crawl $REPO --api graphql --api-url "$URL" --max-issues 400 --json >"$T/m.json"
  [ "$(jq .new_issues "$T/m.json")" -le 400 ] || fail "--max-issues 400 stored more"
  [ "$(jq '.repos[0].complete' "$T/m.json")" = true ] && break
done
[ $runs -ge 3 ] || fail "--max-issues 400 finished in $runs runs"
same_rows "$T/full.db" "$T/max.db" "--max-issues runs"
echo "PASS: GraphQL crawl resumes to the same database ($runs runs of --max-issues 400)"
