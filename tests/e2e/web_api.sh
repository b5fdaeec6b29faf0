#!/usr/bin/env bash
# `convfail serve` over HTTP (curl on 127.0.0.1): every endpoint of the JSON API and every
# refusal — unknown label ids, malformed JSON, oversized bodies, asset path traversal, cross-site
# posts, missing token, read-only — answered with a JSON 4xx and the database unchanged.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_web.sh"
command -v curl >/dev/null && command -v python3 >/dev/null && command -v sqlite3 >/dev/null ||
  skip "curl/python3/sqlite3 missing"

# Synthetic issues (no third-party text); #3's body is hostile HTML.
python3 - "$T" <<'PY'
import json, sys
rows = [
  {"repo": "acme/conv", "number": 1, "title": "export crashes with a segmentation fault",
   "body": "torch.onnx.export crashes: Segmentation fault (core dumped) at opset 17",
   "state": "closed", "created_at": "2021-03-01T00:00:00Z",
   "comments": [{"author": "x", "body": "same crash here with opset 17"}]},
  {"repo": "acme/conv", "number": 2, "title": "wrong output after conversion",
   "body": "the converted model gives wrong results, max abs diff 0.5", "state": "open",
   "created_at": "2022-05-01T00:00:00Z"},
  {"repo": "acme/conv", "number": 3, "title": "<b>bold</b> title",
   "body": "<script>window.pwned=1</script><img src=x onerror=alert(1)> unsupported operator",
   "state": "closed", "created_at": "2022-07-01T00:00:00Z"},
  {"repo": "other/tool", "number": 7, "title": "hang while exporting",
   "body": "the export hangs forever", "state": "open", "created_at": "2023-01-01T00:00:00Z"},
]
with open(f"{sys.argv[1]}/issues.jsonl", "w") as f:
    for r in rows: f.write(json.dumps(r) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null
cf classify >/dev/null
start_server

# --- Page and assets -------------------------------------------------------------------------
expect_status 200 GET /
grep -qi '^content-type: text/html' "$T/headers" || fail "/ not text/html"
grep -qi "^content-security-policy: default-src 'self'" "$T/headers" || fail "no CSP on /"
grep -qi '^x-content-type-options: nosniff' "$T/headers" || fail "no nosniff"
expect_grep '<script src="/assets/app.js"' "$T/body"
expect_status 200 GET /assets/app.js
grep -qi '^content-type: text/javascript' "$T/headers" || fail "app.js content type"
expect_grep 'textContent' "$T/body"
expect_status 200 GET /assets/style.css
grep -qi '^content-type: text/css' "$T/headers" || fail "style.css content type"
expect_status 404 GET /assets/nothing.js
# A decoded "/" makes another path, which no route has (404); ".." or "\" in the one name: 400.
for p in '/assets/..%2fapi.cpp' '/assets/..%2F..%2F..%2Fetc%2Fpasswd'; do
  expect_status 404 GET "$p" --path-as-is
done
for p in '/assets/%2e%2e' '/assets/a%5c..%5cb'; do
  expect_status 400 GET "$p" --path-as-is
done
expect_status 404 GET /etc/passwd --path-as-is
expect_status 403 GET /api/issues -H 'Host: rebound.example:8080' # DNS rebinding
expect_status 200 GET /api/session -H 'Host: localhost:8080'
expect_status 404 GET /api/nothing
expect_status 405 DELETE /api/labels
grep -qi '^allow: GET, HEAD, POST' "$T/headers" || fail "405 on /api/labels without Allow: GET, HEAD, POST"
expect_status 405 GET /api/login
grep -qi '^allow: POST' "$T/headers" || fail "405 on /api/login without Allow: POST"

# --- Read endpoints --------------------------------------------------------------------------
expect_status 200 GET /api/session
json_check 'd["annotator"] is None and d["readonly"] is False and "classifier" in d["sources"]'
json_check '[x["id"] for x in d["dimensions"]] == ["symptom", "cause", "stage"]'

expect_status 200 GET '/api/issues'
json_check 'd["total"] == 4 and len(d["issues"]) == 4 and d["issues"][0]["repo"] == "other/tool"'
json_check 'set(d["issues"][0]) >= {"repo","number","title","state","labels","created_at","html_url","converter"}'
expect_status 200 GET '/api/issues?per_page=3&page=2'
json_check 'd["total"] == 4 and len(d["issues"]) == 1 and d["page"] == 2'
expect_status 200 GET '/api/issues?repo=acme/conv&state=open'
json_check '[(i["repo"], i["number"]) for i in d["issues"]] == [("acme/conv", 2)]'
expect_status 200 GET '/api/issues?converter=tool'
json_check 'd["total"] == 0' # other/tool's converter is its own name "other/tool"
expect_status 200 GET '/api/issues?converter=other/tool'
json_check 'd["total"] == 1'
expect_status 200 GET '/api/issues?q=segmentation'
json_check 'd["total"] == 1 and d["issues"][0]["number"] == 1 and "[" in d["issues"][0]["snippets"][0]["text"]'
expect_status 200 GET '/api/issues?q=torch.onnx'  # code needs no quoting (FTS5 syntax: fts=1)
json_check 'd["total"] == 1'
expect_status 200 GET '/api/issues?q=%22unbalanced'
expect_status 400 GET '/api/issues?q=%22unbalanced&fts=1'
expect_status 400 GET '/api/issues?per_page=0'
expect_status 400 GET '/api/issues?page=abc'
expect_status 400 GET '/api/issues?symptom=boom'
expect_status 400 GET '/api/issues?min_confidence=2'
expect_status 400 GET '/api/issues?agreement=agree'
expect_status 400 GET '/api/issues?source=nobody'
# Label filters against the classifier run, checked against the database.
crash=$(sqlite3 "$DB" "SELECT count(*) FROM classifier_labels WHERE dimension='symptom' AND label='crash' AND run_id=(SELECT max(id) FROM classifier_runs)")
expect_status 200 GET '/api/issues?source=classifier&symptom=crash'
json_check "d['total'] == $crash and all(i['source_labels']['symptom'] == 'crash' for i in d['issues'])"
[ "$crash" -ge 1 ] || fail "the classifier labeled no crash: the filter test tests nothing"
expect_status 200 GET '/api/issues?source=classifier&min_confidence=0&max_confidence=1'
json_check 'd["total"] >= 1 and all(0 <= min(i["confidence"].values()) <= 1 for i in d["issues"])'
# Repro verdict filter.
sqlite3 "$DB" "INSERT INTO repro_runs(issue_id, verdict, step, signature) SELECT id, 'crash_reproduced', 'export', 'SIGSEGV' FROM issues WHERE number = 1"
expect_status 200 GET '/api/issues?verdict=crash_reproduced'
json_check '[i["number"] for i in d["issues"]] == [1]'

expect_status 200 GET /api/issues/acme/conv/3
json_check 'd["body"].startswith("<script>window.pwned=1</script>") and d["title"] == "<b>bold</b> title"'
json_check 'set(d) >= {"comments","timeline","classifier","facts","highlights","history","current","repro"}'
expect_status 200 GET /api/issues/acme/conv/1
json_check 'd["repro"][0]["verdict"] == "crash_reproduced" and d["classifier"]["run_id"] >= 1'
json_check 'all(0 <= a < b <= len(d["body"]) for a, b, _ in d["highlights"]["body"]) and len(d["highlights"]["comments"]) == 1'
# The issue JSON (not blind) is `convfail show --json` (the issue dossier; web_dossier.sh) plus
# the page's fields (web/issue_page).
cf show acme/conv#1 --json >"$T/show.json"
expect_status 200 GET '/api/issues/acme/conv/1?blind=0'
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
page = {"body_html", "comments_html", "github_url", "repro_programs", "runtime_history"}
assert a == {k: v for k, v in b.items() if k not in page}, set(a) ^ set(b)' \
  "$T/show.json" "$T/body" || fail "issue JSON differs from show --json"
expect_status 404 GET /api/issues/acme/conv/99
expect_status 400 GET /api/issues/acme/conv/x1
expect_status 404 GET '/api/issues/..%2f..%2fx/conv/1'  # decoded: 7 segments, no route

# --- Writes: login, labels, refusals -------------------------------------------------------
before=$(counts)
J=(-H 'Content-Type: application/json')
expect_status 401 POST /api/labels "${J[@]}" -d '{"repo":"acme/conv","number":1,"dimension":"symptom","value":"crash"}'
expect_status 400 POST /api/login "${J[@]}" -d '{"annotator":"bad:name"}'
expect_status 400 POST /api/login "${J[@]}" -d '{"annotator":"classifier"}'
expect_status 200 POST /api/login "${J[@]}" -d '{"annotator":"ann"}'
grep -qi '^set-cookie: convfail_annotator=ann; Path=/; HttpOnly; SameSite=Strict' "$T/headers" || fail "no login cookie"
A=(-H 'Cookie: convfail_annotator=ann' "${J[@]}")
expect_status 400 POST /api/labels "${A[@]}" -d '{"repo":"acme/conv","number":1,"dimension":"symptom","value":"boom"}'
expect_grep 'unknown symptom' "$T/body"
expect_status 400 POST /api/labels "${A[@]}" -d '{"repo":"acme/conv","number":1,"cause":"typo","subtype":"node"}'
expect_status 400 POST /api/labels "${A[@]}" -d '{"repo":"acme/conv","number":1,"dimension":"mood","value":"x"}'
expect_status 400 POST /api/labels "${A[@]}" -d '{"repo":"acme/conv","number":1,"dimension":"symptom","value":42}'
expect_status 400 POST /api/labels "${A[@]}" -d '{"repo":"acme/conv","number":1,'
expect_status 400 POST /api/labels "${A[@]}" -d '[1,2]'
expect_status 400 POST /api/labels "${A[@]}" -d '{"repo":"acme/conv","number":1,"kind":"delete"}'
expect_status 400 POST /api/labels "${A[@]}" -d '{"repo":"acme/conv","number":1,"kind":"undo","row_id":999}'
expect_status 404 POST /api/labels "${A[@]}" -d '{"repo":"acme/conv","number":99,"dimension":"symptom","value":"crash"}'
python3 -c 'import json; print(json.dumps({"repo":"acme/conv","number":1,"note":"x"*200000}))' >"$T/big.json"
expect_status 413 POST /api/labels "${A[@]}" --data-binary "@$T/big.json"
expect_status 403 POST /api/labels "${A[@]}" -H 'Origin: http://evil.example' -d '{"repo":"acme/conv","number":1,"dimension":"symptom","value":"crash"}'
expect_status 403 POST /api/labels "${A[@]}" -H 'Sec-Fetch-Site: cross-site' -d '{"repo":"acme/conv","number":1,"dimension":"symptom","value":"crash"}'
expect_status 415 POST /api/labels -H 'Cookie: convfail_annotator=ann' -H 'Content-Type: text/plain' -d '{"repo":"acme/conv","number":1,"dimension":"symptom","value":"crash"}'
expect_status 405 GET '/api/login'
[ "$(counts)" = "$before" ] || fail "a refused request changed the database"

host=${URL#http://}
expect_status 201 POST /api/labels "${A[@]}" -H "Origin: http://$host" -H 'Sec-Fetch-Site: same-origin' \
  -d '{"repo":"acme/conv","number":1,"dimension":"symptom","value":"Crash","note":"<i>seen</i>"}'
json_check 'd["written"] == 1 and len(d["row_ids"]) == 1 and d["annotator"] == "ann"'
expect_status 201 POST /api/labels "${A[@]}" -d '{"repo":"acme/conv","number":1,"dimension":"cause","value":"type_problem"}'
expect_status 201 POST /api/labels "${A[@]}" -d '{"repo":"acme/conv","number":1,"dimension":"subtype","value":"node"}'
row=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["row_ids"][0])' "$T/body")
expect_status 201 POST /api/labels "${A[@]}" -d "{\"repo\":\"acme/conv\",\"number\":1,\"kind\":\"undo\",\"row_id\":$row}"
expect_status 201 POST /api/labels "${A[@]}" -d '{"repo":"acme/conv","number":2,"kind":"skip","dimension":"symptom"}'
expect_status 201 POST /api/labels -H 'X-Convfail-Annotator: bob' "${J[@]}" -d '{"repo":"acme/conv","number":1,"symptom":"crash","cause":"incompatibility","stage":"export"}'
json_check 'd["written"] == 3'
# A row from another annotator cannot be undone by ann.
expect_status 400 POST /api/labels "${A[@]}" -d "{\"repo\":\"acme/conv\",\"number\":1,\"kind\":\"undo\",\"row_id\":$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["row_ids"][0])' "$T/body")}"
cf labels history acme/conv#1 --json >"$T/hist.json"
python3 - "$T/hist.json" <<'PY' || fail "history rows: $(cat "$T/hist.json")"
import json, sys
rows = json.load(open(sys.argv[1]))
ann = [(r["dimension"], r["kind"], r["value"], r["source"]) for r in rows if r["annotator"] == "ann"]
assert ann == [("symptom", "label", "crash", "web"), ("cause", "label", "type_problem", "web"),
               ("subtype", "label", "node", "web"), ("subtype", "undo", None, "web")], ann
assert rows[0]["note"] == "<i>seen</i>"
assert sorted(r["dimension"] for r in rows if r["annotator"] == "bob") == ["cause", "stage", "symptom"]
PY
expect_status 200 GET '/api/labels?repo=acme/conv&number=1'
cf labels history acme/conv#1 --json >"$T/hist.json"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1])) == json.load(open(sys.argv[2]))' "$T/body" "$T/hist.json" ||
  fail "/api/labels differs from labels history --json"
expect_status 400 GET '/api/labels?repo=acme/conv'

# Blind labeling: the issue JSON the annotate page loads holds the viewer's own labels only;
# the other rater's (bob's crash/incompatibility/export) only with blind=0 (adjudicate).
expect_status 200 GET /api/issues/acme/conv/1 -H 'Cookie: convfail_annotator=ann'
json_check 'd["blind"] is True and set(d["current"]) == {"ann"} and {r["annotator"] for r in d["history"]} == {"ann"}'
grep -q '"bob"' "$T/body" && fail "ann's blind issue JSON shows bob's labels"
expect_status 200 GET /api/issues/acme/conv/1 -H 'X-Convfail-Annotator: bob'
json_check 'set(d["current"]) == {"bob"} and d["current"]["bob"]["cause"]["value"] == "incompatibility" and {r["annotator"] for r in d["history"]} == {"bob"}'
grep -q '"ann"' "$T/body" && fail "bob's blind issue JSON shows ann's labels"
expect_status 200 GET /api/issues/acme/conv/1
json_check 'd["current"] == {} and d["history"] == []'
expect_status 200 GET '/api/issues/acme/conv/1?blind=0' -H 'Cookie: convfail_annotator=ann'
json_check 'd["blind"] is False and set(d["current"]) == {"ann", "bob"}'
expect_status 400 GET '/api/issues/acme/conv/1?blind=maybe'
# The codebook rides with the session: a definition and an example for every choice.
expect_status 200 GET /api/session
json_check 'all(l["definition"] and l["example"] and all(s["definition"] and s["example"] for s in l["subtypes"]) for dim in d["dimensions"] for l in dim["labels"])'

# --- Concurrent posts: two raters, 60 requests at once (every tenth with an unknown label, so
# refused ones share batches with good ones): no row lost, duplicated, or written for a refusal.
before_rows=$(sqlite3 "$DB" "SELECT count(*) FROM manual_labels")
syms=(crash wrong_model hang build_failure bad_performance unreported)
for i in $(seq 0 59); do
  who=$([ $((i % 2)) = 0 ] && echo r1 || echo r2)
  n=$(((i / 2) % 3 + 1))
  value=${syms[$((i % 6))]}
  [ $((i % 10)) = 9 ] && value=boom
  curl -s --noproxy '*' --max-time 60 -o "$T/c$i" -H "X-Convfail-Annotator: $who" "${J[@]}" \
    -d "{\"repo\":\"acme/conv\",\"number\":$n,\"dimension\":\"symptom\",\"value\":\"$value\",\"note\":\"c$i\"}" \
    "$URL/api/labels" &
done
wait_pids=$(jobs -p | grep -v "^$SERVER_PID\$" || true)
for p in $wait_pids; do wait "$p" || true; done
python3 - "$T" <<'PY' || fail "concurrent posts: answers"
import json, sys
for i in range(60):
    d = json.load(open(f"{sys.argv[1]}/c{i}"))
    if i % 10 == 9:
        assert "unknown symptom" in d["error"], (i, d)
    else:
        assert d["written"] == 1, (i, d)
PY
after_rows=$(sqlite3 "$DB" "SELECT count(*) FROM manual_labels")
notes=$(sqlite3 "$DB" "SELECT count(DISTINCT note) FROM manual_labels WHERE note GLOB 'c[0-9]*'")
bad=$(sqlite3 "$DB" "SELECT count(*) FROM manual_labels WHERE note GLOB 'c[0-9]*9'")
[ $((after_rows - before_rows)) = 54 ] && [ "$notes" = 54 ] && [ "$bad" = 0 ] ||
  fail "concurrent posts: $((after_rows - before_rows)) rows, $notes distinct notes, $bad refused (want 54, 54, 0)"

# --- Queue, agreement, report ----------------------------------------------------------------
expect_status 401 GET '/api/queue'
expect_status 200 GET '/api/queue?queue=unlabeled' -H 'X-Convfail-Annotator: ann'
# ann labeled #1 and skipped #2 (a skip holds no label): #2, #3 and #7 remain.
json_check '[(i["repo"], i["number"]) for i in d["items"]] == [("acme/conv", 2), ("acme/conv", 3), ("other/tool", 7)]'
expect_status 200 GET '/api/queue?queue=sample&size=2&seed=3' -H 'X-Convfail-Annotator: ann'
json_check '0 < len(d["items"]) <= 2'
expect_status 400 GET '/api/queue?queue=nope' -H 'X-Convfail-Annotator: ann'
expect_status 400 GET '/api/queue?mode=adjudicate&annotators=ann' -H 'X-Convfail-Annotator: judge'
expect_status 200 GET '/api/queue?mode=adjudicate&annotators=ann,bob' -H 'X-Convfail-Annotator: judge'
json_check 'd["items"] and d["items"][0]["number"] == 1 and "cause" in d["items"][0]["dimensions"]'

# --- Questions: an item's questions in order with their choices, labeling's rule served to the
# page (which asks, never derives them): subtype only when the cause has subtypes.
Q=/api/issues/acme/conv/1/questions
expect_status 401 GET "$Q"
# ann's cause is type_problem (subtypes node, tensor, conventional): the subtype follows it.
expect_status 200 GET "$Q" -H 'X-Convfail-Annotator: ann'
json_check 'd["mode"] == "annotate" and d["cause"] == "type_problem" and [q["dimension"] for q in d["questions"]] == ["symptom", "cause", "subtype", "stage"]'
json_check '[c["id"] for c in d["questions"][2]["choices"]] == ["node", "tensor", "conventional"] and all(c["title"] and c["definition"] for q in d["questions"] for c in q["choices"])'
# A cause without subtypes, and no cause at all: no subtype question.
expect_status 201 POST /api/labels -H 'X-Convfail-Annotator: cat' "${J[@]}" -d '{"repo":"acme/conv","number":1,"cause":"typo"}'
expect_status 200 GET "$Q" -H 'X-Convfail-Annotator: cat'
json_check 'd["cause"] == "typo" and [q["dimension"] for q in d["questions"]] == ["symptom", "cause", "stage"]'
expect_status 200 GET "$Q" -H 'X-Convfail-Annotator: dan'
json_check 'd["cause"] is None and [q["dimension"] for q in d["questions"]] == ["symptom", "cause", "stage"]'
# The item's dimensions only, in their order.
expect_status 200 GET "$Q?dimensions=stage,symptom" -H 'X-Convfail-Annotator: ann'
json_check '[q["dimension"] for q in d["questions"]] == ["stage", "symptom"]'
# Adjudicating: the first rater's cause, unless the form's cause is given.
expect_status 200 GET "$Q?mode=adjudicate&annotators=ann,bob&dimensions=cause,subtype" -H 'X-Convfail-Annotator: judge'
json_check 'd["cause"] == "type_problem" and [q["dimension"] for q in d["questions"]] == ["cause", "subtype"]'
expect_status 200 GET "$Q?mode=adjudicate&annotators=bob,ann&dimensions=cause,subtype" -H 'X-Convfail-Annotator: judge'
json_check 'd["cause"] == "incompatibility" and [c["id"] for c in d["questions"][1]["choices"]] == ["internal", "external", "resource"]'
expect_status 200 GET "$Q?mode=adjudicate&annotators=ann,bob&dimensions=cause,subtype&cause=typo" -H 'X-Convfail-Annotator: judge'
json_check 'd["cause"] == "typo" and [q["dimension"] for q in d["questions"]] == ["cause"]'
for bad in 'dimensions=mood' 'cause=boom' 'mode=review' 'mode=adjudicate&annotators=ann'; do
  expect_status 400 GET "$Q?$bad" -H 'X-Convfail-Annotator: judge'
done
expect_status 404 GET /api/issues/acme/conv/99/questions -H 'X-Convfail-Annotator: judge'
expect_status 405 POST "$Q" -H 'X-Convfail-Annotator: judge'

expect_status 200 GET '/api/agreement?a=r1&b=r2'
cf agreement --annotators r1,r2 --json >"$T/agree.json"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1])) == json.load(open(sys.argv[2]))' "$T/body" "$T/agree.json" ||
  fail "/api/agreement differs from agreement --json"
