#!/usr/bin/env bash
# Issue #16: GraphQL answers that are errors. HTTP-200 "errors" (NOT_FOUND, partial data) stop
# the crawl with a one-line message and leave the stored rows as they were; RATE_LIMITED waits
# for the reset; faults (5xx, cut connections, truncated JSON, secondary limits) are retried to
# the same rows; a redirect of the POST to another origin is refused and that origin receives
# nothing (no token).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_crawler.sh"
CF="$BUILD/convfail"
REPO=onnx/tensorflow-onnx
TOKEN="ghp_gqlerr$RANDOM$RANDOM"

gql() {  # gql DB ARGS...: a GraphQL crawl with the token; rc in $rc, output in $T/out, $T/err
  local db=$1
  shift
  rc=0
  GITHUB_TOKEN=$TOKEN "$CF" --db "$db" crawl $REPO --api graphql "$@" >"$T/out" 2>"$T/err" || rc=$?
}
failed_once() {  # PATTERN: exit 1, one line on stderr matching PATTERN, no token printed
  [ "$rc" = 1 ] || fail "expected exit 1, got $rc: $(head -c 600 "$T/err")"
  [ "$(wc -l <"$T/err")" = 1 ] || fail "expected a one-line error: $(head -c 600 "$T/err")"
  expect_grep "$1" "$T/err"
  if grep -aq "$TOKEN" "$T/err" "$T/out"; then fail "token printed"; fi
}

start_fake REF --issues 300
gql "$T/ref.db" --api-url "$REF"
[ $rc = 0 ] || fail "reference crawl: $(cat "$T/err")"

# NOT_FOUND with HTTP 200: a clear error; an existing database keeps its rows.
start_fake MISSING --issues 300 --missing-repo $REPO
cp "$T/ref.db" "$T/nf.db"
curl -s -X POST -d '' "$MISSING/_admin/change?issues=2,4" >/dev/null
gql "$T/nf.db" --api-url "$MISSING"
failed_once "NOT_FOUND: Could not resolve to a Repository with the name '$REPO'"
same_rows "$T/ref.db" "$T/nf.db" "after NOT_FOUND"
echo "ok: NOT_FOUND"

# Partial data (an error inside one issue's timeline): the page holding it is refused whole;
# the pages before it were stored with their checkpoint, and a clean run ends as the reference.
start_fake PARTIAL --issues 300 --graphql-partial-issue 251
gql "$T/partial.db" --api-url "$PARTIAL" --graphql-page-size 50
failed_once "partial data was refused; nothing of it was stored"
[ "$(sqlite3 "$T/partial.db" "SELECT count(*) FROM issues WHERE number=251")" = 0 ] ||
  fail "the issue with the error was stored"
stored=$(sqlite3 "$T/partial.db" "SELECT count(*) FROM issues")
[ $((stored % 50)) = 0 ] || fail "$stored issues stored: a page was half-written"
sqlite3 "$T/partial.db" "SELECT last_error FROM crawl_state" | grep -q "GraphQL" ||
  fail "the failed run's error was not recorded"
gql "$T/partial.db" --api-url "$REF"
[ $rc = 0 ] || fail "resume after partial data: $(cat "$T/err")"
same_rows "$T/ref.db" "$T/partial.db" "resumed after partial data"
echo "ok: partial data refused ($stored issues stored before it), resumed"

# RATE_LIMITED (HTTP 200) when the points of the window are spent: wait for the reset, finish.
# (7 points: two pages of 3 leave 1, above the floor of 0; the third page costs 3.)
# Windows are aligned to multiples of 3 s: start just after a boundary, so the first pages share one.
start_fake LIMITED --issues 300 --rate-limit 7 --rate-window 3
sleep "$(python3 -c 'import time; print(3.05 - time.time() % 3)')"
gql "$T/limited.db" --api-url "$LIMITED" --json --rate-floor 0
[ $rc = 0 ] || fail "rate-limited crawl: $(cat "$T/err")"
[ "$(jq '.repos[0].rate_limit_waits' "$T/out")" -ge 1 ] || fail "no rate-limit wait recorded"
expect_grep "waiting .*GraphQL RATE_LIMITED (HTTP 200), until the reset" "$T/err"
same_rows "$T/ref.db" "$T/limited.db" "after rate-limit waits"
echo "ok: RATE_LIMITED waits for the reset"

# Faults on a request's first two attempts (500, 502, cut connections, truncated JSON, 403 with
# Retry-After, GitHub's 502 timeout answer): retried, or the page made smaller, to the same rows.
# (Seed 1 times out an issue page, which is halved; follow-up pages are retried.)
start_fake FAULTY --issues 300 --fault-rate 0.6 --retry-after 0 --seed 1
gql "$T/faulty.db" --api-url "$FAULTY" --backoff-base 0.01 --json
[ $rc = 0 ] || fail "faulty crawl: $(cat "$T/err")"
[ "$(jq .retries "$T/out")" -ge 1 ] || fail "no retries"
expect_grep "timed out on 100 issues per request; asking for 50" "$T/err"
same_rows "$T/ref.db" "$T/faulty.db" "after faults"
echo "ok: faults retried ($(grep -c "timed out" "$T/err") timeout answers handled)"

# A redirect to another origin: not followed; the other origin never sees a request or the token.
start_fake OTHER --issues 10
start_fake REDIR --issues 10 --redirect-to "$OTHER"
gql "$T/redir.db" --api-url "$REDIR"
failed_once "HTTP 302"
[ "$(curl -s "$OTHER/_admin/log")" = "[]" ] || fail "the other origin got a request"
echo "ok: redirect refused, token not sent elsewhere"

# A 2 GB body and a gzip bomb, under an 800 MB address-space limit; ESC in an error message.
start_fake HUGE --huge-body-mb 2048
start_fake BOMB --gzip-bomb-mb 1024
for kind in HUGE BOMB; do
  rc=0
  ( ulimit -v 800000
    GITHUB_TOKEN=$TOKEN exec "$CF" --db "$T/$kind.db" crawl $REPO --api graphql \
      --api-url "${!kind}" ) >"$T/out" 2>"$T/err" || rc=$?
  failed_once "larger than the cap of 100 MB (--max-response-mb)"
done
start_fake ESC --escape-error
gql "$T/esc.db" --api-url "$ESC"
failed_once 'HTTP 400: Bad request'
if grep -q $'\x1b' "$T/err"; then fail "raw ESC printed"; fi
echo "ok: huge body, gzip bomb and escape sequences"

# A node that breaks the store's schema (a number as title): one line naming the issue, and
# nothing of its page stored.
start_fake BADTITLE --issues 60 --bad-title-issue 6
gql "$T/bad.db" --api-url "$BADTITLE"
failed_once "$REPO#6 as served by .*/graphql: title"
[ "$(sqlite3 "$T/bad.db" "SELECT count(*) FROM issues")" = 0 ] || fail "part of the page was stored"
echo "PASS: GraphQL errors handled"
