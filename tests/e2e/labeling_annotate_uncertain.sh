#!/usr/bin/env bash
# annotate --queue uncertain: issues the trained model is unsure of come first (their words point
# to both labels of each dimension), the rest after; refits during a session keep the queue the
# same set of issues; a missing model and bad options are one-line errors. The web offers the same
# queue (/api/queue?queue=uncertain): its order is the terminal session's first order.
# Usage: bash labeling_annotate_uncertain.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_web.sh"
q() { sqlite3 -cmd ".timeout 5000" "$DB" "$@"; }

python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
# Made-up key words: no rule fires on them.
words = {"symptom": {"crash": "zorblat", "wrong_model": "plovik"},
         "cause": {"shape_problem": "glimmek", "type_problem": "wuzzick"},
         "stage": {"node_conversion": "vantrel", "optimization": "mospick"}}
with open(t + "/issues.jsonl", "w") as out, open(t + "/gold.csv", "w") as gold:
    gold.write("repo,number,fold,symptom,cause,stage\n")
    for n in range(1, 31):
        if n <= 24:
            labels = {d: sorted(w)[(n >> k) % 2] for k, (d, w) in enumerate(words.items())}
            body = " ".join(words[d][labels[d]] for d in words)
            gold.write("acme/conv,%d,%d,%s,%s,%s\n" % (n, n % 4, labels["symptom"], labels["cause"], labels["stage"]))
        else:  # ambiguous: both key words of every dimension
            body = " ".join(w for d in words.values() for w in d.values())
        out.write(json.dumps({"repo": "acme/conv", "number": n, "title": "converting model %d" % n,
                              "state": "closed", "labels": [], "author": "u%d" % n,
                              "created_at": "2024-01-01", "body": "the converter " + body,
                              "comments": []}) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null

expect_exit 1 cf annotate --annotator ann --queue uncertain --plain </dev/null
expect_grep "needs a trained model" "$T/err"
[ "$(wc -l <"$T/err")" = 1 ] || fail "multi-line error: $(cat "$T/err")"
expect_exit 2 cf annotate --annotator ann --queue uncertain --refit-every 0 </dev/null
expect_exit 2 cf annotate --annotator ann --queue uncertain --uncertainty variance </dev/null
cf annotate --help | grep -q -- "--refit-every" || fail "--refit-every not in --help"
start_server
expect_status 200 GET /api/session
json_check 'd["queues"] == ["unlabeled", "low-confidence", "disagreement", "sample", "uncertain"]'
expect_status 409 GET '/api/queue?queue=uncertain' -H 'X-Convfail-Annotator: web1'
expect_grep "needs a trained model" "$T/body"
expect_status 400 GET '/api/queue?queue=uncertain&uncertainty=variance' -H 'X-Convfail-Annotator: web1'

cf train --gold-file "$T/gold.csv" >/dev/null
echo q | cf annotate --annotator ann --queue uncertain --plain >"$T/out" 2>"$T/err"
grep -q "queue uncertain, 30 issue(s)" "$T/err" || fail "$(cat "$T/err")"
order=$(q "SELECT group_concat(i.number) FROM (SELECT issue_id FROM annotation_queue_items
           WHERE session_id = 1 ORDER BY position) qi JOIN issues i ON i.id = qi.issue_id")
first=$(echo "$order" | cut -d, -f1-6 | tr , '\n' | sort -n | tr '\n' ' ')
[ "$first" = "25 26 27 28 29 30 " ] || fail "the ambiguous issues are not first: $order"
for measure in margin entropy; do
  expect_status 200 GET "/api/queue?queue=uncertain&uncertainty=$measure" -H 'X-Convfail-Annotator: web1'
  web_order=$(python3 -c 'import json,sys; print(",".join(str(i["number"]) for i in json.load(open(sys.argv[1]))["items"]))' "$T/body")
  [ "$measure" = entropy ] || [ "$web_order" = "$order" ] || fail "web uncertain queue $web_order, terminal $order"
  [ "$(echo "$web_order" | tr , '\n' | sort -n | tr '\n' ' ')" = "$(seq 1 30 | tr '\n' ' ')" ] ||
    fail "web uncertain queue ($measure) is not the 30 issues: $web_order"
done
expect_status 200 GET '/api/queue?queue=uncertain&size=4' -H 'X-Convfail-Annotator: web1'
json_check 'len(d["items"]) == 4 and all(i["number"] > 24 for i in d["items"])'
stop_server

# A session refitting after every issue: every answer stored, the queue still the same 30 issues.
printf 's\ns\ns\ns\ns\nq\n' | cf annotate --annotator ann --queue uncertain --refit-every 1 --plain \
  >"$T/out2" 2>"$T/err2"
[ "$(q "SELECT count(*) FROM manual_labels WHERE annotator = 'ann' AND kind = 'skip'")" = 5 ] ||
  fail "skips not stored: $(cat "$T/out2")"
session=$(q "SELECT max(id) FROM annotation_sessions")
[ "$(q "SELECT count(DISTINCT issue_id) || ' ' || count(*) FROM annotation_queue_items WHERE session_id = $session")" = "30 30" ] ||
  fail "re-ranking changed the queue's issues"
# Resuming takes the same session.
echo q | cf annotate --annotator ann --queue uncertain --refit-every 1 --plain >/dev/null 2>"$T/err3"
grep -q "resuming session $session" "$T/err3" || fail "$(cat "$T/err3")"