expect_status 200 GET '/api/agreement?a=classifier&b=bob'
json_check 'd["dimensions"]["symptom"]["n"] == 1 and "ci95" in d["dimensions"]["symptom"]'
cf agreement --annotators classifier,bob --json >"$T/agree.json"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1])) == json.load(open(sys.argv[2]))' "$T/body" "$T/agree.json" ||
  fail "/api/agreement?a=classifier&b=bob differs from agreement --annotators classifier,bob --json"
expect_status 400 GET '/api/agreement?a=r1'
expect_status 400 GET '/api/agreement?a=r1&b=nobody'
expect_status 400 GET '/api/agreement?a=r1&b=r2&dimension=mood'

expect_status 200 GET '/api/report?source=classifier'
cf report --source classifier --json >"$T/report.json"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1])) == json.load(open(sys.argv[2]))' "$T/body" "$T/report.json" ||
  fail "/api/report differs from report --json"
for f in md csv latex html; do
  expect_status 200 GET "/api/report?source=classifier&format=$f&download=1"
  grep -qi "^content-disposition: attachment; filename=\"convfail-report\." "$T/headers" || fail "$f: no download name"
  cf report --source classifier --format "$f" >"$T/report.$f"
  cmp -s "$T/body" "$T/report.$f" || fail "/api/report format $f differs from the CLI"
