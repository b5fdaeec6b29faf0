#!/usr/bin/env bash
# Issue #14, real GitHub shapes (as recorded from api.github.com) served by build/fake-github: a
# renamed repository (301 to /repositories/<id>), pre-2014 dumps with a pull_request object of
# nulls, timeline events without actor/created_at, rate-limit 403s without reset or
# Retry-After, secondary limits, and a summary that counts each issue once.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_crawler.sh"
CF="$BUILD/convfail"
N=60
# Ground truth of the generator for closed issues 1..N: pull requests are n%7==3, open n%5==0.
PLAIN=0 PRS=0
for n in $(seq 1 $N); do
  [ $((n % 5)) = 0 ] && continue
  if [ $((n % 7)) = 3 ]; then PRS=$((PRS + 1)); else PLAIN=$((PLAIN + 1)); fi
done
json() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['repos'][0][sys.argv[2]])" "$@"; }
log_count() {  # URL [STATUS]: requests the server logged (with that status)
  curl -s "$1/_admin/log" | python3 -c "
import json, sys
log = json.load(sys.stdin)
print(sum(1 for r in log if len(sys.argv) < 2 or r['status'] == int(sys.argv[1])))" "${@:2}"
}

# 1. A renamed repository: stored under the new name and id, the next run asks for it directly.
start_fake REN --issues $N --rename old-org/old-name=new-org/new-name
"$CF" --db "$T/ren.db" crawl old-org/old-name --api-url "$REN" --json >"$T/j1" 2>"$T/e1"
[ "$(json "$T/j1" repo)" = new-org/new-name ] || fail "summary names $(json "$T/j1" repo)"
grep -q "renamed to new-org/new-name" "$T/e1" || fail "no rename notice: $(cat "$T/e1")"
[ "$(sqlite3 "$T/ren.db" "SELECT group_concat(full_name) FROM repositories")" = new-org/new-name ] \
  || fail "repositories: $(sqlite3 "$T/ren.db" "SELECT full_name FROM repositories")"
[ -n "$(sqlite3 "$T/ren.db" "SELECT github_id FROM repositories WHERE full_name='new-org/new-name'")" ] \
  || fail "github id not stored"
[ "$(sqlite3 "$T/ren.db" "SELECT count(*) FROM issues")" = $PLAIN ] || fail "issues of the renamed repository"
[ "$(sqlite3 "$T/ren.db" "SELECT old_name FROM repository_aliases")" = old-org/old-name ] || fail "alias"
moved1=$(log_count "$REN" 301)
total1=$(log_count "$REN")
[ "$moved1" -ge 1 ] || fail "the server never redirected"
# Each redirect is a request (and costs budget): the summary counts what the server saw.
[ "$(json "$T/j1" requests)" = "$total1" ] || fail "requests $(json "$T/j1" requests), server saw $total1"
"$CF" --db "$T/ren.db" crawl old-org/old-name --api-url "$REN" --json >"$T/j2" 2>"$T/e2"
[ "$(log_count "$REN" 301)" = "$moved1" ] || fail "the second run was redirected again"
[ "$(json "$T/j2" requests)" = "$(($(log_count "$REN") - total1))" ] || fail "second run's request count"
[ "$(json "$T/j2" not_modified)" -ge 1 ] || fail "second run sent no conditional request"
echo "ok 1: renamed repository stored as new-org/new-name; run 1: $moved1 redirect(s) of $total1 requests; run 2: none of $(json "$T/j2" requests)"

# 2. Pre-2014 dumps: plain issues with a pull_request object of nulls are issues.
start_fake OLD --issues $N --old-format
"$CF" --db "$T/old.db" crawl o/r --api-url "$OLD" --json >"$T/j3"
[ "$(sqlite3 "$T/old.db" "SELECT count(*) FROM issues WHERE is_pull_request=0")" = $PLAIN ] \
  || fail "old-format issues stored: $(sqlite3 "$T/old.db" "SELECT count(*) FROM issues")"
