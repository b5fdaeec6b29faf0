#!/usr/bin/env bash
# Issue 15 for search: a query over 1,000 characters is refused at once with one line; a query
# starting with '-' works after `--`; long bodies and long queries answer in bounded time.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

python3 - "$T/i.jsonl" <<'PY'
import json, sys
body = " ".join("onnx export w%d" % (k % 150) for k in range(3300))
with open(sys.argv[1], "w") as f:
    for n in range(1, 35):
        f.write(json.dumps({"repo": "acme/conv", "number": n, "title": "Synthetic onnx %d" % n if n % 2 else "Synthetic %d" % n, "body": body}) + "\n")
PY
cf import "$T/i.jsonl" >/dev/null

q=$(head -c 8192 /dev/zero | tr '\0' 'x')
start=$(date +%s%N)
expect_exit 2 cf search "$q"
expect_grep "the search query is 8192 characters long; the limit is 1000" "$T/err"
[ $(( ($(date +%s%N) - start) / 1000000 )) -lt 2000 ] || fail "refusing a long query took over 2 s"

# A leading '-': an option to CLI11 unless after `--` (FTS5: match outside titles).
expect_exit 0 cf search --fts --limit 100 -- -title:onnx
[ "$(grep -c '^ *[0-9]*\. acme/conv#' "$T/out")" = 34 ] || fail "-title:onnx: $(head -c 300 "$T/out")"
expect_exit 0 cf search --fts --limit 100 -- title:onnx
[ "$(grep -c '^ *[0-9]*\. acme/conv#' "$T/out")" = 17 ] || fail "title:onnx: $(head -c 300 "$T/out")"
cf search --help >"$T/out"
expect_grep "convfail search --fts -- -title:onnx" "$T/out"

# Near-limit queries on 34 bodies of 60 KB: many distinct words, and one word repeated.
distinct=$(python3 -c 'print(" ".join("w%d" % (k % 150) for k in range(160))[:1000])')
repeated=$(python3 -c 'print(("onnx " * 200)[:1000])')
for query in "$distinct" "$repeated"; do
  start=$(date +%s%N)
  expect_exit 0 cf search --json "$query"
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  python3 -c 'import json,sys; h=json.load(open(sys.argv[1])); assert len(h) == 20 and "[" in h[0]["snippets"][0]["text"], h[:1]' "$T/out"
  echo "query of ${#query} characters: $ms ms"
  [ "$ms" -lt 5000 ] || fail "search took $ms ms"
done
