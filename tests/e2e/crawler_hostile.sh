#!/usr/bin/env bash
# Issue #14: the crawler against lying servers on loopback. Each case: a non-zero exit with one
# line of error, no token at any other host, nothing of another host stored, nothing
# half-written (the data tables keep their counts), bounded memory (ulimit -v).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_crawler.sh"
CF="$BUILD/convfail"
REPO=onnx/tensorflow-onnx
TOKEN="ghp_hostile$RANDOM$RANDOM"

# Data rows only (a failed run may add its repository and crawl_state rows).
data_counts() {
  local t
  for t in issues comments timeline_events issue_labels http_cache; do
    printf '%s=%s ' "$t" "$(sqlite3 "$1" "SELECT count(*) FROM $t")"
  done
}
# crawl DB ARGS...: runs the REST crawl with the token in the environment; rc in $rc. (With a
# token the default --api auto would use GraphQL; crawler_graphql_hostile.sh covers that.)
crawl() {
  local db=$1
  shift
  rc=0
  GITHUB_TOKEN=$TOKEN "$CF" --db "$db" crawl --api rest "$@" >"$T/out" 2>"$T/err" || rc=$?
}
# failed_once PATTERN: exit 1, stderr is one line matching PATTERN, without the token.
failed_once() {
  [ "$rc" = 1 ] || fail "expected exit 1, got $rc: $(head -c 600 "$T/err")"
  [ "$(wc -l <"$T/err")" = 1 ] || fail "expected a one-line error: $(head -c 600 "$T/err")"
  expect_grep "$1" "$T/err"
  if grep -aq "$TOKEN" "$T/err" "$T/out"; then fail "token printed"; fi
  if grep -aq "bad_alloc\|internal error" "$T/err"; then fail "not a user error"; fi
}
other_log() { curl -s "$1/_admin/log"; }

# A reference database with a clean crawl, to show that failed runs leave its data unchanged.
start_fake CLEAN --issues 60
crawl "$T/ref.db" $REPO --api-url "$CLEAN"
[ $rc = 0 ] || fail "reference crawl: $(cat "$T/err")"
REF_COUNTS=$(data_counts "$T/ref.db")
fresh() { cp "$T/ref.db" "$T/$1.db"; echo "$T/$1.db"; }
unchanged() { [ "$(data_counts "$1")" = "$REF_COUNTS" ] || fail "data changed: $(data_counts "$1")"; }

# 1. Link rel="next" to another origin: refused before any request goes there.
start_fake OTHER --issues 30
start_fake EVIL --issues 250 --link-next-to "$OTHER"
db=$(fresh link)
crawl "$db" other/repo --api-url "$EVIL"
failed_once "not on the API origin"
[ "$(other_log "$OTHER")" = "[]" ] || fail "the other origin was asked: $(other_log "$OTHER")"
unchanged "$db"
[ "$(sqlite3 "$db" "SELECT count(*) FROM issues i JOIN repositories r ON r.id=i.repo_id
  WHERE r.full_name='other/repo'")" = 0 ] || fail "issues of the lying server stored"
echo "ok 1: Link to another origin refused, nothing asked there, nothing stored"

# 2. A redirect to another origin: libcurl sends no token there, and its answer is refused.
start_fake REDIR --issues 50 --redirect-to "$OTHER"
db=$(fresh redirect)
crawl "$db" other/repo --api-url "$REDIR"
failed_once "redirected to .* not on the API origin"
other_log "$OTHER" >"$T/olog"
grep -q '"path"' "$T/olog" || fail "the redirect was not followed at all"
if grep -q "$TOKEN" "$T/olog"; then fail "token sent to the other origin"; fi
grep -q '"authorization":""' "$T/olog" || fail "Authorization header at the other origin: $(cat "$T/olog")"
unchanged "$db"
echo "ok 2: redirect to another origin: no Authorization there, its answer refused"

# 2b. Issues whose comments_url/timeline_url name another origin: refused, nothing asked there.
start_fake OTHER2 --issues 30
start_fake DETAIL --issues 40 --detail-urls-to "$OTHER2"
db=$(fresh detail)
crawl "$db" other/repo --api-url "$DETAIL"
failed_once "comments_url .* is not on the API origin"
[ "$(other_log "$OTHER2")" = "[]" ] || fail "the other origin was asked: $(other_log "$OTHER2")"
unchanged "$db"
echo "ok 2b: comments_url on another origin refused"

# 3. A listing page linking to itself: a cycle, stopped at once, nothing of it stored.
start_fake SELF --issues 250 --self-link listing
db=$(fresh selflist)
crawl "$db" other/repo --api-url "$SELF"
failed_once "pagination cycle"
unchanged "$db"
echo "ok 3: self-linking listing stopped: $(cat "$T/err" | cut -c1-100)..."

