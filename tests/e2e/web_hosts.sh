#!/usr/bin/env bash
# `convfail serve` on a shared machine: only exact loopback Host names and literals (and
# --allow-host names) are answered, so a page on a DNS-rebinding domain reads and writes nothing;
# every state-changing endpoint (labels, login, logout) refuses cross-site requests; numeric
# parameters out of range are a 400 naming the parameter; a second serve on a used port exits
# with one line and the first keeps every post.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_web.sh"
command -v curl >/dev/null && command -v python3 >/dev/null && command -v sqlite3 >/dev/null ||
  skip "curl/python3/sqlite3 missing"

python3 - "$T" <<'PY'
import json, sys
with open(f"{sys.argv[1]}/issues.jsonl", "w") as f:
    for n in (1, 2):
        f.write(json.dumps({"repo": "acme/conv", "number": n, "title": f"export crash {n}",
                            "body": "Segmentation fault in export", "state": "open",
                            "created_at": "2022-01-01T00:00:00Z"}) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null
cf classify >/dev/null
start_server --allow-host workbench.lab.example
port=${URL##*:}
labels() { sqlite3 "$DB" "SELECT count(*) FROM manual_labels"; }
A=(-H 'Content-Type: application/json' -H 'X-Convfail-Annotator: ann')
post='{"repo":"acme/conv","number":1,"dimension":"symptom","value":"crash"}'

# --- Host: exact loopback names and literals, with an optional port -------------------------
for h in "127.0.0.1" "127.0.0.1:$port" "127.1.2.3:80" "localhost" "LOCALHOST:$port" "[::1]" \
  "[::1]:$port" "workbench.lab.example" "Workbench.Lab.Example:$port"; do
  expect_status 200 GET /api/session -H "Host: $h"
done
for h in "127.attacker.example" "127.0.0.1.evil.example" "127.0.0.1.evil.example:$port" \
  "127.0.0.1:$port.evil.example" "localhost.evil.example" "evil-localhost" "127.1" "0177.0.0.1" \
  "0x7f.0.0.1" "2130706433" "127.0.0.1:" "127.0.0.1:80:80" "127.0.0.1:http" "[::1].evil.example" \
  "[::ffff:127.0.0.1]" "::1" "[::1" "lab.example" "sub.workbench.lab.example" "rebound.example"; do
  expect_status 403 GET /api/session -H "Host: $h"
  expect_status 403 POST /api/labels "${A[@]}" -H "Host: $h" -H "Origin: http://$h" -d "$post"
done
[ "$(labels)" = 0 ] || fail "a refused Host wrote a label"

# --- State-changing endpoints refuse cross-site requests ------------------------------------
for ep in /api/logout /api/login /api/labels; do
  expect_status 403 POST "$ep" -H 'Content-Type: text/plain' -H 'Origin: http://evil.example' \
    -H 'Cookie: convfail_annotator=ann' -d '{"annotator":"mallory"}'
  expect_status 403 POST "$ep" -H 'Content-Type: application/json' -H 'Sec-Fetch-Site: cross-site' \
    -H 'Cookie: convfail_annotator=ann' -d '{"annotator":"mallory"}'
  # A form post (no Origin from old browsers) is not JSON: refused too.
  expect_status 415 POST "$ep" -H 'Content-Type: text/plain' -H 'Cookie: convfail_annotator=ann' \
    -d '{"annotator":"mallory"}'
done
grep -qi '^set-cookie' "$T/headers" && fail "a refused logout still set a cookie"
expect_status 200 POST /api/logout -H 'Content-Type: application/json' -H "Origin: $URL" -d '{}'
grep -qi '^set-cookie: convfail_annotator=;' "$T/headers" || fail "same-origin logout kept the cookie"

# --- Numeric parameters: 400 naming the parameter, never 500 --------------------------------
for q in 'source=classifier:99999999999999999999' 'source=classifier:-1' 'source=classifier:0x10' \
  'compare=classifier:99999999999999999999' 'page=99999999999999999999' 'per_page=0' \
  'min_confidence=1e999' 'max_confidence=nan'; do
  expect_status 400 GET "/api/issues?$q"
  json_check "d['error'].startswith('${q%%=*}:')"
done
expect_status 400 GET '/api/report?source=classifier:99999999999999999999'
json_check "d['error'].startswith('source:')"
expect_status 400 GET '/api/agreement?a=classifier:99999999999999999999&b=ann'
json_check "d['error'].startswith('a:')"
expect_status 400 GET '/api/queue?size=99999999999999999999' -H 'X-Convfail-Annotator: ann'
json_check "d['error'].startswith('size:')"
expect_status 400 GET '/api/labels?repo=acme/conv&number=99999999999999999999'

# --- A second serve on the same port: one line, non-zero exit; the first keeps its posts ----
other=$T/other.db
"$BUILD/convfail" --db "$other" --data-dir "$SRC/data" init >/dev/null
rc=0
timeout 20 "$BUILD/convfail" --db "$other" --data-dir "$SRC/data" serve --host 127.0.0.1 \
  --port "$port" >"$T/second.out" 2>"$T/second.err" || rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "second serve on port $port: exit $rc"
[ "$(wc -l <"$T/second.err")" = 1 ] || fail "second serve: not one line: $(cat "$T/second.err")"
expect_grep "port $port is in use" "$T/second.err"
grep -q listening "$T/second.out" && fail "second serve said it was listening"
written=0
for n in 1 2 1 2 1 2; do
  expect_status 201 POST /api/labels "${A[@]}" -d "{\"repo\":\"acme/conv\",\"number\":$n,\"kind\":\"skip\",\"dimension\":\"symptom\"}"
  written=$((written + $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["written"])' "$T/body")))
done
[ "$written" = 6 ] || fail "the first server wrote $written of 6 posts"
[ "$(labels)" = 6 ] || fail "the first server lost posts: $(labels) rows, expected 6"
[ "$(sqlite3 "$other" 'SELECT count(*) FROM manual_labels')" = 0 ] || fail "posts reached the other db"
echo "ok"