done
grep -qi "^content-security-policy: default-src 'none'; style-src 'unsafe-inline'" "$T/headers" || fail "html report CSP"
[ "$(grep -ci '^content-security-policy' "$T/headers")" = 1 ] || fail "two CSP headers on the report"
expect_status 400 GET '/api/report?format=docx'
expect_status 400 GET '/api/report?source=nobody'
expect_status 400 GET '/api/report?source=classifier&since=yesterday'
stop_server

# --- Read-only server: reads work, writes are refused -----------------------------------------
before=$(counts)
start_server --readonly
expect_status 200 GET '/api/issues'
expect_status 403 POST /api/labels "${A[@]}" -d '{"repo":"acme/conv","number":1,"dimension":"symptom","value":"hang"}'
stop_server
[ "$(counts)" = "$before" ] || fail "the read-only server changed the database"

# --- Access token: every request needs it ---------------------------------------------------
printf 'a-test-token-0123456789abcdef\n' >"$T/token"
start_server --token-file "$T/token"
expect_status 403 GET /
expect_status 403 GET /api/issues
expect_status 403 GET /api/issues -H 'Authorization: Bearer wrong-token-0123456789'
expect_status 200 GET /api/issues -H 'Authorization: Bearer a-test-token-0123456789abcdef'
expect_status 200 GET /api/issues -H 'Cookie: convfail_token=a-test-token-0123456789abcdef'
expect_status 303 GET '/?token=a-test-token-0123456789abcdef'
grep -qi '^set-cookie: convfail_token=a-test-token-0123456789abcdef; Path=/; HttpOnly; SameSite=Strict' "$T/headers" ||
  fail "?token= sets no cookie"
expect_status 403 POST /api/labels "${A[@]}" -d '{"repo":"acme/conv","number":1,"dimension":"symptom","value":"hang"}'
grep -q 'a-test-token' "$SERVER_OUT" && fail "the token file's token was printed"
stop_server
# SIGTERM stops the server cleanly (exit 0).
start_server
kill -TERM "$SERVER_PID"
rc=0
wait "$SERVER_PID" || rc=$?
[ "$rc" = 0 ] || fail "serve exited $rc on SIGTERM"
printf 'short\n' >"$T/short"
expect_exit 1 cf serve --port 0 --token-file "$T/short"
expect_grep 'needs 16 characters' "$T/err"
expect_exit 2 cf serve --port 70000
echo "web_api: ok"
