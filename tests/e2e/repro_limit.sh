#!/usr/bin/env bash
# `reproduce --limit N` holds in every mode that runs more than one thing: --scripts --all (it ran
# every script), --scripts ISSUE, --all (models, then scripts), ISSUE (its models) and --suite;
# each prints and stores
# at most N results. --model runs one model and refuses --limit. Models here are files that do not
# parse and scripts have no export call, so nothing needs ONNX Runtime or torch.
# Usage: bash repro_limit.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 missing"
chmod 755 "$T"  # scratch directories go here; the sandbox runs as uid 65534
export TMPDIR=$T

# Six issues whose code uses torch but never exports (static not_runnable, nothing runs).
for n in 1 2 3 4 5 6; do
  printf '{"repo": "example/limit", "number": %d, "title": "t%d", "author": "a", "body": "```python\\nimport torch\\nprint(torch.zeros(%d))\\n```\\n", "comments": []}\n' "$n" "$n" "$n"
done >"$T/issues.jsonl"
cf import "$T/issues.jsonl" >/dev/null || fail "import"
runs() { sqlite3 "$DB" "SELECT count(*) FROM repro_runs"; }
total() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["totals"]["total"], len(d["results"]))' "$T/out"; }

expect_exit 0 cf reproduce --scripts --all --limit 3 --json
[ "$(total)" = "3 3" ] || fail "--scripts --all --limit 3 ran $(total) (totals, results): $(head -c 600 "$T/out")"
[ "$(runs)" = 3 ] || fail "--scripts --all --limit 3 stored $(runs) runs"
expect_exit 0 cf reproduce --scripts --all --limit 3
[ "$(grep -c '^example/limit#' "$T/out")" = 3 ] && expect_grep '^ran 3 scripts and 0 models: not_runnable 3$' "$T/out"
expect_exit 0 cf reproduce --scripts 'example/limit#2' --limit 1 --json
[ "$(total)" = "1 1" ] || fail "--scripts ISSUE --limit 1: $(total)"
expect_exit 0 cf reproduce --scripts --all --limit 0 --json
[ "$(total)" = "6 6" ] || fail "--scripts --all --limit 0 (all): $(total)"
echo "ok   --scripts --all --limit 3 runs and stores 3 of 6 scripts (0 = all)"

# Models: two fetched model artifacts on each of issues 1 and 2 (files that do not parse).
for i in 1 2 3 4; do printf 'not a model %d' "$i" >"$T/m$i.onnx"; done
sqlite3 "$DB" "INSERT INTO artifacts (issue_id, kind, url, local_path, fetch_status) VALUES
  (1, 'model', 'https://example.org/m1.onnx', '$T/m1.onnx', 'ok'),
  (1, 'model', 'https://example.org/m2.onnx', '$T/m2.onnx', 'ok'),
  (2, 'model', 'https://example.org/m3.onnx', '$T/m3.onnx', 'ok'),
  (2, 'model', 'https://example.org/m4.onnx', '$T/m4.onnx', 'ok')" || fail "artifacts"
before=$(runs)
expect_exit 0 cf reproduce --all --limit 3 --json
[ "$(total)" = "3 3" ] || fail "--all --limit 3: $(total)"
[ $(($(runs) - before)) = 3 ] || fail "--all --limit 3 stored $(($(runs) - before))"
expect_exit 0 cf reproduce 'example/limit#1' --limit 1 --json
[ "$(total)" = "1 1" ] || fail "ISSUE --limit 1: $(total)"
expect_exit 0 cf reproduce --all --models --json
[ "$(total)" = "4 4" ] || fail "--all --models without --limit: $(total)"
# Without --models, --all runs the models and then the six scripts.
expect_exit 0 cf reproduce --all --json
[ "$(total)" = "10 10" ] || fail "--all without --limit: $(total)"
echo "ok   --all --limit 3 and ISSUE --limit 1 run that many models; --all the scripts too"

mkdir -p "$T/suite/test_a" "$T/suite/test_b" "$T/suite/test_c"
for c in a b c; do printf 'x' >"$T/suite/test_$c/model.onnx"; done
expect_exit 0 cf reproduce --suite "$T/suite" --limit 2 --json
[ "$(total)" = "2 2" ] || fail "--suite --limit 2: $(total)"
expect_exit 2 cf reproduce --model "$T/m1.onnx" --limit 1
echo "ok   --suite --limit 2 runs 2 cases; --model refuses --limit (one model)"
