#!/usr/bin/env bash
# Issue 28 item 4: search takes code. Each word is searched as written (FTS5 syntax only with
# --fts), so the queries a user pastes from a traceback find their issue, in the CLI and the web.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

python3 - "$T/i.jsonl" <<'PY'
import json, sys
rows = [
    (1, "Synthetic: call torch.onnx.export fails", "calling torch.onnx.export on the model raises"),
    (2, "Synthetic: the tool says it can't export", "error: can't export this graph"),
    (3, "Synthetic: opset", "with opset_version=11 the Resize node is wrong"),
    (4, "Synthetic: Keras layer", "model.add(Conv2D(32, 3)) then converting fails"),
    (5, "Synthetic: unsupported aten op", "Exporting the operator aten::zero to ONNX is not supported"),
    (6, "Synthetic: unrelated", "nothing to see: export onnx torch opset version conv"),
]
with open(sys.argv[1], "w") as f:
    for n, title, body in rows:
        f.write(json.dumps({"repo": "acme/conv", "number": n, "title": title, "body": body}) + "\n")
PY
cf import "$T/i.jsonl" >/dev/null

# QUERY -> the issue numbers it must find (in any order).
check() {
  local want=$1
  shift
  expect_exit 0 cf search --json "$@"
  got=$(python3 -c 'import json,sys; print(" ".join(sorted(str(h["number"]) for h in json.load(open(sys.argv[1])))))' "$T/out")
  [ "$got" = "$want" ] || fail "search $*: issues '$got', expected '$want' ($(head -c 300 "$T/err"))"
  echo "search $*: $got"
}
check 1 torch.onnx.export
check 2 "can't export"
check 3 opset_version=11
check 4 'Conv2D('
check 5 'aten::zero'
check 5 '"aten::zero to ONNX"'      # a quoted phrase stays a phrase
check 1 TORCH.onnx.EXPORT torch.onnx.export  # repeated words in any case count once
# FTS5 syntax behind --fts: operators work, code is a syntax error naming the query.
check "1 5" --fts '"torch.onnx.export" OR "aten::zero"'
expect_exit 1 cf search --fts torch.onnx.export
expect_grep 'cannot run search query' "$T/err"
[ "$(wc -l <"$T/err")" = 1 ] || fail "more than one line: $(cat "$T/err")"
# Nothing to search for: a usage error, one line.
expect_exit 2 cf search '( ::'
expect_grep 'no letter or digit' "$T/err"

# The web search follows the same rule.
source "$(dirname "$0")/lib_web.sh"
start_server
for q in torch.onnx.export "can't export" opset_version=11 "Conv2D(" aten::zero; do
  enc=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$q")
  curl -sS --noproxy '*' --max-time 30 -o "$T/web.json" -w '%{http_code}' "$URL/api/issues?q=$enc" >"$T/code"
  [ "$(cat "$T/code")" = 200 ] || fail "web q=$q: HTTP $(cat "$T/code") $(head -c 300 "$T/web.json")"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["total"] == 1, d' "$T/web.json" ||
    fail "web q=$q: $(head -c 300 "$T/web.json")"
done
echo "core_search_code: ok"
