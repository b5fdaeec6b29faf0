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
