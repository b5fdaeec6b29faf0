#!/usr/bin/env bash
# Issue #16: `crawl --api graphql` stores the same rows as the REST crawl of the same fake
# repository (issues, labels, comments, fix-link timeline events, has_fix_link; only raw JSON,
# storage times and timeline positions differ), for a fraction of the requests and rate-limit
# units; an unchanged refresh is one request; `auto` picks GraphQL only with a token.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_crawler.sh"
CF="$BUILD/convfail"
REPO=onnx/tensorflow-onnx
TOKEN="ghp_graphql$RANDOM"

start_fake URL --issues 600
# Anonymous `auto` stays on REST: not one request to /graphql.
"$CF" --db "$T/rest.db" crawl $REPO --api-url "$URL" --state all --json >"$T/rest.json"
[ "$(jq -r .api "$T/rest.json")" = rest ] || fail "anonymous auto did not use REST"
[ "$(graphql_requests "$URL")" = 0 ] || fail "an anonymous crawl sent a GraphQL request"
# --api graphql without a token is a usage error that sends nothing.
expect_exit 2 "$CF" --db "$T/x.db" crawl $REPO --api graphql --api-url "$URL"
expect_grep "needs a token" "$T/err"
[ "$(graphql_requests "$URL")" = 0 ] || fail "a tokenless --api graphql sent a request"

# With a token, auto is GraphQL.
GITHUB_TOKEN=$TOKEN "$CF" --db "$T/gql.db" crawl $REPO --api-url "$URL" --state all --json \
  >"$T/gql.json"
[ "$(jq -r .api "$T/gql.json")" = graphql ] || fail "auto with a token did not use GraphQL"
same_rows "$T/rest.db" "$T/gql.db" "REST vs GraphQL first crawl"
issues=$(sqlite3 "$T/gql.db" "SELECT count(*) FROM issues")
fixes=$(sqlite3 "$T/gql.db" "SELECT count(*) FROM issues WHERE has_fix_link")
long=$(sqlite3 "$T/gql.db" "SELECT count(*) FROM comments GROUP BY issue_id HAVING count(*) > 100" | wc -l)
[ "$issues" -gt 400 ] && [ "$fixes" -gt 50 ] && [ "$long" -ge 1 ] ||
  fail "too little compared: $issues issues, $fixes fix links, $long issues over 100 comments"
rest_req=$(jq .requests "$T/rest.json")
gql_req=$(jq .requests "$T/gql.json")
points=$(jq .points_used "$T/gql.json")
[ "$points" -gt 0 ] || fail "no GraphQL points counted"
[ $((gql_req * 20)) -le "$rest_req" ] || fail "GraphQL used $gql_req requests, REST $rest_req"
[ $((points * 20)) -le "$rest_req" ] || fail "GraphQL used $points points, REST $rest_req requests"
# Every GraphQL request carried the token, and only the API origin got requests.
curl -s "$URL/_admin/log" | jq -r '.[] | select(.path == "/graphql") | .authorization' |
  sort -u >"$T/auth"
[ "$(cat "$T/auth")" = "Bearer $TOKEN" ] || fail "unexpected Authorization on /graphql"
echo "ok: same rows; REST $rest_req requests, GraphQL $gql_req requests / $points points"

# An unchanged refresh is one request.
GITHUB_TOKEN=$TOKEN "$CF" --db "$T/gql.db" crawl $REPO --api-url "$URL" --state all --json \
  >"$T/again.json"
[ "$(jq .requests "$T/again.json")" = 1 ] || fail "unchanged refresh: $(jq .requests "$T/again.json") requests"
[ "$(jq .new_issues "$T/again.json")" = 0 ] && [ "$(jq .updated_issues "$T/again.json")" = 0 ] ||
  fail "unchanged refresh stored something"

# Changed issues (one with over 100 comments, one with a long timeline) reach both alike.
curl -s -X POST -d '' "$URL/_admin/change?issues=2,97,89,178" >/dev/null
GITHUB_TOKEN=$TOKEN "$CF" --db "$T/gql.db" crawl $REPO --api-url "$URL" --state all --json \
  >"$T/changed.json"
