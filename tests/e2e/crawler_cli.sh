#!/usr/bin/env bash
# The crawl command as a user runs it against build/fake-github started by hand (docs/crawling.md):
# --help documents every option, bad arguments exit 2, --json summary keys, the second run is
# all 304, an edited issue is picked up, the preset crawls both repositories, and the progress
# line appears on a terminal only.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_crawler.sh"
CF="$BUILD/convfail"

help=$("$CF" crawl --help)
for opt in --label --exclude-label --state --since --no-comments --no-timeline --api-url \
  --token-file --concurrency --max-issues --preset --json --rate-floor --backoff-base \
  --max-retries --overlap --max-pages --max-response-mb; do
  grep -q -- "$opt" <<<"$help" || fail "crawl --help does not document $opt"
done
"$BUILD/fake-github" --help | grep -q -- --fault-rate || fail "fake-github --help"

set +e
"$CF" --db "$T/x.db" crawl >/dev/null 2>&1; [ $? = 2 ] || fail "no REPO: expected exit 2"
"$CF" --db "$T/x.db" crawl a/b --state merged >/dev/null 2>&1; [ $? = 2 ] || fail "--state"
"$CF" --db "$T/x.db" crawl a/b --concurrency 0 >/dev/null 2>&1; [ $? = 2 ] || fail "--concurrency 0"
"$CF" --db "$T/x.db" crawl a/b --preset jajal2024 >/dev/null 2>&1; [ $? = 2 ] || fail "REPO and --preset"
"$CF" --db "$T/x.db" crawl a/b --token-file "$T/none" >/dev/null 2>&1; [ $? = 1 ] || fail "missing token file"
set -e

start_fake URL --issues 200 --latency-ms 1
DB="$T/c.db"
"$CF" --db "$DB" crawl onnx/tensorflow-onnx --api-url "$URL" --json >"$T/j1"
for key in requests not_modified new_issues updated_issues retries rate_limit_wait_s; do
  grep -q "\"$key\"" "$T/j1" || fail "--json lacks $key"
done
python3 - "$T/j1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["new_issues"] > 100 and j["not_modified"] == 0, j
PY
"$CF" --db "$DB" crawl onnx/tensorflow-onnx --api-url "$URL" --json >"$T/j2"
python3 - "$T/j2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["requests"] >= 1 and j["not_modified"] == j["requests"], j
assert j["new_issues"] == 0 and j["updated_issues"] == 0, j
PY
curl -s -d '' "$URL/_admin/change?issues=16" | grep -q changed
"$CF" --db "$DB" crawl onnx/tensorflow-onnx --api-url "$URL" --json >"$T/j3"
python3 - "$T/j3" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["updated_issues"] == 1 and j["new_issues"] == 0, j
PY
[ "$(sqlite3 "$DB" "SELECT body FROM issues WHERE number=16")" = "Steps to reproduce 16 (edited 1 times)" ] \
  || fail "edited issue not stored"

# Preset: both repositories of the study.
"$CF" --db "$T/p.db" crawl --preset jajal2024 --api-url "$URL" >"$T/p.out"
[ "$(sqlite3 "$T/p.db" "SELECT count(DISTINCT repo_id) FROM issues")" = 2 ] || fail "preset repos"
[ "$(sqlite3 "$T/p.db" "SELECT count(*) FROM issues i JOIN repositories r ON r.id=i.repo_id
    WHERE r.full_name='onnx/tensorflow-onnx' AND i.id IN (SELECT issue_id FROM issue_labels
    WHERE name IN ('question','pending on user response'))")" = 0 ] || fail "preset exclusions"
[ "$(sqlite3 "$T/p.db" "SELECT count(*) FROM issues i JOIN repositories r ON r.id=i.repo_id
    WHERE r.full_name='pytorch/pytorch' AND i.id NOT IN (SELECT issue_id FROM issue_labels
    WHERE name='module: onnx')")" = 0 ] || fail "preset labels"

# Progress: on a pipe no carriage returns; on a terminal an updating line.
"$CF" --db "$T/q.db" crawl onnx/tensorflow-onnx --api-url "$URL" 2>"$T/pipe.err" >/dev/null
if grep -q $'\r' "$T/pipe.err"; then fail "progress line written to a pipe"; fi
if command -v script >/dev/null; then
  script -qec "$CF --db $T/t.db crawl onnx/tensorflow-onnx --api-url $URL" /dev/null \
    >"$T/tty.out" </dev/null
  grep -q "requests" "$T/tty.out" || fail "no progress on a terminal"
  grep -q $'\r' "$T/tty.out" || fail "progress line not rewritten in place"
fi
echo "PASS"
