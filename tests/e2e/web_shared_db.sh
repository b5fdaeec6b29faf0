#!/usr/bin/env bash
# One database shared by the workbench and batch jobs: a label post every 0.3 s while a long
# classify runs, then while a second classify and an import run at once, then while a crawl (from
# build/fake-github) and a third classify run at once: no post fails, every acknowledged label is
# stored, every job finishes, and the classify runs become visible only when complete.
# CONVFAIL_SHARED_N sets the number of issues (default 20000; 80000 is the figure of issue #33,
# measured by hand: it takes minutes), CONVFAIL_SHARED_CRAWL the fake repository's issues and
# pull requests (default 400).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_web.sh"
source "$(dirname "$0")/lib_crawler.sh"
command -v curl >/dev/null && command -v python3 >/dev/null && command -v sqlite3 >/dev/null ||
  skip "curl/python3/sqlite3 missing"
N=${CONVFAIL_SHARED_N:-20000}
N_CRAWL=${CONVFAIL_SHARED_CRAWL:-400}

python3 - "$T" "$N" <<'PY'
import json, sys
t, n = sys.argv[1], int(sys.argv[2])
words = ["export", "crash", "Segmentation fault", "wrong output", "unsupported operator", "opset",
         "RuntimeError", "shape mismatch", "hang", "tensor", "Conv2d", "dynamic axes"]
def issue(repo, i):
    w = [words[(i * 7 + k) % len(words)] for k in range(12)]
    return {"repo": repo, "number": i, "title": f"{w[0]} {w[1]} in model {i}",
            "body": " ".join(w) + f" at layer {i % 97}\n" * 6, "state": "open",
            "created_at": "2022-01-01T00:00:00Z"}
with open(f"{t}/issues.jsonl", "w") as f:
    for i in range(1, n + 1):
        f.write(json.dumps(issue("acme/conv", i)) + "\n")
with open(f"{t}/more.jsonl", "w") as f:
    for i in range(1, n // 2 + 1):
        f.write(json.dumps(issue("acme/more", i)) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null
cf classify >/dev/null
start_server

# The poster: one label post every 0.3 s until $T/stop exists; logs "status row_ids seconds".
python3 - "$URL" "$T" >"$T/posts.log" 2>&1 <<'PY' &
import json, os, sys, time, urllib.request
url, t = sys.argv[1], sys.argv[2]
n = 0
while not os.path.exists(f"{t}/stop") and n < 2000:
    n += 1
    body = json.dumps({"repo": "acme/conv", "number": n, "dimension": "symptom",
                       "value": "crash"}).encode()
    req = urllib.request.Request(url + "/api/labels", data=body, method="POST", headers={
        "Content-Type": "application/json", "X-Convfail-Annotator": "rater",
        "Origin": url})
    start = time.monotonic()
    for attempt in range(10):  # as the page does: a 503 is retried after Retry-After
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                status, data = r.status, json.load(r)
            break
        except urllib.error.HTTPError as e:
            status, data = e.code, {}
            if e.code != 503:
                break
            time.sleep(float(e.headers.get("Retry-After", "1")))
        except Exception as e:
            status, data = 0, {}
            break
    took = time.monotonic() - start
    print(status, ",".join(map(str, data.get("row_ids", []))) or "-", f"{took:.3f}", flush=True)
    time.sleep(max(0.0, 0.3 - took))
PY
POSTER=$!
on_exit "kill $POSTER 2>/dev/null"
sleep 1
runs_before=$(sqlite3 "$DB" "SELECT count(*) FROM classifier_runs WHERE in_progress = 0")
start=$(date +%s.%N)
cf classify >"$T/classify1.out" 2>&1 || fail "classify failed: $(cat "$T/classify1.out")"
t_classify=$(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')")
# A classify and an import at once (each waits for the other's short transactions).
cf classify >"$T/classify2.out" 2>&1 &
C2=$!
cf import "$T/more.jsonl" >"$T/import.out" 2>&1 || fail "import failed: $(cat "$T/import.out")"
wait $C2 || fail "second classify failed: $(cat "$T/classify2.out")"
# A crawl and a classify at once (the crawl stores each page in one short transaction).
start_fake GH --issues "$N_CRAWL" --latency-ms 15
start=$(date +%s.%N)
cf classify >"$T/classify3.out" 2>&1 &
C3=$!
cf crawl onnx/tensorflow-onnx --api-url "$GH" --state all --json >"$T/crawl.json" 2>"$T/crawl.err" ||
  fail "crawl failed: $(cat "$T/crawl.err")"
t_crawl=$(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')")
wait $C3 || fail "third classify failed: $(cat "$T/classify3.out")"
t_crawl_classify=$(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')")
touch "$T/stop"
wait $POSTER

posts=$(wc -l <"$T/posts.log")
failed=$(awk '$1 != 201' "$T/posts.log" | wc -l)
worst=$(awk 'BEGIN{m=0} {if ($3 > m) m = $3} END{print m}' "$T/posts.log")
p99=$(awk '{print $3}' "$T/posts.log" | sort -n | awk '{a[NR]=$1} END{i=int(NR*0.99); if (i<1) i=1; print a[i]}')
crawled=$(sqlite3 "$DB" "SELECT count(*) FROM issues i JOIN repositories r ON r.id = i.repo_id WHERE r.full_name = 'onnx/tensorflow-onnx'")
echo "issues=$N classify_s=$t_classify crawl_s=$t_crawl crawl_and_classify_s=$t_crawl_classify crawled=$crawled posts=$posts failed=$failed p99_s=$p99 worst_s=$worst"
[ "$posts" -ge 5 ] || fail "only $posts posts were made: $(cat "$T/posts.log")"
[ "$failed" = 0 ] || fail "$failed of $posts posts failed: $(awk '$1 != 201' "$T/posts.log" | head)"
# Every acknowledged row is in the database.
acked=$(awk '$2 != "-" {n += split($2, a, ",")} END{print n+0}' "$T/posts.log")
ids=$(awk '$2 != "-" {printf "%s%s", sep, $2; sep=","}' "$T/posts.log")
stored=$(sqlite3 "$DB" "SELECT count(*) FROM manual_labels WHERE id IN ($ids)")
[ "$acked" = "$stored" ] || fail "acknowledged $acked label rows, $stored stored"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM classifier_runs WHERE in_progress = 0")" = $((runs_before + 3)) ] ||
  fail "the three classify runs are not all complete"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM classifier_runs WHERE in_progress = 1")" = 0 ] ||
  fail "a run was left in progress"
# The crawl stored every issue the fake serves (pull requests are skipped) and says it is complete.
[ "$(jq -r ".repos[0].complete" "$T/crawl.json")" = true ] || fail "the crawl is not complete: $(cat "$T/crawl.json")"
[ "$crawled" -gt 0 ] && [ "$crawled" = "$(jq -r '.new_issues' "$T/crawl.json")" ] ||
  fail "crawled $crawled issues, the crawl says $(jq -c . "$T/crawl.json")"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM issues")" = $((N + N / 2 + crawled)) ] || fail "import incomplete"
echo "ok"
