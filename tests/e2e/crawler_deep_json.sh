#!/usr/bin/env bash
# Issue #41, item 3: JSON nested 100,000 levels deep from the API (a REST listing page, a GraphQL
# page whose renamed-title item has such a previousTitle) crashed the crawl (SIGSEGV in
# nlohmann's recursive dump under IssueStore, the run record left "started"). Each case: exit 1,
# a one-line error naming the page, the run record marked failed (crawl_state.last_error), no
# issue of the deep page stored; and the crawl is resumable: a later crawl against a sane
# server continues from the checkpoint and ends with what a clean crawl stores.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_crawler.sh"
CF="$BUILD/convfail"
REPO=acme/deep
N=250

# crawl DB API URL: rc in $rc, stdout/stderr in $T/out, $T/err.
crawl() {
  rc=0
  GITHUB_TOKEN=ghp_deep "$CF" --db "$1" crawl $REPO --api "$2" --api-url "$3" --state all \
    >"$T/out" 2>"$T/err" || rc=$?
}
# failed_deep WHAT: exit 1 (not a signal), one line naming the request and the depth limit, and
# the run record says why it stopped.
failed_deep() {
  local db=$1 what=$2
  [ "$rc" = 1 ] || fail "$what: expected exit 1, got $rc (139 is SIGSEGV): $(head -c 300 "$T/err")"
  [ "$(wc -l <"$T/err")" = 1 ] || fail "$what: expected a one-line error: $(head -c 600 "$T/err")"
  expect_grep "nested deeper than 64 levels" "$T/err"
  [ "$(stat -c %s "$T/err")" -lt 400 ] || fail "$what: the error is long: $(head -c 600 "$T/err")"
  local record
  record=$(sqlite3 "$db" "SELECT last_error FROM crawl_state")
  case "$record" in
    *"nested deeper than 64 levels"*) ;;
    *) fail "$what: run record not marked failed: '$record'" ;;
  esac
  [ -z "$(sqlite3 "$db" "SELECT last_finished_at FROM crawl_state")" ] ||
    fail "$what: run record says finished"
}

# The reference: a clean crawl of the same data, REST and GraphQL.
start_fake CLEAN --issues $N
crawl "$T/ref_rest.db" rest "$CLEAN"
[ $rc = 0 ] || fail "reference REST crawl: $(cat "$T/err")"
crawl "$T/ref_gql.db" graphql "$CLEAN"
[ $rc = 0 ] || fail "reference GraphQL crawl: $(cat "$T/err")"

# 1. REST: the deep value on the second listing page. Page 1 is stored with its checkpoint; the
#    crawl stops at page 2 with one line naming that GET.
DEEP=$(curl -s "$CLEAN/repos/$REPO/issues?state=all&per_page=100&sort=updated&direction=asc&page=2" |
  jq '[.[] | select(has("pull_request") | not)][0].number')
[ -n "$DEEP" ] && [ "$DEEP" != null ] || fail "no issue on the second page"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
start_fake EVIL --issues $N --deep-issue "$DEEP" --port "$PORT"
EVIL_PID=${FAKE_PIDS[-1]}
curl -s "$EVIL/repos/$REPO/issues?state=all&per_page=100&sort=updated&direction=asc&page=2" \
  >"$T/page2.json"
grep -q '\[\[\[\[\[\[\[\[' "$T/page2.json" || fail "the fake did not serve a deep page"
[ "$(stat -c %s "$T/page2.json")" -gt 200000 ] || fail "the deep page is not 100,000 levels"
crawl "$T/rest.db" rest "$EVIL"
failed_deep "$T/rest.db" REST
expect_grep "^convfail: error: GET $EVIL/.*page=2.*: the answer holds JSON nested deeper than 64 levels" "$T/err"
[ "$(sqlite3 "$T/rest.db" "SELECT count(*) FROM issues WHERE number=$DEEP")" = 0 ] ||
  fail "an issue of the deep page was stored"
stored=$(sqlite3 "$T/rest.db" "SELECT count(*) FROM issues")
[ "$stored" -gt 0 ] || fail "page 1 was not stored before the deep page"
next=$(sqlite3 "$T/rest.db" "SELECT next_url FROM crawl_state")
case "$next" in *page=2*) ;; *) fail "checkpoint is not page 2: '$next'" ;; esac
echo "ok 1: REST page 2 nested 100,000 levels: exit 1, one line, run record failed ($stored issues of page 1 kept)"

# 2. The server comes back sane on the same address: the crawl continues at page 2 and ends
#    with what the clean crawl stored.
kill "$EVIL_PID"
wait "$EVIL_PID" 2>/dev/null || true
start_fake SANE --issues $N --port "$PORT"
# The checkpoint names the repository by id (/repositories/ID, as GitHub's Link URLs do); a
# fresh fake learns the id when the repository is first asked for by name.
curl -s "$SANE/repos/$REPO/issues/1/comments" >/dev/null
crawl "$T/rest.db" rest "$SANE"
[ $rc = 0 ] || fail "resumed crawl: $(cat "$T/err")"
first=$(curl -s "$SANE/_admin/log" | jq -r '[.[] | select(.path | endswith("/issues"))][0].query')
case "$first" in *page=2*) ;; *) fail "the resumed crawl did not start at page 2: $first" ;; esac
same_rows "$T/ref_rest.db" "$T/rest.db" "resumed REST crawl"
[ -z "$(sqlite3 "$T/rest.db" "SELECT last_error FROM crawl_state")" ] || fail "last_error kept"
echo "ok 2: resumed at page 2 against a sane server, same rows as a clean crawl"

# 3. GraphQL: the deep value as a renamed-title item's previousTitle.
start_fake GEVIL --issues $N --deep-issue "$DEEP"
crawl "$T/gql.db" graphql "$GEVIL"
failed_deep "$T/gql.db" GraphQL
expect_grep "^convfail: error: POST $GEVIL/graphql (issues of $REPO.*): the answer holds JSON nested deeper than 64 levels" "$T/err"
[ "$(sqlite3 "$T/gql.db" "SELECT count(*) FROM issues WHERE number=$DEEP")" = 0 ] ||
  fail "the deep issue was stored"
crawl "$T/gql.db" graphql "$CLEAN"
[ $rc = 0 ] || fail "GraphQL crawl after the failure: $(cat "$T/err")"
same_rows "$T/ref_gql.db" "$T/gql.db" "resumed GraphQL crawl"
echo "ok 3: GraphQL previousTitle nested 100,000 levels: exit 1, one line, run record failed; resumed"
echo "PASS: deep JSON from the API"
