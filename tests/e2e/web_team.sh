#!/usr/bin/env bash
# `convfail serve` for a team (curl on 127.0.0.1): alice and bob (annotators) and carol
# (adjudicator) sign in with their own tokens from `convfail team add`. Neither annotator can act
# as or read the other while blind, on any route: the X-Convfail-Annotator header, the login
# cookie and /api/login cannot name another person; undo of another's row, adjudication,
# ?blind=0, /api/labels?annotator=, /api/report?source=/compare=, /api/agreement, /api/issues
# label filters, the adjudicate and disagreement queues are refused; carol adjudicates and sees
# both. Tokens are stored hashed, a revoked token is refused at once, a shared --token-file is
# refused while a team exists.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_web.sh"
command -v curl >/dev/null && command -v python3 >/dev/null && command -v sqlite3 >/dev/null ||
  skip "curl/python3/sqlite3 missing"

python3 - "$T" <<'PY'
import json, sys
rows = [
  {"repo": "acme/conv", "number": 1, "title": "export crashes with a segmentation fault",
   "body": "torch.onnx.export crashes: Segmentation fault (core dumped) at opset 17",
   "state": "closed", "created_at": "2021-03-01T00:00:00Z"},
  {"repo": "acme/conv", "number": 2, "title": "wrong output after conversion",
   "body": "the converted model gives wrong results, max abs diff 0.5", "state": "open",
   "created_at": "2022-05-01T00:00:00Z"},
]
with open(f"{sys.argv[1]}/issues.jsonl", "w") as f:
    for r in rows: f.write(json.dumps(r) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null
cf classify >/dev/null

token_of() { cf team add "$1" --role "$2" | tail -1; }
ALICE=$(token_of alice annotator)
BOB=$(token_of bob annotator)
CAROL=$(token_of carol adjudicator)
DAVE=$(token_of dave admin)
[[ $ALICE =~ ^[0-9a-f]{64}$ ]] || fail "team add printed no token: $ALICE"
[ "$ALICE" != "$BOB" ] || fail "two members got one token"
# Stored hashed only; listed without tokens.
[ "$(sqlite3 "$DB" "SELECT count(*) FROM team_members WHERE token_sha256 = '$ALICE'")" = 0 ] ||
  fail "a token is stored in clear"
cf team list >"$T/list"
expect_grep 'alice  annotator' "$T/list"
expect_grep 'carol  adjudicator' "$T/list"
grep -q "$ALICE" "$T/list" && fail "team list shows a token"
expect_exit 1 cf team add alice --role annotator
expect_grep 'revoke their token first' "$T/err"
expect_exit 2 cf team add eve --role root

# A shared token is refused while the database has a team (each person has their own).
echo "0123456789abcdef0123456789abcdef" >"$T/shared"
expect_exit 1 cf serve --port 0 --token-file "$T/shared"
expect_grep 'this database has a team' "$T/err"

start_server
expect_grep 'team: each member opens' "$SERVER_OUT"
J=(-H 'Content-Type: application/json')
A=(-H "Authorization: Bearer $ALICE")
B=(-H "Authorization: Bearer $BOB")
C=(-H "Authorization: Bearer $CAROL")
D=(-H "Authorization: Bearer $DAVE")

# --- Sign-in: only a member's own token ----------------------------------------------------
expect_status 403 GET /api/session
expect_status 403 GET /api/session -H 'X-Convfail-Annotator: alice'
# alice's token with its last digit changed (to 1 when it is 0: "${ALICE%?}0" was her own token
# one time in 16).
last=${ALICE: -1}
expect_status 403 GET /api/session -H "Authorization: Bearer ${ALICE%?}$([ "$last" = 0 ] && echo 1 || echo 0)"
expect_status 403 GET /api/session -H "Authorization: Bearer $(sqlite3 "$DB" "SELECT token_sha256 FROM team_members WHERE name='alice'")"
expect_status 303 GET "/?token=$ALICE"
grep -qi "^set-cookie: convfail_token=$ALICE; Path=/; HttpOnly; SameSite=Strict" "$T/headers" ||
  fail "the link did not set the token cookie"
expect_status 200 GET /api/session -H "Cookie: convfail_token=$ALICE"
json_check 'd["annotator"] == "alice" and d["team"] is True and d["role"] == "annotator"'

# --- alice labels; bob cannot act as her ------------------------------------------------------
expect_status 201 POST /api/labels "${A[@]}" "${J[@]}" -d '{"repo":"acme/conv","number":1,"dimension":"cause","value":"incompatibility"}'
ALICE_ROW=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["row_ids"][0])' "$T/body")
expect_status 201 POST /api/labels "${B[@]}" "${J[@]}" -d '{"repo":"acme/conv","number":1,"dimension":"cause","value":"typo"}'
BOB_ROW=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["row_ids"][0])' "$T/body")
# The header names another person: refused, nothing written.
before=$(sqlite3 "$DB" "SELECT count(*) FROM manual_labels")
expect_status 403 POST /api/labels "${B[@]}" -H 'X-Convfail-Annotator: alice' "${J[@]}" -d '{"repo":"acme/conv","number":1,"dimension":"stage","value":"export"}'
# The login cookie names nobody: bob's token writes as bob.
expect_status 201 POST /api/labels "${B[@]}" -H 'Cookie: convfail_annotator=alice' "${J[@]}" -d '{"repo":"acme/conv","number":2,"dimension":"stage","value":"export"}'
json_check 'd["annotator"] == "bob"'
expect_status 403 POST /api/login "${B[@]}" "${J[@]}" -d '{"annotator":"alice"}'
expect_status 200 POST /api/login "${B[@]}" "${J[@]}" -d '{"annotator":"bob"}'
grep -qi '^set-cookie: convfail_annotator' "$T/headers" && fail "team login set a name cookie"
# Undo of alice's row by bob: not his row.
expect_status 400 POST /api/labels "${B[@]}" "${J[@]}" -d "{\"repo\":\"acme/conv\",\"number\":1,\"kind\":\"undo\",\"row_id\":$ALICE_ROW}"
# Adjudication needs the adjudicator role.
expect_status 403 POST /api/labels "${B[@]}" "${J[@]}" -d '{"repo":"acme/conv","number":1,"kind":"adjudication","dimension":"cause","value":"typo"}'
[ "$(sqlite3 "$DB" "SELECT count(*) FROM manual_labels WHERE annotator = 'alice'")" = 1 ] ||
  fail "bob wrote or undid as alice"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM manual_labels WHERE annotator = 'bob'")" = 2 ] ||
  fail "bob's rows are not his two labels"

