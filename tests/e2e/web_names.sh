#!/usr/bin/env bash
# One annotator-name rule (labeling's check_annotator_name) for the terminal and the web (curl on
# 127.0.0.1): "Ann Lee", who labels in the terminal, logs in on the web too (the cookie carries
# the name percent-encoded) and sees her terminal label beside her web one; a name the terminal
# refuses (':', a control character, a source keyword, over 100 bytes) the web refuses too.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_web.sh"
command -v curl >/dev/null && command -v python3 >/dev/null || skip "curl/python3 missing"

printf '%s\n' '{"repo": "acme/conv", "number": 1, "title": "export crashes", "body": "Segmentation fault", "state": "open", "created_at": "2021-03-01T00:00:00Z"}' >"$T/issues.jsonl"
cf import "$T/issues.jsonl" >/dev/null
cf label acme/conv#1 --annotator "Ann Lee" --symptom crash >/dev/null
start_server
J=(-H 'Content-Type: application/json')

expect_status 200 POST /api/login "${J[@]}" -d '{"annotator":"Ann Lee"}'
grep -qi '^set-cookie: convfail_annotator=Ann%20Lee; Path=/; HttpOnly; SameSite=Strict' "$T/headers" ||
  fail "the login cookie does not carry the encoded name: $(cat "$T/headers")"
ANN=(-H 'Cookie: convfail_annotator=Ann%20Lee')
expect_status 200 GET /api/session "${ANN[@]}"
json_check 'd["annotator"] == "Ann Lee"'
expect_status 201 POST /api/labels "${ANN[@]}" "${J[@]}" -d '{"repo":"acme/conv","number":1,"dimension":"stage","value":"export"}'
json_check 'd["annotator"] == "Ann Lee" and d["written"] == 1'
expect_status 200 GET /api/issues/acme/conv/1 "${ANN[@]}"
json_check 'd["current"]["Ann Lee"]["symptom"]["value"] == "crash" and d["current"]["Ann Lee"]["stage"]["value"] == "export"'

# What the terminal refuses, the web refuses.
long=$(python3 -c 'print("a" * 101)')
for bad in 'a:b' 'consensus' "$long"; do
  expect_exit 2 cf label acme/conv#1 --annotator "$bad" --symptom crash
  expect_status 400 POST /api/login "${J[@]}" -d "{\"annotator\":\"$bad\"}"
done
expect_status 400 POST /api/login "${J[@]}" -d '{"annotator":"a\tb"}'
expect_status 400 GET /api/session -H 'Cookie: convfail_annotator=a%09b'
stop_server
echo "ok"
