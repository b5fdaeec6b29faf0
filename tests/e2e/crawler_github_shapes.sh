#!/usr/bin/env bash
# Issue #32: GitHub's GraphQL API as it really answers (shapes modelled on public recordings, see
# tests/fake_github/fake_github.h): both spellings of the rate-limit error, secondary limits on
# a 200 and a 403 without Retry-After, timeouts as nginx HTML pages, partial data with
# RESOURCE_LIMITS_EXCEEDED, MAX_NODE_LIMIT_EXCEEDED, ids above 2^31 and 2^53, deleted users,
# and a server without /graphql. A crawl through each ends with the rows REST stores from the
# same data; waits are scaled down by --backoff-base (60 x base when GitHub gives no time).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_crawler.sh"
CF="$BUILD/convfail"
REPO=onnx/tensorflow-onnx
TOKEN="ghp_shape$RANDOM$RANDOM"
N=300

crawl() {  # crawl DB URL ARGS...: rc in $rc, output in $T/out, $T/err
  local db=$1 url=$2
  shift 2
  rc=0
  GITHUB_TOKEN=$TOKEN "$CF" --db "$db" crawl $REPO --api-url "$url" --backoff-base 0.01 \
    --json "$@" >"$T/out" 2>"$T/err" || rc=$?
}
ok_crawl() { [ "$rc" = 0 ] || fail "$1: exit $rc: $(head -c 800 "$T/err")"; }
no_html() { if grep -qi '<html\|<head\|<center' "$T/err"; then fail "HTML printed: $(cat "$T/err")"; fi; }

start_fake REF --issues $N
crawl "$T/ref.db" "$REF" --api rest
ok_crawl "REST reference"
ref_requests=$(jq .requests "$T/out")

for shape in rate-limit rate-limited secondary html-timeout resource-limits node-limit; do
  start_fake S --issues $N --graphql-shape $shape
  crawl "$T/$shape.db" "$S" --api graphql
  ok_crawl "$shape"
  no_html
  same_rows "$T/ref.db" "$T/$shape.db" "GraphQL through $shape"
  case $shape in
    rate-limit)
      expect_grep "waiting .*: GraphQL RATE_LIMIT (HTTP 200), until the reset" "$T/err"
      [ "$(jq '.repos[0].rate_limit_waits' "$T/out")" -ge 2 ] ||
        fail "expected two rate-limit waits: $(cat "$T/out")" ;;
    rate-limited)
      expect_grep "waiting .*: GraphQL RATE_LIMITED (HTTP 200), until the reset" "$T/err" ;;
    secondary)
      # No Retry-After: at least a minute (60 x base 0.01 = 0.6 s), doubling on the repeat.
      expect_grep "waiting 0.6 s: HTTP 200: You have exceeded a secondary rate limit" "$T/err"
      expect_grep "waiting 1.2 s: HTTP 403: You have exceeded a secondary rate limit" "$T/err" ;;
    html-timeout)
      expect_grep "timed out on 100 issues per request; asking for 50" "$T/err"
      expect_grep "timed out on 50 issues per request; asking for 25" "$T/err"
      expect_grep "asking for 50 issues per request again" "$T/err" ;;
    resource-limits)
      expect_grep "answered RESOURCE_LIMITS_EXCEEDED on 100 issues per request; asking for 50" "$T/err"
      [ "$(sqlite3 "$T/$shape.db" "SELECT count(*) FROM issues WHERE github_id IS NULL OR title=''")" = 0 ] ||
        fail "a null node was stored" ;;
    node-limit)
      expect_grep "answered MAX_NODE_LIMIT_EXCEEDED on 100 issues per request; asking for 50" "$T/err" ;;
  esac
  echo "ok: $shape ($(wc -l <"$T/err") line(s) on stderr)"
done

# 64-bit ids: above 2^31 and above 2^53 (databaseId, an Int, answers a field error for those).
start_fake BIG --issues $N --big-ids
crawl "$T/big_rest.db" "$BIG" --api rest
ok_crawl "REST with big ids"
crawl "$T/big_gql.db" "$BIG" --api graphql
ok_crawl "GraphQL with big ids"
same_rows "$T/big_rest.db" "$T/big_gql.db" "big ids"
# Issue 6 (6 % 3 == 0): 2^53 + 1 + 5000006; issue 5: 2^31 + 5000005; a comment of issue 7.
[ "$(sqlite3 "$T/big_gql.db" "SELECT github_id FROM issues WHERE number=6")" = 9007199259740999 ] ||
  fail "id above 2^53 did not round-trip: $(sqlite3 "$T/big_gql.db" "SELECT github_id FROM issues WHERE number=6")"
[ "$(sqlite3 "$T/big_gql.db" "SELECT github_id FROM issues WHERE number=7")" = 2152483655 ] ||
  fail "id above 2^31 did not round-trip"
[ "$(sqlite3 "$T/big_gql.db" "SELECT count(*) FROM comments WHERE github_id > 9007199254740992")" -gt 0 ] ||
  fail "no comment id above 2^53 stored"
echo "ok: ids above 2^31 and 2^53 round-trip"

# Deleted users: REST's "ghost" whichever API crawled.
start_fake GHOST --issues $N --deleted-users
crawl "$T/ghost_rest.db" "$GHOST" --api rest
ok_crawl "REST with deleted users"
crawl "$T/ghost_gql.db" "$GHOST" --api graphql
ok_crawl "GraphQL with deleted users"
same_rows "$T/ghost_rest.db" "$T/ghost_gql.db" "deleted users"
ghosts=$(sqlite3 "$T/ghost_gql.db" "SELECT (SELECT count(*) FROM issues WHERE author='ghost') +
  (SELECT count(*) FROM comments WHERE author='ghost') + (SELECT count(*) FROM timeline_events WHERE actor='ghost')")
[ "$ghosts" -gt 0 ] || fail "no ghost stored"
echo "ok: deleted users stored as ghost by both APIs ($ghosts rows)"

# No GraphQL endpoint: one request, no retries; --api auto falls back to REST in one line.
for status in 404 501; do
  start_fake NOEP --issues $N --graphql-shape no-endpoint-$status
  crawl "$T/noep$status.db" "$NOEP" --api graphql
  [ "$rc" = 1 ] || fail "--api graphql without /graphql: exit $rc"
  [ "$(wc -l <"$T/err")" = 1 ] || fail "expected one line: $(cat "$T/err")"
  expect_grep "HTTP $status: the server has no GraphQL endpoint" "$T/err"
  no_html
  [ "$(graphql_requests "$NOEP")" = 1 ] || fail "HTTP $status was retried: $(graphql_requests "$NOEP") POSTs"
  crawl "$T/auto$status.db" "$NOEP" --api auto
  ok_crawl "--api auto without /graphql ($status)"
  [ "$(wc -l <"$T/err")" = 1 ] || fail "expected one line: $(cat "$T/err")"
  expect_grep "no GraphQL endpoint.*crawling through REST instead" "$T/err"
  [ "$(jq .requests "$T/out")" = $((ref_requests + 1)) ] ||
    fail "--api auto made $(jq .requests "$T/out") requests, REST alone $ref_requests"
  same_rows "$T/ref.db" "$T/auto$status.db" "--api auto fallback"
  echo "ok: no endpoint (HTTP $status): fails fast once; auto falls back in $((ref_requests + 1)) requests"
done
echo "PASS: GitHub's recorded GraphQL shapes"
