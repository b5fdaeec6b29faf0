#!/usr/bin/env bash
# Issue #16: every GraphQL document convfail sends (printed by the binary itself, the single
# source) validates against GitHub's published schema (@octokit/graphql-schema, installed by
# scripts/install-deps.sh into tests/graphql_schema/node_modules), so a query real GitHub would
# reject fails here. A broken document is rejected, showing the validator is live.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
DIR="$SRC/tests/graphql_schema"
command -v node >/dev/null || skip "node is not installed (scripts/install-deps.sh)"
[ -d "$DIR/node_modules/@octokit/graphql-schema" ] ||
  skip "tests/graphql_schema/node_modules missing (run scripts/install-deps.sh)"

"$BUILD/convfail" crawl --graphql-queries >"$T/docs.json"
n=$(jq 'length' "$T/docs.json")
[ "$n" -ge 4 ] || fail "only $n documents printed"
node "$DIR/validate.mjs" <"$T/docs.json" >"$T/out" || { cat "$T/out"; fail "invalid GraphQL"; }
[ "$(grep -c ': valid$' "$T/out")" = "$n" ] || fail "not all $n documents validated: $(cat "$T/out")"

# Negative control: a field GitHub's Issue does not have, and a wrong itemTypes value.
jq '.ConvfailIssues |= sub("closedAt"; "closedWhen") | .ConvfailIssueTimeline |= sub("LABELED_EVENT"; "LABELLED_EVENT")' \
  "$T/docs.json" >"$T/bad.json"
rc=0
node "$DIR/validate.mjs" <"$T/bad.json" >"$T/out" || rc=$?
[ $rc = 1 ] || fail "broken documents accepted"
expect_grep 'ConvfailIssues: INVALID: .*closedWhen' "$T/out"
expect_grep 'ConvfailIssueTimeline: INVALID: .*LABELLED_EVENT' "$T/out"
echo "PASS: $n GraphQL documents valid against GitHub's schema"
