# Shared by the crawler e2e scripts (sourced after lib.sh): start build/fake-github, stopped at
# exit through lib.sh's on_exit, and dump a database.
# start_fake OUTVAR [fake-github options...]: starts the server, sets OUTVAR to its URL.
FAKE_PIDS=()
start_fake() {
  local var=$1; shift
  local out; out=$(mktemp)
  "$BUILD/fake-github" "$@" >"$out" 2>&1 &
  FAKE_PIDS+=($!)
  local i
  for i in $(seq 1 100); do
    if grep -q '^http://127.0.0.1:' "$out"; then break; fi
    sleep 0.05
  done
  local url; url=$(grep -m1 '^http://127.0.0.1:' "$out" || true)
  rm -f "$out"
  [ -n "$url" ] || { echo "fake-github did not start"; exit 1; }
  printf -v "$var" '%s' "$url"
}
stop_fakes() {
  local p
  for p in "${FAKE_PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
}
on_exit stop_fakes

# Canonical content of what a crawl stores (no storage timestamps).
dump_db() {
  sqlite3 "$1" "
    SELECT r.full_name, i.number, i.title, i.body, i.state, i.updated_at, i.closed_at,
           i.comment_count, i.has_fix_link, i.is_pull_request, i.raw_json
      FROM issues i JOIN repositories r ON r.id=i.repo_id ORDER BY 1, 2;
    SELECT i.number, l.name FROM issue_labels l JOIN issues i ON i.id=l.issue_id ORDER BY 1, 2;
    SELECT i.number, c.position, c.github_id, c.body, c.raw_json
      FROM comments c JOIN issues i ON i.id=c.issue_id ORDER BY 1, 2;
    SELECT i.number, e.position, e.event, e.commit_id, e.source_repo, e.raw_json
      FROM timeline_events e JOIN issues i ON i.id=e.issue_id ORDER BY 1, 2;"
}

# The rows a crawl stores, column by column, without raw JSON, storage times or row ids: what a
# REST and a GraphQL crawl of one repository must agree on. Timeline positions are left out and
# the pull-request-only items the fake serves on issue timelines (committed, reviewed,
# line-commented, merged: not in GitHub's IssueTimelineItems) are skipped; the order is kept.
dump_rows() {
  sqlite3 "$1" "
    SELECT r.full_name, i.number, i.github_id, i.title, i.body, i.state, i.author,
           i.author_association, i.created_at, i.updated_at, i.closed_at, i.html_url,
           i.is_pull_request, i.comment_count, i.has_fix_link, i.body_truncated
      FROM issues i JOIN repositories r ON r.id=i.repo_id ORDER BY 1, 2;
    SELECT i.number, l.name FROM issue_labels l JOIN issues i ON i.id=l.issue_id ORDER BY 1, 2;
    SELECT i.number, c.position, c.github_id, c.author, c.author_association, c.created_at,
           c.updated_at, c.body, c.body_truncated
      FROM comments c JOIN issues i ON i.id=c.issue_id ORDER BY 1, 2;
    SELECT i.number, e.event, e.actor, e.created_at, e.commit_id, e.source_repo,
           e.source_number, e.source_is_pull_request, e.source_state
      FROM timeline_events e JOIN issues i ON i.id=e.issue_id
     WHERE e.event NOT IN ('committed', 'reviewed', 'line-commented', 'merged')
     ORDER BY i.number, e.position;"
}
# same_rows A B WHAT: fails unless dump_rows of the two databases are identical.
same_rows() {
  if ! diff <(dump_rows "$1") <(dump_rows "$2") >"$T/rows.diff"; then
    echo "FAIL: $3: the databases differ:" >&2
    head -20 "$T/rows.diff" >&2
    exit 1
  fi
}
# graphql_requests URL: how many POST /graphql the fake at URL has received.
graphql_requests() {
  curl -s "$1/_admin/log" | jq '[.[] | select(.path | endswith("/graphql"))] | length'
}
