#!/usr/bin/env bash
# An offline crawl fails fast (issue 50 item 7): a name that does not resolve and a refused
# loopback port, before any answer, stop at once with one line and a non-zero exit, instead of
# six retries with back-off (0.5-1 s, then doubling: about a minute).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cf init >/dev/null

# A loopback port nothing listens on: bound, then closed, by python.
refused=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')

for url in http://nonexistent.invalid "http://127.0.0.1:$refused"; do
  start=$(date +%s%N)
  # --backoff-base 1 is the default spelled out: the old behaviour waited 0.5+1+2+4+8+16 s and more.
  expect_exit 1 cf crawl acme/conv --api-url "$url" --backoff-base 1
  ms=$((($(date +%s%N) - start) / 1000000))
  [ "$ms" -lt 2000 ] || fail "$url: took $ms ms to fail (want under 2 s)"
  [ "$(wc -l <"$T/err")" = 1 ] || fail "$url: not one line: $(cat "$T/err")"
  expect_grep "not retried" "$T/err"
  grep -q "retrying" "$T/err" && fail "$url: retried: $(cat "$T/err")"
  [ ! -s "$T/out" ] || fail "$url: printed on stdout: $(cat "$T/out")"
  echo "$url: $ms ms: $(cat "$T/err")"
done
grep -qi "resolve" <(cf crawl acme/conv --api-url http://nonexistent.invalid 2>&1 || true) ||
  fail "the DNS failure is not named"

# A server that answered once and then failed is retried with back-off: the unit test
# "github api: a host that never answered fails at once, one that answered is retried".
echo ok
