#!/usr/bin/env bash
# Issue #41, item 5: `import` wrote every file in one transaction, so a label post of `convfail
# serve` during a large import waited for all of it (and failed with 503 "database is locked"
# past serve's lock wait). Import now checks everything first, then writes in short slices as
# classify does. Here: a label post every 50 ms to `serve` on 127.0.0.1 while 30,000 issues
# (4 comments each) are imported; every post must succeed at once (HTTP 200 without a retry,
# none waiting 1.5 s: one slice, not the import) and every acknowledged label be stored.
# CONVFAIL_IMPORT_POSTS_N sets the number of issues.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_web.sh"
command -v curl >/dev/null && command -v python3 >/dev/null && command -v sqlite3 >/dev/null ||
  skip "curl/python3/sqlite3 missing"
N=${CONVFAIL_IMPORT_POSTS_N:-30000}

python3 - "$T" "$N" <<'PY'
import json, sys
t, n = sys.argv[1], int(sys.argv[2])
words = ["export", "crash", "Segmentation fault", "wrong output", "unsupported operator", "opset",
         "RuntimeError", "shape mismatch", "hang", "tensor", "Conv2d", "dynamic axes"]
def issue(repo, i, comments):
    w = [words[(i * 7 + k) % len(words)] for k in range(12)]
    return {"repo": repo, "number": i, "title": f"{w[0]} {w[1]} in model {i}",
            "body": " ".join(w) + f" at layer {i % 97}\n" * 6, "state": "open",
            "created_at": "2022-01-01T00:00:00Z", "updated_at": "2022-01-03T00:00:00Z",
            "comments": [{"author": f"u{k}", "body": " ".join(w[k:]) + f" comment {k} on {i}",
                          "created_at": "2022-01-02T00:00:00Z"} for k in range(comments)]}
with open(f"{t}/base.jsonl", "w") as f:
    for i in range(1, 501):
        f.write(json.dumps(issue("acme/conv", i, 0)) + "\n")
with open(f"{t}/big.jsonl", "w") as f:
    for i in range(1, n + 1):
        f.write(json.dumps(issue("acme/big", i, 4)) + "\n")
PY
cf import "$T/base.jsonl" >/dev/null
start_server

# The poster: one label post every 50 ms until $T/stop exists, no retry; logs
# "start_epoch status seconds row_ids".
python3 - "$URL" "$T" >"$T/posts.log" 2>&1 <<'PY' &
import json, os, sys, time, urllib.request, urllib.error
url, t = sys.argv[1], sys.argv[2]
n = 0
while not os.path.exists(f"{t}/stop") and n < 3000:
    n += 1
    body = json.dumps({"repo": "acme/conv", "number": 1 + n % 500, "dimension": "symptom",
                       "value": ["crash", "hang", "wrong_model"][n % 3]}).encode()
    req = urllib.request.Request(url + "/api/labels", data=body, method="POST", headers={
        "Content-Type": "application/json", "X-Convfail-Annotator": "rater", "Origin": url})
    start = time.time()
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            status, data = r.status, json.load(r)
    except urllib.error.HTTPError as e:
        status, data = e.code, {}
    except Exception:
        status, data = 0, {}
    took = time.time() - start
    print(f"{start:.3f}", status, f"{took:.3f}", ",".join(map(str, data.get("row_ids", []))) or "-",
          flush=True)
    time.sleep(max(0.0, 0.05 - took))
PY
POSTER=$!
on_exit "touch $T/stop; kill $POSTER 2>/dev/null"
sleep 0.5
t0=$(date +%s.%N)
cf import "$T/big.jsonl" --json >"$T/import.json" 2>"$T/import.err" ||
  fail "import failed: $(cat "$T/import.err")"
t1=$(date +%s.%N)
sleep 0.3
touch "$T/stop"
wait $POSTER || true

python3 - "$T/posts.log" "$t0" "$t1" "$T/import.json" >"$T/figures" <<'PY' || fail "$(cat "$T/figures")"
import json, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
t0, t1 = float(sys.argv[2]), float(sys.argv[3])
during = [r for r in rows if t0 <= float(r[0]) <= t1]
ok = ("200", "201")
bad = [r for r in rows if r[1] not in ok]
slow = [r for r in during if float(r[2]) >= 1.5]
imp = json.load(open(sys.argv[4]))
succeeded = len([r for r in during if r[1] in ok])
slowest = max((float(r[2]) for r in during), default=0)
print(f"import {t1 - t0:.1f} s, {imp['inserted']} issues in {imp.get('transactions')} transactions "
      f"(largest {imp.get('largest_transaction')} issues); {len(during)} posts during it, "
      f"{succeeded} succeeded, slowest {slowest:.3f} s")
assert len(during) >= 5, "too few posts during the import"
assert not bad, f"posts failed: {bad[:5]}"
assert not slow, f"posts waited for the import: {slow[:5]}"
assert imp.get("transactions", 1) > 1 and imp.get("largest_transaction", 0) <= 5000, imp
PY
cat "$T/figures"
[ "$(jq .inserted "$T/import.json")" = "$N" ] || fail "not every issue imported: $(cat "$T/import.json")"
# Every acknowledged label is stored.
acked=$(awk '($2 == 200 || $2 == 201) && $4 != "-" {n += split($4, a, ",")} END {print n + 0}' "$T/posts.log")
stored=$(sqlite3 "$DB" "SELECT count(*) FROM manual_labels WHERE annotator='rater'")
[ "$acked" = "$stored" ] || fail "$acked label rows acknowledged, $stored stored"
echo "PASS: label posts during a $N-issue import"
