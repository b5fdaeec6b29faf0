#!/usr/bin/env bash
# Issue test 4: a crawl killed with SIGKILL mid-run, then run again, ends with exactly the same
# database content as an uninterrupted crawl (no duplicates, nothing missing).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_crawler.sh"
CF="$BUILD/convfail"
REPO=onnx/tensorflow-onnx

start_fake URL --issues 500 --latency-ms 8
"$CF" --db "$T/full.db" crawl $REPO --api-url "$URL" --concurrency 2 >/dev/null
full_count=$(sqlite3 "$T/full.db" "SELECT count(*) FROM issues")
[ "$full_count" -gt 300 ] || { echo "reference crawl stored only $full_count issues"; exit 1; }

# Kill twice at different moments, then let it finish.
killed=0
for delay in 0.7 1.1; do
  "$CF" --db "$T/killed.db" crawl $REPO --api-url "$URL" --concurrency 2 >/dev/null 2>&1 &
  pid=$!
  sleep $delay
  if kill -9 $pid 2>/dev/null; then killed=$((killed + 1)); fi
  wait $pid 2>/dev/null || true
  partial=$(sqlite3 "$T/killed.db" "SELECT count(*) FROM issues" 2>/dev/null || echo 0)
  echo "after kill at ${delay}s: $partial of $full_count issues stored"
done
[ $killed -ge 1 ] || { echo "the crawl finished before it could be killed"; exit 1; }
partial=$(sqlite3 "$T/killed.db" "SELECT count(*) FROM issues")
[ "$partial" -lt "$full_count" ] || { echo "kill came too late to test resuming"; exit 1; }
next=$(sqlite3 "$T/killed.db" "SELECT count(*) FROM crawl_state WHERE next_url IS NOT NULL")
echo "resume cursor rows: $next"

"$CF" --db "$T/killed.db" crawl $REPO --api-url "$URL" --concurrency 2 >/dev/null
if ! diff <(dump_db "$T/full.db") <(dump_db "$T/killed.db") >"$T/diff"; then
  echo "resumed crawl differs from the uninterrupted one:"; head -20 "$T/diff"; exit 1
fi
dups=$(sqlite3 "$T/killed.db" "SELECT count(*) FROM (SELECT issue_id, position FROM comments GROUP BY 1, 2 HAVING count(*) > 1)")
[ "$dups" = 0 ] || { echo "duplicate comments"; exit 1; }
echo "PASS: killed crawl resumed to the same $full_count issues"