[ "$(json "$T/j3" pull_requests_skipped)" = $PRS ] || fail "pull requests skipped: $(json "$T/j3" pull_requests_skipped)"
echo "ok 2: old-format dump: $PLAIN issues stored, $PRS pull requests skipped"

# 3. The summary counts each issue once (a first run lists the repository twice).
[ "$(json "$T/j3" issues_seen)" = $PLAIN ] || fail "issues_seen $(json "$T/j3" issues_seen), expected $PLAIN"
[ "$(json "$T/j3" new_issues)" = $PLAIN ] || fail "new_issues $(json "$T/j3" new_issues)"
echo "ok 3: summary: issues_seen $PLAIN, pull_requests_skipped $PRS"

# 4. committed / reviewed / line-commented are stored with their real actor and date.
missing=$(sqlite3 "$T/old.db" "SELECT count(*) FROM timeline_events
  WHERE event IN ('committed','reviewed','line-commented') AND (actor IS NULL OR created_at IS NULL)")
have=$(sqlite3 "$T/old.db" "SELECT count(*) FROM timeline_events
  WHERE event IN ('committed','reviewed','line-commented')")
[ "$have" -ge 3 ] || fail "no committed/reviewed/line-commented events served"
[ "$missing" = 0 ] || fail "$missing of $have events without actor or date"
[ "$(sqlite3 "$T/old.db" "SELECT count(*) FROM timeline_events WHERE event='committed'
  AND (actor <> json_extract(raw_json, '$.author.name')
       OR created_at <> json_extract(raw_json, '$.author.date'))")" = 0 ] || fail "committed actor/date"
[ "$(sqlite3 "$T/old.db" "SELECT count(*) FROM timeline_events WHERE event='reviewed'
  AND created_at <> json_extract(raw_json, '$.submitted_at')")" = 0 ] || fail "reviewed date"
echo "ok 4: $have committed/reviewed/line-commented events with actor and date"

# 5. Rate-limit 403s without X-RateLimit-Reset or Retry-After (two clients share the budget,
# so each meets 403s it did not see coming): both wait and complete.
start_fake BARE --issues 40 --rate-limit 20 --rate-window 1 --bare-rate-limit
for k in 1 2; do
  "$CF" --db "$T/bare$k.db" crawl o/r --api-url "$BARE" --backoff-base 0.01 --rate-floor 0 \
    --json >"$T/j5$k" 2>"$T/e5$k" &
  eval "p$k=\$!"
done
wait "$p1" || fail "bare rate limit: client 1 failed: $(cat "$T/e51")"
wait "$p2" || fail "bare rate limit: client 2 failed: $(cat "$T/e52")"
[ "$(json "$T/j51" complete)" = True ] && [ "$(json "$T/j52" complete)" = True ] || fail "incomplete"
[ "$(log_count "$BARE" 403)" -ge 1 ] || fail "no bare 403 served"
[ "$(sqlite3 "$T/bare1.db" "SELECT count(*) FROM issues")" = "$(sqlite3 "$T/bare2.db" "SELECT count(*) FROM issues")" ] \
  || fail "the two clients stored different issues"
echo "ok 5: bare rate-limit 403s ($(log_count "$BARE" 403)) waited out"

# 6. The first secondary-rate-limit answer makes the rest of the run serial.
start_fake SEC --issues 120 --fault-rate 0.3 --seed 3 --retry-after 0
"$CF" --db "$T/sec.db" crawl o/r --api-url "$SEC" --concurrency 8 --backoff-base 0.01 \
  >"$T/o6" 2>"$T/e6"
grep -q "one request at a time" "$T/e6" || fail "no switch to serial requests: $(head -c 400 "$T/e6")"
echo "ok 6: secondary rate limit => serial"
echo "PASS: real GitHub shapes"
