#!/usr/bin/env bash
# Big issues through every command that reads issue text: one whose body holds a 64 KB fenced
# code block, one with a 1 MB body (prose, tracebacks, code, links, stray fences). Each command
# must finish normally (no crash, no stack overflow) and all of them within 60 s.
# Usage: bash core_big_issue.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
build=$1
bin=$build/convfail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CONVFAIL_DB=$tmp/big.db TMPDIR=$tmp
fail() { echo "FAIL: $*" >&2; exit 1; }
# run NAME CMD...: the command must exit 0; its output is kept in $tmp/NAME.out.
run() {
  local name=$1
  shift
  "$bin" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local rc=$?
  [ $rc -eq 0 ] || fail "$name: exit $rc ($*): $(head -c 300 "$tmp/$name.err")"
}

python3 - "$tmp/big.jsonl" <<'PY' || fail "generating the issues"
import json, sys

def issue(number, title, body, comments=()):
    return {"repo": "bigco/big", "number": number, "title": title, "state": "open",
            "labels": ["module: onnx"], "author": "reporter",
            "created_at": "2024-01-02T03:04:05Z", "updated_at": "2024-01-02T03:04:05Z",
            "html_url": f"https://github.com/bigco/big/issues/{number}", "body": body,
            "comments": [{"author": a, "created_at": "2024-01-03T00:00:00Z", "body": b,
                          "author_association": "NONE"} for a, b in comments]}

# 1: one Python block of 64 KB (no export call, so reproduce --scripts stops at its static
# check), then a link and a shell block that converts a model, found only if the scan gets past
# the big block.
lines, i = [], 0
while sum(len(l) + 1 for l in lines) < 64 * 1024:
    lines.append(f"weight_{i} = [{i}, {i + 1}, {i + 2}]  # gigantoblock row {i}")
    i += 1
block = "\n".join(lines)
body1 = ("Exporting fails with a huge model definition.\n\n```python\n" + block + "\n```\n\n"
         "Model: https://github.com/bigco/big/files/123/model.zip\n\n"
         "```bash\npython -m tf2onnx.convert --saved-model m --output m.onnx\n```\n")
assert len(block) >= 64 * 1024

# 2: a 1 MB body mixing everything the splitters look at, plus unclosed and inline fences.
chunk = ("RuntimeError while exporting layer {n}: see `torch.onnx.export` output megabodyword.\n"
         "Traceback (most recent call last):\n"
         "  File \"/tmp/x{n}.py\", line {n}, in <module>\n"
         "    torch.onnx.export(m, x, \"m.onnx\")\n"
         "RuntimeError: Unsupported: ONNX export of operator grid_sampler {n}\n\n"
         "```python\nimport math\ny = math.sqrt({n})\n```\n\n"
         "    indented_{n} = 1\n\n"
         "inline ```fence``` in prose, https://example.com/w{n}.onnx and ``` an opener\n"
         "~~~ another opener\n{filler}\n~~~\n\n")
parts, n = [], 0
while sum(map(len, parts)) < 1024 * 1024:
    parts.append(chunk.format(n=n, filler="x" * 200))
    n += 1
body2 = "".join(parts) + "```\nunclosed to the end " + "y" * 5000
assert len(body2) >= 1024 * 1024

with open(sys.argv[1], "w") as f:
    f.write(json.dumps(issue(1, "Export of a model with a 64 KB code block", body1,
                             [("reporter", "```python\n" + block + "\n```\n")])) + "\n")
    f.write(json.dumps(issue(2, "Export of a model with a 1 MB body", body2,
                             [("someone", body2[:200000])])) + "\n")
PY

start=$(date +%s)
# The 1 MB body is just over import's default --max-field-mb of 1.
run import import --max-field-mb 2 "$tmp/big.jsonl"
run classify classify
run explain1 explain bigco/big#1
run explain2 explain bigco/big#2
run scan artifacts scan --json
run scan1 artifacts scan bigco/big#1
run scan2 artifacts scan bigco/big#2
run repro1 reproduce --scripts bigco/big#1 --json
run repro2 reproduce --scripts bigco/big#2 --json
run search1 search gigantoblock --json
run search2 search megabodyword --json
run show1 show bigco/big#1
run show2 show bigco/big#2 --json
elapsed=$(($(date +%s) - start))
[ "$elapsed" -le 60 ] || fail "the commands took ${elapsed}s (bound 60s)"

# The work was done, not skipped: artifacts past the big block, the verdicts, the search hits.
q() { sqlite3 "$CONVFAIL_DB" "$1"; }
[ "$(q "SELECT count(*) FROM artifacts a JOIN issues i ON i.id=a.issue_id WHERE i.number=1 AND a.kind='archive' AND a.url LIKE '%/files/123/model.zip'")" = 1 ] ||
  fail "the link after the 64 KB block was not found"
[ "$(q "SELECT count(*) FROM artifacts a JOIN issues i ON i.id=a.issue_id WHERE i.number=1 AND a.kind='script' AND a.code LIKE '%tf2onnx.convert%'")" = 1 ] ||
  fail "the shell block after the 64 KB block was not found"
[ "$(q "SELECT count(*) FROM artifacts a JOIN issues i ON i.id=a.issue_id WHERE i.number=2 AND a.kind='model'")" -gt 1000 ] ||
  fail "the links of the 1 MB body were not all found"
python3 - "$tmp/repro1.out" "$tmp/repro2.out" <<'PY' || fail "reproduce --scripts verdicts: $(cat "$tmp/repro1.out" "$tmp/repro2.out")"
import json, sys
for path in sys.argv[1:]:
    r = json.load(open(path))["results"][0]
    assert r["verdict"] == "not_runnable", r
    assert r["reason"] == "no export call", r
# Issue 1's script is the whole 64 KB block.
r = json.load(open(sys.argv[1]))["results"][0]
assert r["blocks"] == 1, r
PY
grep -q '"number": *1\b' "$tmp/search1.out" || fail "search did not find the 64 KB block's text"
grep -q '"number": *2\b' "$tmp/search2.out" || fail "search did not find the 1 MB body's text"
grep -q "weight_0 = " "$tmp/show1.out" || fail "show lacks the code block"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert len(j["body"]) >= 1<<20' "$tmp/show2.out" ||
  fail "show --json lost the 1 MB body"
grep -qi "symptom" "$tmp/explain2.out" || fail "explain printed no labels: $(head -c 300 "$tmp/explain2.out")"
echo "ok: big issues through every command in ${elapsed}s"
