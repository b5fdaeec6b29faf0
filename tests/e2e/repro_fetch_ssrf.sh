#!/usr/bin/env bash
# artifacts fetch refuses non-public addresses after DNS resolution: a live loopback server (by
# 127.0.0.1, by the name localhost, by [::1]), the cloud metadata address 169.254.169.254 and a
# private 10.x address are refused before any connection (the server logs no request; the whole
# batch takes well under a connect timeout), each with a one-line error naming the URL; exit 1.
# --allow-private-hosts lets the loopback ones through on --retry-failed.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
server_pid=
on_exit '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null'

mkdir -p "$T/www"
printf 'not really onnx' >"$T/www/m.onnx"
port=$((20000 + RANDOM % 20000))
python3 -m http.server --bind 127.0.0.1 --directory "$T/www" "$port" >"$T/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
: >"$T/server.log"  # forget the readiness probes

python3 - "$T/issues.jsonl" "$port" <<'PY'
import json, sys
p = sys.argv[2]
links = ["http://127.0.0.1:%s/m.onnx" % p, "http://localhost:%s/m.onnx" % p,
         "http://[::1]:%s/m.onnx" % p, "http://169.254.169.254/latest/m.onnx",
         "http://10.0.0.1:22/m.onnx"]
open(sys.argv[1], "w").write(json.dumps({"repo": "acme/conv", "number": 1, "title": "t",
                                         "body": "\n".join(links), "comments": []}) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null
cf artifacts scan >/dev/null
[ "$(sqlite3 "$DB" "SELECT count(*) FROM artifacts WHERE kind='model'")" = 5 ] || fail "scan"

start=$(date +%s%N)
expect_exit 1 cf artifacts fetch --retries 2 --connect-timeout 30 --json
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "5 refused fetches took ${ms} ms"
[ "$ms" -lt 5000 ] || fail "refusal took ${ms} ms: a connection was attempted"
expect_grep '"attempted":5' "$T/out"
expect_grep '"ok":0' "$T/out"
expect_grep '"failed":5' "$T/out"
for url in "http://127.0.0.1:$port/m.onnx" "http://localhost:$port/m.onnx" \
           "http://\[::1\]:$port/m.onnx" "http://169.254.169.254/latest/m.onnx" \
           "http://10.0.0.1:22/m.onnx"; do
  expect_grep "^artifact [0-9]* $url: private address refused (use --allow-private-hosts): " "$T/err"
done
expect_grep '169.254.169.254 (link-local)' "$T/err"
expect_grep '10.0.0.1 (private)' "$T/err"
expect_grep '::1 (loopback)' "$T/err"
expect_grep '^convfail: error: 5 of 5 artifacts failed' "$T/err"
[ "$(grep -c . "$T/err")" = 6 ] || fail "one line per artifact and one summary line: $(cat "$T/err")"
[ ! -s "$T/server.log" ] || fail "the server was contacted: $(cat "$T/server.log")"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM artifacts WHERE fetch_status LIKE 'error:private address refused%'")" = 5 ]
store=$T/convfail-data/artifacts
[ ! -d "$store" ] || [ -z "$(ls -A "$store")" ] || fail "something was written: $(ls -A "$store")"

# With the flag, the loopback ones are fetched (one blob shared by the three URLs: same bytes).
expect_exit 1 cf artifacts fetch --retry-failed --allow-private-hosts --retries 0 \
  --connect-timeout 2 --timeout 5 --json
python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# 127.0.0.1, localhost and [::1] (when this host has IPv6 loopback the server, bound to
# 127.0.0.1, refuses it) answer or fail by connection, never by the address check.
assert d["ok"] >= 2 and d["attempted"] == 5, d
assert all("private address" not in f["error"] for f in d["failures"]), d
PY
[ "$(ls "$store" | grep -cv '\.')" = 1 ] || fail "one blob expected: $(ls "$store")"
echo ok
