#!/usr/bin/env bash
# artifacts fetch validates its numeric options with ranges (exit 2, the option named, the
# database untouched), documents the exit status and the address refusal in --help, and exits
# 0 when every attempted artifact was fetched.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cf init >/dev/null 2>&1 || cf list >/dev/null
before=$(counts)
for bad in "--max-bytes 0" "--max-bytes -1" "--max-bytes 1099511627777" "--max-redirects -1" \
           "--max-redirects 51" "--timeout 0" "--timeout 86401" "--timeout x" \
           "--connect-timeout 0" "--connect-timeout 3601" "--retries -1" "--retries 11" \
           "--max-unpacked-bytes 0" "--max-files 0" "--max-files 16777217"; do
  # shellcheck disable=SC2086
  expect_exit 2 cf artifacts fetch $bad
  expect_grep "${bad%% *}" "$T/err"
  [ "$(wc -l <"$T/err")" -le 2 ] || fail "$bad: $(cat "$T/err")"
done
[ "$(counts)" = "$before" ] || fail "the database changed"

cf artifacts fetch --help >"$T/help"
expect_grep 'Exit status: 0 when every attempted artifact was fetched' "$T/help"
expect_grep 'allow-private-hosts' "$T/help"
expect_grep 'checked after DNS' "$T/help"
expect_grep 'connect-timeout' "$T/help"

# Nothing due: exit 0 and zero counts.
cf artifacts fetch --json >"$T/out"
expect_grep '"attempted":0' "$T/out"
echo ok
