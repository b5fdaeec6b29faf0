#!/usr/bin/env bash
# End to end on loopback: an issue links a zipped ONNX test case, an oversized model, a file
# host and an export script; artifacts scan finds all four, fetch downloads the archive (the
# oversized model hits --max-bytes), reproduce re-runs the unpacked model and stores the verdict.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
tmp=$T DB=$T/c.db  # the names used below
case_dir=/usr/share/libonnx-testdata/data/node/test_sub
[ -d "$case_dir" ] || skip "libonnx-testdata missing"
command -v node >/dev/null || skip "node missing"
[ -d "$SRC/exec/runner/node_modules/onnxruntime-node" ] || skip "onnxruntime-node missing"
server_pid=
on_exit '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null'

mkdir -p "$tmp/www"
(cd "$case_dir/.." && python3 -c "
import shutil, sys; shutil.make_archive('$tmp/www/repro', 'zip', '.', 'test_sub')")
head -c 2000000 /dev/zero > "$tmp/www/big.onnx"
port=$((20000 + RANDOM % 20000))
python3 -m http.server --bind 127.0.0.1 --directory "$tmp/www" "$port" >/dev/null 2>&1 &
server_pid=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done

python3 - "$tmp/issues.jsonl" "$port" <<'PY'
import json, sys
port = sys.argv[2]
body = ("Exported model: http://127.0.0.1:%s/repro.zip\nweights http://127.0.0.1:%s/big.onnx\n"
        "mirror https://drive.google.com/file/d/abc/view\n"
        "```python\ntorch.onnx.export(model, x, 'm.onnx')\n```\n") % (port, port)
open(sys.argv[1], "w").write(json.dumps({"repo": "acme/conv", "number": 7, "title": "sub broken",
                                          "body": body, "comments": []}) + "\n")
PY
cf import "$tmp/issues.jsonl" >/dev/null
cf artifacts scan --json > "$tmp/scan.json"
grep -q '"found": *4' "$tmp/scan.json"
grep -q '"inserted": *4' "$tmp/scan.json"
cf artifacts scan --json | grep -q '"inserted": *0'   # rescan adds nothing
[ "$(sqlite3 "$tmp/c.db" "SELECT group_concat(kind, ',') FROM (SELECT kind FROM artifacts ORDER BY kind)")" = "archive,external_link,model,script" ]

# The test server is on loopback: --allow-private-hosts. The oversized model fails: exit 1.
expect_exit 1 cf artifacts fetch --allow-private-hosts --max-bytes 1000000 --retries 0 --json
cp "$T/out" "$tmp/fetch.json"
grep -q "^artifact [0-9]* http://127.0.0.1:$port/big.onnx: larger than 1000000 bytes" "$T/err"
grep -q '"attempted":2' "$tmp/fetch.json"
grep -q '"ok":1' "$tmp/fetch.json"
grep -q '"unpacked":1' "$tmp/fetch.json"
sqlite3 "$tmp/c.db" "SELECT fetch_status FROM artifacts WHERE kind='model'" | grep -q "error:larger than 1000000 bytes"
sqlite3 "$tmp/c.db" "SELECT fetch_status FROM artifacts WHERE kind='external_link'" | grep -q "skipped:file host"
sha=$(sqlite3 "$tmp/c.db" "SELECT sha256 FROM artifacts WHERE kind='archive'")
[ -f "$tmp/convfail-data/artifacts/$sha" ]
[ -f "$tmp/convfail-data/artifacts/$sha.d/test_sub/model.onnx" ]

cf reproduce 'acme/conv#7' --json > "$tmp/repro.json"
python3 - "$tmp/repro.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["results"]
assert len(rows) == 1, rows
assert doc["totals"] == {"total": 1, "not_reproduced": 1}, doc["totals"]
r = rows[0]
assert r["issue"] == "acme/conv#7" and r["verdict"] == "not_reproduced", r
assert r["ort_version"] and r["model"].endswith("model.onnx"), r
PY
[ "$(sqlite3 "$tmp/c.db" "SELECT count(*) FROM repro_runs WHERE issue_id IS NOT NULL AND verdict='not_reproduced'")" = 1 ]

# --jsonl streams: one result per line, then the totals.
cf reproduce --all --models --jsonl > "$tmp/all.jsonl"
[ "$(wc -l < "$tmp/all.jsonl")" = 2 ] && head -1 "$tmp/all.jsonl" | grep -q '"issue":"acme/conv#7"'
tail -1 "$tmp/all.jsonl" | grep -q '"totals":{"not_reproduced":1,"total":1}' 
[ "$(sqlite3 "$tmp/c.db" "SELECT count(*) FROM repro_runs WHERE issue_id IS NOT NULL")" = 2 ]

# Bad input: unknown issue (exit 1), no mode (exit 2), a garbage model (a verdict, not a crash).
set +e
cf reproduce 'acme/conv#99' 2>"$tmp/err"; [ $? -eq 1 ] || exit 1
grep -q "not in the store" "$tmp/err" || exit 1
cf reproduce 2>/dev/null; [ $? -eq 2 ] || exit 1
cf reproduce --model "$tmp/www/big.onnx" --dim N=0x >/dev/null 2>&1; [ $? -eq 2 ] || exit 1
set -e
echo garbage > "$tmp/bad.onnx"
cf reproduce --model "$tmp/bad.onnx" --json |
  python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["results"][0]["verdict"]=="crash_reproduced", d'
echo ok
