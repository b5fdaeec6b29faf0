#!/usr/bin/env bash
# The CLI conventions, walked over every subcommand: `convfail --help` lists each command on one
# line, every command (and sub-subcommand) has its own --help, every --json prints ONE JSON
# document, numeric options are range-checked and contradictory options refused (exit 2), and
# every command that takes an issue accepts OWNER/REPO#N and the issue URL alike.
# Usage: bash cli_conventions.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
build=$1 src=$2
bin=$build/convfail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/c.db
cf() { "$bin" --db "$db" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# Command names in a help text: the lines "  NAME   summary" under the group headings (option
# lines start with "  -", wrapped descriptions with more spaces).
command_names() { sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p'; }

"$bin" --help >"$tmp/help" || fail "convfail --help"
mapfile -t commands < <(command_names <"$tmp/help")
[ "${#commands[@]}" -ge 15 ] || fail "too few commands in --help: ${commands[*]}"
for group in Setup Collect Classify Label Reproduce Report; do
  grep -q "^$group:\$" "$tmp/help" || fail "--help lacks the group $group"
done
# Workflow order: init first, the report commands last.
[ "${commands[0]}" = init ] || fail "first command is ${commands[0]}"
[ "$(grep -n '^Reproduce:' "$tmp/help" | cut -d: -f1)" -lt "$(grep -n '^Report:' "$tmp/help" | cut -d: -f1)" ] ||
  fail "Report before Reproduce"

# Every command and sub-subcommand: its own --help, exit 0, non-empty, with a Usage line.
walked=0
for c in "${commands[@]}"; do
  "$bin" "$c" --help >"$tmp/h" 2>&1 || fail "$c --help exits $?"
  grep -q "^Usage: convfail $c" "$tmp/h" || fail "$c --help has no usage line"
  walked=$((walked + 1))
  for sub in $(sed -n '/^Subcommands:/,$p' "$tmp/h" | command_names); do
    "$bin" "$c" "$sub" --help >"$tmp/hs" 2>&1 || fail "$c $sub --help exits $?"
    grep -q "^Usage: convfail $c $sub" "$tmp/hs" || fail "$c $sub --help has no usage line"
    walked=$((walked + 1))
  done
done
echo "walked $walked help pages"

# The sample database: issues, one classifier run, manual labels of two annotators.
sample=("$src"/data/sample/*.json "$src"/data/sample/*.jsonl)
one_doc() {  # one_doc NAME: stdin must parse as exactly one JSON document
  python3 -c 'import json,sys; json.load(sys.stdin)' || fail "$1: not one JSON document"
}
cf import --json "${sample[@]}" | one_doc "import --json"
cf classify --json | one_doc "classify --json"
cf labels import --json --annotator A "$src/data/sample/labels.csv" | one_doc "labels import --json"
cf labels import --annotator B "$src/data/sample/labels.csv" >/dev/null || fail "labels import B"
ref=pytorch/pytorch#81234
url=https://github.com/pytorch/pytorch/issues/81234
cf label "$ref" --annotator B --symptom crash >/dev/null || fail "label"

# Every data-printing command with --json.
while IFS= read -r line; do
  read -r -a argv <<<"$line"
  cf "${argv[@]}" >"$tmp/out" 2>"$tmp/err" || fail "${argv[*]} exits $?: $(cat "$tmp/err")"
  one_doc "${argv[*]}" <"$tmp/out"
done <<EOF
import --json ${sample[*]}
list --json
list --json --repo pytorch/pytorch --repo onnx/tensorflow-onnx
show $ref --json
search onnx --json
stats --json
classify --json --repo pytorch/pytorch --repo onnx/tensorflow-onnx
eval --gold A --json
labels history $ref --json
explain $ref --json
labels export --json
labels export --format json
agreement --annotators A,B --json
artifacts scan --json
reproduce $ref --json
report --source A --json
opsets --json
opsets --issues --json --repo pytorch/pytorch
EOF

# Repeatable --repo: two repositories give the union of each one's issues.
n() { python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
a=$(cf list --json --repo pytorch/pytorch | n)
b=$(cf list --json --repo onnx/tensorflow-onnx | n)
ab=$(cf list --json --repo pytorch/pytorch --repo onnx/tensorflow-onnx | n)
[ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ "$ab" = $((a + b)) ] || fail "--repo twice: $a + $b != $ab"
classified=$(cf classify --json --repo pytorch/pytorch --repo onnx/tensorflow-onnx |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["issues"])')
[ "$classified" = "$ab" ] || fail "classify --repo twice classified $classified, want $ab"

# reproduce: --json is one document with results and totals; --jsonl streams lines.
cf reproduce "$ref" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["totals"]["total"] == len(d["results"]) == 1, d
assert d["results"][0]["issue"] == "pytorch/pytorch#81234", d' || fail "reproduce --json shape"
cf reproduce "$ref" --jsonl >"$tmp/jsonl" || fail "reproduce --jsonl"
python3 - "$tmp/jsonl" <<'PY' || fail "reproduce --jsonl shape"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 2 and lines[0]["issue"] == "pytorch/pytorch#81234", lines
assert lines[-1]["totals"]["total"] == 1, lines
PY

# explain --json: the issue key, every dimension with label, confidence, scores and evidence.
cf explain "$ref" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert (d["repo"], d["number"]) == ("pytorch/pytorch", 81234), d
assert set(d["dimensions"]) == {"symptom", "cause", "stage"}, d["dimensions"].keys()
for dim in d["dimensions"].values():
    assert {"label", "confidence", "scores", "evidence"} <= set(dim), dim
    for e in dim["evidence"]:
        assert e["span_end"] - e["span_start"] == len(e["matched_text"].encode()), e
assert d["dimensions"]["symptom"]["evidence"], d' || fail "explain --json shape"

# labels export: --json / --format json is one array of the objects --format jsonl streams.
cf labels export --format jsonl >"$tmp/labels.jsonl" || fail "labels export --format jsonl"
cf labels export --json >"$tmp/labels.json" || fail "labels export --json"
python3 - "$tmp/labels.json" "$tmp/labels.jsonl" <<'PY' || fail "labels export --json shape"
import json, sys
array = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2])]
assert isinstance(array, list) and len(array) > 0 and array == lines, (len(array), len(lines))
PY

# Ranges and contradictions: exit 2 with "convfail: ..." first.
expect2() {
  cf "$@" >/dev/null 2>"$tmp/err"
  local rc=$?
  [ $rc = 2 ] || fail "$* exits $rc, want 2: $(cat "$tmp/err")"
  head -1 "$tmp/err" | grep -q '^convfail: ' || fail "$*: message $(cat "$tmp/err")"
}
expect2 report --json --format md
expect2 labels export --json --format csv
expect2 labels export --format xml
expect2 reproduce "$ref" --all
expect2 reproduce --model "$src/data/sample/labels.csv" --suite "$src/data/sample"
expect2 reproduce --all --limit -1
expect2 reproduce --all --timeout 0
expect2 reproduce --all --atol -1
expect2 reproduce --all --json --jsonl
expect2 reproduce --scripts --script-timeout -5 "$ref"
expect2 mutate --suite "$src/data/sample" --limit -1
expect2 list --limit -1
expect2 search onnx --limit -1
expect2 stats --top -1
expect2 annotate --annotator A --size 0
expect2 crawl a/b --concurrency 0
expect2 crawl a/b --preset jajal2024
expect2 crawl a/b --max-retries -1
expect2 artifacts fetch --max-bytes 0
expect2 opsets --repo pytorch/pytorch

# One issue parser: the short form and the URL give the same output in every command.
cf show "$ref" >"$tmp/s1" && cf show "$url/" >"$tmp/s2" && cmp -s "$tmp/s1" "$tmp/s2" || fail "show URL"
cf explain "$ref" >"$tmp/e1" && cf explain "$url?x=1#top" >"$tmp/e2" && cmp -s "$tmp/e1" "$tmp/e2" ||
  fail "explain URL"
cf artifacts scan "$ref" >"$tmp/a1" && cf artifacts scan "$url" >"$tmp/a2" && cmp -s "$tmp/a1" "$tmp/a2" ||
  fail "artifacts scan URL"
cf labels history "$url" --json | one_doc "labels history URL"
cf reproduce "https://github.com/pytorch/pytorch/pull/81234" --json | one_doc "reproduce pull URL"
# reproduce --scripts: an issue not in the store is exit 1 in either form (parsed, then looked
# up) -- no script runs.
for r in pytorch/pytorch#1 https://github.com/pytorch/pytorch/issues/1; do
  cf reproduce --scripts "$r" >/dev/null 2>"$tmp/err"
  [ $? = 1 ] && grep -q "issue pytorch/pytorch#1 is not in the store" "$tmp/err" ||
    fail "reproduce --scripts $r: $(cat "$tmp/err")"
done
# A malformed reference is exit 2 with the same message in every command.
for args in "show" "explain" "reproduce" "reproduce --scripts" "artifacts scan" "labels history" \
  "label --annotator A --symptom crash"; do
  read -r -a argv <<<"$args"
  cf "${argv[@]}" "https://github.com/py torch/x/issues/1" >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc = 2 ] && grep -q "bad issue reference 'https://github.com/py torch/x/issues/1'" "$tmp/err" ||
    fail "$args with a bad reference: exit $rc, $(cat "$tmp/err")"
done
echo ok