"$CF" --db "$T/rest.db" crawl $REPO --api-url "$URL" --state all >/dev/null
[ "$(jq .updated_issues "$T/changed.json")" = 3 ] || fail "expected 3 updated issues (178 is a pull request)"
same_rows "$T/rest.db" "$T/gql.db" "REST vs GraphQL after changes"
# The APIs share the crawl state: a database crawled by REST refreshes through GraphQL in one
# request, and back.
GITHUB_TOKEN=$TOKEN "$CF" --db "$T/rest.db" crawl $REPO --api-url "$URL" --state all --json \
  >"$T/mixed.json"
[ "$(jq .requests "$T/mixed.json")" = 1 ] || fail "GraphQL refresh of a REST database: $(jq .requests "$T/mixed.json") requests"
"$CF" --db "$T/gql.db" crawl $REPO --api-url "$URL" --state all --json >"$T/mixed2.json"
[ "$(jq .new_issues "$T/mixed2.json")" = 0 ] && [ "$(jq .updated_issues "$T/mixed2.json")" = 0 ] ||
  fail "REST refresh of a GraphQL database stored something"
same_rows "$T/rest.db" "$T/gql.db" "after crossing APIs"
echo "ok: incremental refresh"

# Label filters: REST's labels= (all of them) and the exclusions give the same rows.
"$CF" --db "$T/rl.db" crawl $REPO --api rest --api-url "$URL" --label "module: onnx" --label bug \
  --exclude-label question >/dev/null
GITHUB_TOKEN=$TOKEN "$CF" --db "$T/gl.db" crawl $REPO --api graphql --api-url "$URL" \
  --label "module: onnx" --label bug --exclude-label question >/dev/null
same_rows "$T/rl.db" "$T/gl.db" "label filters"

# GitHub's timeout answer makes the page smaller: the same rows, with a notice.
start_fake SLOWQ --issues 600 --graphql-timeout-above 30
GITHUB_TOKEN=$TOKEN "$CF" --db "$T/shrink.db" crawl $REPO --api-url "$SLOWQ" --state all \
  >"$T/out" 2>"$T/err"
expect_grep "timed out on 100 issues per request; asking for 50" "$T/err"
expect_grep "asking for 25" "$T/err"
curl -s -X POST -d '' "$SLOWQ/_admin/change?issues=2,97,89,178" >/dev/null
GITHUB_TOKEN=$TOKEN "$CF" --db "$T/shrink.db" crawl $REPO --api-url "$SLOWQ" --state all >/dev/null 2>&1
same_rows "$T/rest.db" "$T/shrink.db" "after shrinking the page"
echo "ok: timeouts shrink the page"

# GitHub Enterprise Server: --api-url https://HOST/api/v3 -> GraphQL at /api/graphql.
start_fake GHES --issues 50
GITHUB_TOKEN=$TOKEN "$CF" --db "$T/ghes.db" crawl $REPO --api-url "$GHES/api/v3" --json >"$T/ghes.json"
[ "$(jq -r .api "$T/ghes.json")" = graphql ] || fail "GHES crawl not GraphQL"
curl -s "$GHES/_admin/log" | jq -r '.[].path' | sort -u >"$T/paths"
[ "$(cat "$T/paths")" = /api/graphql ] || fail "GHES requests went to $(cat "$T/paths")"
[ "$(sqlite3 "$T/ghes.db" "SELECT count(*) FROM issues")" -gt 20 ] || fail "GHES crawl stored too little"
# A renamed repository: GraphQL answers under the new name; stored there, as REST does.
start_fake RENAMED --issues 80 --rename old/name=$REPO
GITHUB_TOKEN=$TOKEN "$CF" --db "$T/ren.db" crawl old/name --api-url "$RENAMED" >"$T/out" 2>"$T/err"
expect_grep "repository old/name was renamed to $REPO" "$T/err"
"$CF" --db "$T/ren_rest.db" crawl old/name --api rest --api-url "$RENAMED" >/dev/null 2>&1
[ "$(sqlite3 "$T/ren.db" "SELECT full_name FROM repositories r JOIN issues i ON i.repo_id=r.id LIMIT 1")" = $REPO ] ||
  fail "renamed repository not stored under its new name"
same_rows "$T/ren_rest.db" "$T/ren.db" "renamed repository"
echo "PASS: GraphQL crawl stores the REST crawl's rows"