# --- Neither reads the other while blind --------------------------------------------------------
for pair in "bob:alice:$BOB" "alice:bob:$ALICE"; do
  me=${pair%%:*} rest=${pair#*:}
  other=${rest%%:*} tok=${rest#*:}
  H=(-H "Authorization: Bearer $tok")
  expect_status 200 GET /api/issues/acme/conv/1 "${H[@]}"
  json_check "d['blind'] is True and set(d['current']) == {'$me'} and {r['annotator'] for r in d['history']} == {'$me'}"
  expect_status 403 GET '/api/issues/acme/conv/1?blind=0' "${H[@]}"
  expect_status 403 GET "/api/labels?repo=acme/conv&number=1&annotator=$other" "${H[@]}"
  expect_status 200 GET "/api/labels?repo=acme/conv&number=1" "${H[@]}"
  json_check "{r['annotator'] for r in d} == {'$me'}"
  for src in "$other" consensus hybrid "hybrid:$other"; do
    expect_status 403 GET "/api/report?source=$src" "${H[@]}"
    expect_status 403 GET "/api/report?compare=$src" "${H[@]}"
    expect_status 403 GET "/api/agreement?a=$src&b=classifier" "${H[@]}"
    expect_status 403 GET "/api/issues?source=$src&cause=typo" "${H[@]}"
    expect_status 403 GET "/api/issues?compare=$src&agreement=agree" "${H[@]}"
  done
  expect_status 200 GET "/api/report?source=$me&format=json" "${H[@]}"
  expect_status 200 GET "/api/agreement?a=$me&b=classifier" "${H[@]}"
  expect_status 403 GET "/api/queue?mode=adjudicate&annotators=alice,bob" "${H[@]}"
  expect_status 403 GET "/api/queue?queue=disagreement" "${H[@]}"
  # The questions of an adjudication read the first rater's cause: adjudicators only.
  expect_status 403 GET "/api/issues/acme/conv/1/questions?mode=adjudicate&annotators=alice,bob" "${H[@]}"
  expect_status 200 GET /api/issues/acme/conv/1/questions "${H[@]}"
  expect_status 200 GET "/api/queue?queue=unlabeled" "${H[@]}"
  json_check "d['annotator'] == '$me'"
  expect_status 200 GET /api/session "${H[@]}"
  json_check "d['annotator'] == '$me' and '$other' not in d['annotators'] and '$other' not in d['sources'] and 'consensus' not in d['sources']"
  expect_status 403 GET /api/team "${H[@]}"
done

# --- carol adjudicates and sees everyone --------------------------------------------------------
expect_status 200 GET '/api/issues/acme/conv/1?blind=0' "${C[@]}"
json_check 'set(d["current"]) == {"alice", "bob"}'
expect_status 200 GET "/api/labels?repo=acme/conv&number=1&annotator=alice" "${C[@]}"
expect_status 200 GET "/api/queue?mode=adjudicate&annotators=alice,bob" "${C[@]}"
json_check '[i["number"] for i in d["items"]] == [1]'
expect_status 200 GET "/api/issues/acme/conv/1/questions?mode=adjudicate&annotators=alice,bob" "${C[@]}"
expect_status 201 POST /api/labels "${C[@]}" "${J[@]}" -d '{"repo":"acme/conv","number":1,"kind":"adjudication","dimension":"cause","value":"typo"}'
json_check 'd["annotator"] == "carol"'
expect_status 200 GET "/api/report?source=alice&compare=bob&format=json" "${C[@]}"
expect_status 403 GET /api/team "${C[@]}"
# --- dave (admin) lists the team, never a token ------------------------------------------------
expect_status 200 GET /api/team "${D[@]}"
json_check 'sorted(m["name"] for m in d["members"]) == ["alice", "bob", "carol", "dave"]'
grep -q "$ALICE" "$T/body" && fail "/api/team shows a token"

# --- Revocation ends a token at once -------------------------------------------------------------
cf team revoke bob >/dev/null
expect_status 403 GET /api/session "${B[@]}"
expect_status 403 POST /api/labels "${B[@]}" "${J[@]}" -d '{"repo":"acme/conv","number":2,"dimension":"cause","value":"typo"}'
expect_status 200 GET /api/session "${A[@]}"
stop_server
echo "ok"
