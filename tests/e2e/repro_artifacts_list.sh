#!/usr/bin/env bash
# `artifacts list` (#28 item 12): what is stored, per issue, with fetch status, size and SHA-256
# (the first 12 hex digits in the table, all of it with --json), before and after a fetch; only
# one issue or one kind on request; outside text escaped; bad options exit 2.
# Usage: bash repro_artifacts_list.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null && command -v curl >/dev/null && command -v jq >/dev/null ||
  skip "python3/curl/jq missing"
mkdir -p "$T/www"
head -c 3000 /dev/urandom >"$T/www/m.onnx"
sha=$(sha256sum "$T/www/m.onnx" | cut -c1-64)
port=$((20000 + RANDOM % 20000))
python3 -m http.server --bind 127.0.0.1 --directory "$T/www" "$port" >/dev/null 2>&1 &
server_pid=$!
on_exit "kill $server_pid 2>/dev/null"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
python3 - "$T/issues.jsonl" "http://127.0.0.1:$port" <<'PY'
import json, sys
b = sys.argv[2]
code = "```python\nimport torch\nm = torch.nn.Linear(2, 2)\ntorch.onnx.export(m, torch.randn(1, 2), 'm.onnx')\n```"
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"repo": "acme/conv", "number": 1, "title": "model fails",
                        "body": "model: %s/m.onnx\n\n%s" % (b, code)}) + "\n")
    f.write(json.dumps({"repo": "acme/conv", "number": 2, "title": "hostile link",
                        "body": "see %s/two.onnx" % b}) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null
cf artifacts list >"$T/empty.txt"
expect_grep "^0 artifacts, 0 fetched" "$T/empty.txt"
cf artifacts scan >/dev/null
cf artifacts list >"$T/before.txt"
expect_grep "^3 artifacts, 0 fetched" "$T/before.txt"
grep -q "acme/conv#1 *model *- .*http://127.0.0.1:$port/m.onnx" "$T/before.txt" || fail "$(cat "$T/before.txt")"
grep -q "acme/conv#1 *script .*body, 3 lines" "$T/before.txt" || fail "no script row: $(cat "$T/before.txt")"
grep -q $'\x1b' "$T/before.txt" && fail "an escape sequence reached the terminal"
cf artifacts fetch --allow-private-hosts acme/conv#1 >/dev/null
cf artifacts list acme/conv#1 >"$T/after.txt"
expect_grep "^2 artifacts, 1 fetched (2.9 KB)" "$T/after.txt"
grep -q "model *ok *2.9 KB  ${sha:0:12}  http" "$T/after.txt" || fail "$(cat "$T/after.txt")"
cf artifacts list --json --kind model >"$T/list.json"
[ "$(jq length "$T/list.json")" = 2 ] || fail "$(cat "$T/list.json")"
jq -e --arg sha "$sha" '.[0] | .issue == "acme/conv#1" and .fetch_status == "ok" and
  .size_bytes == 3000 and .sha256 == $sha and (.local_path | length > 0) and .kind == "model"' \
  "$T/list.json" >/dev/null || fail "$(jq -c '.[0]' "$T/list.json")"
jq -e '.[1] | .issue == "acme/conv#2" and .fetch_status == null and .sha256 == null' \
  "$T/list.json" >/dev/null || fail "$(jq -c '.[1]' "$T/list.json")"
expect_exit 2 cf artifacts list --kind modle
expect_grep "kind must be model, archive, script or external_link" "$T/err"
expect_exit 1 cf artifacts list acme/conv#99
echo "ok: artifacts list before and after a fetch, by issue and kind, as JSON"