# 4. A comment page linking to itself: no 1000 copies, nothing of the listing page stored.
start_fake SELFC --issues 40 --self-link comments
db=$(fresh selfcomments)
crawl "$db" other/repo --api-url "$SELFC"
failed_once "pagination cycle"
unchanged "$db"
echo "ok 4: self-linking comment pages stopped, no duplicates"

# 5. The page cap: more pages than --max-pages is an error that says so.
start_fake MANY --issues 400
crawl "$T/cap.db" $REPO --api-url "$MANY" --max-pages 2 --no-comments --no-timeline
failed_once "more than 2 pages .*--max-pages"
echo "ok 5: page cap"

# 6-7. A 2 GB body and a gzip bomb, under an 800 MB address-space limit: a clean error.
start_fake HUGE --huge-body-mb 2048
start_fake BOMB --gzip-bomb-mb 1024
for kind in HUGE BOMB; do
  db=$(fresh "$kind")
  rc=0
  ( ulimit -v 800000
    GITHUB_TOKEN=$TOKEN exec /usr/bin/time -f '%M' -o "$T/rss" "$CF" --db "$db" crawl other/repo \
      --api rest --api-url "${!kind}" ) >"$T/out" 2>"$T/err" || rc=$?
  failed_once "larger than the cap of 100 MB (--max-response-mb)"
  unchanged "$db"
  echo "ok: $kind body stopped at 100 MB, peak RSS $(tail -1 "$T/rss") KB"
done
# A smaller cap is honoured.
db=$(fresh bomb20)
crawl "$db" other/repo --api-url "$BOMB" --max-response-mb 20
failed_once "larger than the cap of 20 MB"

# 8. ESC/OSC in a server's error message are escaped, never printed raw.
start_fake ESC --escape-error
crawl "$T/esc.db" other/repo --api-url "$ESC"
failed_once 'HTTP 400: Bad request'
if grep -q $'\x1b' "$T/err"; then fail "raw ESC printed"; fi
expect_grep '\\x1b\]0;owned title\\x07' "$T/err"
echo "ok 8: escape sequences shown escaped"

# 9. A token with CR/LF (header injection) is refused from either source; nothing is sent.
start_fake TOK --issues 20
rc=0
GITHUB_TOKEN=$'abc\r\nX-Injected: yes' "$CF" --db "$T/tok.db" crawl $REPO --api-url "$TOK" \
  >"$T/out" 2>"$T/err" || rc=$?
failed_once 'GITHUB_TOKEN is not a single token (contains a control character'
if grep -q "X-Injected\|abc" "$T/err"; then fail "the token was printed"; fi
printf 'abc\x01def\n' >"$T/tokfile"
rc=0
"$CF" --db "$T/tok.db" crawl $REPO --api-url "$TOK" --token-file "$T/tokfile" >"$T/out" 2>"$T/err" || rc=$?
failed_once "does not hold a single token (contains a control character"
[ "$(other_log "$TOK")" = "[]" ] || fail "a request was sent with a bad token"
echo "ok 9: tokens with control characters refused"

# 10. The token leaves the environment: /proc/<pid>/environ of a running crawl lacks it.
start_fake SLOW --issues 30 --latency-ms 1500
GITHUB_TOKEN=$TOKEN "$CF" --db "$T/slow.db" crawl $REPO --api-url "$SLOW" >/dev/null 2>&1 &
pid=$!
sleep 0.8
tr '\0' '\n' <"/proc/$pid/environ" >"$T/environ" || true
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
[ -s "$T/environ" ] || fail "could not read the crawl's environment"
if grep -aq "$TOKEN" "$T/environ"; then fail "token visible in /proc/<pid>/environ"; fi
grep -q '^PATH=' "$T/environ" || fail "environment not read"
echo "ok 10: token absent from /proc/<pid>/environ"

# 11. Negative or out-of-range numbers are refused by the option parser.
for bad in "--max-retries -1" "--backoff-base -0.5" "--rate-floor -3" "--overlap -60" \
  "--concurrency 65" "--max-response-mb 0" "--max-pages 0"; do
  rc=0
  # shellcheck disable=SC2086
  "$CF" --db "$T/opt.db" crawl $REPO --api-url "$CLEAN" $bad >"$T/out" 2>"$T/err" || rc=$?
  [ $rc = 2 ] || fail "$bad: exit $rc"
  expect_grep "${bad%% *}" "$T/err"
done
echo "ok 11: numeric options validated"
echo "PASS: crawler against hostile servers"
