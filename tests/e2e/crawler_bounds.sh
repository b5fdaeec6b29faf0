#!/usr/bin/env bash
# Issue #32: the crawler's own bounds against a hostile server. A listing that repeats its first
# page under fresh page numbers (REST) or cursors (GraphQL) stops by itself with one clear line,
# keeping what was stored; a page of 95 MB of empty objects (under the 100 MB cap) is refused
# while it is parsed, with peak memory under 400 MB on both APIs.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_crawler.sh"
CF="$BUILD/convfail"
REPO=onnx/tensorflow-onnx
TOKEN="ghp_bounds$RANDOM$RANDOM"

# run DB URL API: a crawl under a time limit (the old crawler never ended); rc in $rc.
run() {
  rc=0
  GITHUB_TOKEN=$TOKEN timeout 120 /usr/bin/time -f '%M' -o "$T/rss" \
    "$CF" --db "$1" crawl $REPO --api-url "$2" --api "$3" >"$T/out" 2>"$T/err" || rc=$?
}
one_line() {  # PATTERN: exit 1 with one line on stderr matching PATTERN
  [ "$rc" = 1 ] || fail "expected exit 1, got $rc: $(head -c 600 "$T/err")"
  [ "$(wc -l <"$T/err")" = 1 ] || fail "expected one line: $(head -c 600 "$T/err")"
  expect_grep "$1" "$T/err"
}

for api in rest graphql; do
  start_fake ENDLESS --issues 300 --endless-pages
  run "$T/endless_$api.db" "$ENDLESS" $api
  one_line "pages in a row brought no issue not seen in this walk.*endless pagination.*are kept"
  stored=$(sqlite3 "$T/endless_$api.db" "SELECT count(*) FROM issues")
  [ "$stored" -gt 0 ] || fail "$api: the first page was not kept"
  listing=$(curl -s "$ENDLESS/_admin/log" |
    jq '[.[] | select((.path | endswith("/graphql")) or (.path | endswith("/issues")))] | length')
  [ "$listing" -le 10 ] || fail "$api: $listing requests"  # GraphQL: with follow-up pages
  echo "ok: endless pagination ($api) stopped after $listing listing requests (GraphQL: all POSTs), $stored issues kept"
done

for api in rest graphql; do
  start_fake EMPTY --empty-objects-mb 95
  run "$T/empty_$api.db" "$EMPTY" $api
  one_line "refusing it"
  rss=$(tail -1 "$T/rss")
  [ "$rss" -lt 400000 ] || fail "$api: peak RSS ${rss} KB on 95 MB of empty objects"
  [ "$(sqlite3 "$T/empty_$api.db" "SELECT count(*) FROM issues")" = 0 ] || fail "something stored"
  echo "ok: 95 MB of empty objects ($api) refused at a peak of $((rss / 1024)) MB"
done
echo "PASS: crawler bounds"
