#!/usr/bin/env bash
# Issue test 5: the token (from $GITHUB_TOKEN or --token-file) never appears in the database
# file, stdout or stderr: not on success, not in --json, not in errors.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_crawler.sh"
CF="$BUILD/convfail"
TOKEN="ghp_e2eSecretToken$RANDOM$RANDOM"
start_fake URL --issues 120 --fault-rate 0.2 --retry-after 0

check_clean() {  # files...
  local f
  for f in "$@"; do
    [ -e "$f" ] || continue
    if grep -aq "$TOKEN" "$f"; then echo "token found in $f"; exit 1; fi
  done
}

GITHUB_TOKEN=$TOKEN "$CF" --db "$T/a.db" crawl onnx/tensorflow-onnx --api-url "$URL" \
  --backoff-base 0.01 --json >"$T/out1" 2>"$T/err1"
grep -q '"requests"' "$T/out1"
printf '%s\n' "$TOKEN" >"$T/token"
"$CF" --db "$T/b.db" crawl onnx/tensorflow-onnx --api-url "$URL" --token-file "$T/token" \
  >"$T/out2" 2>"$T/err2"
# Errors: a server that does not answer, and a bad repository name.
stop_fakes
set +e
GITHUB_TOKEN=$TOKEN "$CF" --db "$T/a.db" crawl onnx/tensorflow-onnx --api-url "$URL" \
  --max-retries 1 --backoff-base 0.01 >"$T/out3" 2>"$T/err3"
rc3=$?
GITHUB_TOKEN=$TOKEN "$CF" --db "$T/a.db" crawl "bad name" >"$T/out4" 2>"$T/err4"
rc4=$?
set -e
[ $rc3 = 1 ] || { echo "unreachable server: exit $rc3, expected 1"; exit 1; }
[ $rc4 = 2 ] || { echo "bad repository: exit $rc4, expected 2"; exit 1; }
grep -q "error" "$T/err3"
sqlite3 "$T/a.db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
check_clean "$T"/a.db* "$T"/b.db* "$T"/out* "$T"/err*
# The stored error of the failed run is there, and clean (a token makes --api auto use GraphQL).
sqlite3 "$T/a.db" "SELECT last_error FROM crawl_state" | grep -qE "(GET|POST) http://127.0.0.1"
echo "PASS: token absent from database, stdout and stderr"
