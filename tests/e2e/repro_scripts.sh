#!/usr/bin/env bash
# `convfail reproduce --scripts`: the test scripts end with their expected verdicts under the
# sandbox and ONNX Runtime; issue scripts (body, else the reporter's comments) are stored with the
# torch version. Usage: bash repro_scripts.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
CF=$BUILD/convfail
SCRIPTS=$SRC/tests/data/torch_scripts
$PY -c 'import torch, onnx' 2>/dev/null || skip "no torch/onnx for $PY"
command -v node >/dev/null && [ -d "$SRC/exec/runner/node_modules/onnxruntime-node" ] ||
  skip "onnxruntime-node not installed (scripts/install-deps.sh)"

PY_HAS_ORT=$($PY -c 'import onnxruntime' 2>/dev/null && echo True || echo False)
export TMPDIR=$T CONVFAIL_DB=$T/test.db
fail=0
expect() {  # expect SCRIPT PYTHON-CONDITION-ON-j [extra options]
  local name=$1 cond=$2
  shift 2
  "$CF" reproduce --scripts --script-file "$SCRIPTS/$name.py" --json "$@" >"$T/$name.json" 2>"$T/$name.err"
  if $PY -c "import json,sys; j=json.load(open(sys.argv[1]))['results'][0]; sys.exit(0 if ($cond) else 1)" "$T/$name.json"; then
    echo "ok   $name"
  else
    echo "FAIL $name: $cond"; cat "$T/$name.json" "$T/$name.err"; fail=1
  fi
}

expect export_ok "j['verdict']=='not_reproduced' and j['torch_version'].startswith('1.') and j['ort_version']!='' and j['max_abs_error'] is not None and j['max_abs_error']<1e-4"
expect export_unsupported "j['verdict']=='crash_reproduced' and j['step']=='export' and 'fft' in j['signature']"
expect wrong_symbolic "j['verdict']=='wrong_output_reproduced' and j['step']=='compare' and j['max_abs_error']>0.1"
expect loops_forever "j['verdict']=='not_runnable' and j['reason']=='timeout in script' and j['duration_ms']<60000" --script-timeout 15
expect network "j['verdict']=='not_runnable' and j['reason'].startswith('blocked: network access')"
expect writes_outside "j['verdict']=='not_runnable' and j['reason']=='blocked: write outside working directory'"
[ ! -e "$T/convfail_escape_marker.txt" ] || { echo "FAIL writes_outside escaped"; fail=1; }
expect no_export "j['verdict']=='not_runnable' and j['reason']=='no export call' and j['torch_version']==''"
expect missing_module "j['verdict']=='not_runnable' and j['reason']=='missing module: convfail_no_such_module'"
expect truncated_old_api "j['verdict']=='not_reproduced' and 'dropped export argument example_outputs' in j['shims']"
expect compares_with_ort "j['verdict']=='not_reproduced' and ('stubbed module onnxruntime' in j.get('shims', []) or $PY_HAS_ORT)"
# every scratch directory (script, working directory, exported files) is gone
[ -z "$(ls -d "$T"/convfail-script-* 2>/dev/null)" ] || { echo "FAIL scratch directories left"; fail=1; }

# Issues: #1 has the code in its body, #2 only in a comment of its reporter (a comment of someone
# else comes first and must be ignored), #3 has no code.
$PY - "$SCRIPTS" >"$T/issues.jsonl" <<'PYEOF'
import json, sys
d = sys.argv[1]
code = lambda n: "```python\n" + open(f"{d}/{n}.py").read() + "```\n"
rows = [
    {"repo": "example/torchrepro", "number": 1, "title": "relu exported wrong", "author": "ann",
     "body": "Steps:\n" + code("wrong_symbolic") + "Expected the same output.", "comments": []},
    {"repo": "example/torchrepro", "number": 2, "title": "fft", "author": "bo", "body": "see below",
     "comments": [{"author": "carl", "body": code("export_ok")},
                  {"author": "bo", "body": "Here:\n" + code("export_unsupported")}]},
    {"repo": "example/torchrepro", "number": 3, "title": "question", "author": "dee",
     "body": "How do I export?", "comments": []},
]
for r in rows:
    print(json.dumps(r))
PYEOF
"$CF" import "$T/issues.jsonl" >/dev/null || { echo "FAIL import"; exit 1; }
"$CF" reproduce --scripts example/torchrepro#1 >"$T/one.txt" 2>&1 || { echo "FAIL issue run"; cat "$T/one.txt"; fail=1; }
grep -q "example/torchrepro#1  wrong_output_reproduced" "$T/one.txt" || { echo "FAIL issue #1 line"; cat "$T/one.txt"; fail=1; }
"$CF" reproduce --scripts --all --json >"$T/all.json" 2>"$T/all.err" || { echo "FAIL --all"; cat "$T/all.err"; fail=1; }
$PY - "$T/all.json" <<'PYEOF' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
by = {l["issue"]: l for l in doc["results"]}
assert set(by) == {"example/torchrepro#1", "example/torchrepro#2"}, by.keys()
assert by["example/torchrepro#2"]["verdict"] == "crash_reproduced", by
assert by["example/torchrepro#2"]["script_source"] == "comments", by
assert doc["totals"]["total"] == 2, doc["totals"]
print("ok   --all")
PYEOF
sqlite3 "$CONVFAIL_DB" "SELECT i.number, r.verdict, r.step, r.script_source, length(r.script_sha256), r.torch_version IS NOT NULL, r.ort_version IS NOT NULL FROM repro_runs r JOIN issues i ON i.id = r.issue_id ORDER BY r.id" >"$T/rows.txt"
expected="1|wrong_output_reproduced|compare|body|64|1|1
1|wrong_output_reproduced|compare|body|64|1|1
2|crash_reproduced|export|comments|64|1|0"
[ "$(cat "$T/rows.txt")" = "$expected" ] && echo "ok   stored rows" || { echo "FAIL stored rows:"; cat "$T/rows.txt"; fail=1; }

# After `artifacts scan`, --all selects the same issues, and each run links the script artifact
# that actually ran: #2's is the reporter's fft block, not the first block of its thread (carl's).
"$CF" artifacts scan >/dev/null || { echo "FAIL artifacts scan"; fail=1; }
"$CF" reproduce --scripts --all --jsonl >"$T/scanned.json" 2>"$T/scanned.err" || { echo "FAIL --all after scan"; cat "$T/scanned.err"; fail=1; }
grep -q "no script artifacts stored" "$T/scanned.err" && { echo "FAIL --all ignored the scan"; fail=1; }
$PY - "$T/all.json" "$T/scanned.json" <<'PYEOF' || fail=1
import json, sys
one = sorted((j["issue"], j["verdict"]) for j in json.load(open(sys.argv[1]))["results"])
lines = [json.loads(l) for l in open(sys.argv[2])]  # --jsonl: results, then {"totals": ...}
streamed = sorted((j["issue"], j["verdict"]) for j in lines[:-1])
assert one == streamed and lines[-1]["totals"]["total"] == len(one), (one, lines)
print("ok   --all after scan selects the same issues")
PYEOF
sqlite3 "$CONVFAIL_DB" "SELECT i.number, a.source_field, instr(a.code, 'fft') > 0 FROM repro_runs r JOIN issues i ON i.id = r.issue_id JOIN artifacts a ON a.id = r.artifact_id ORDER BY r.id" >"$T/linked.txt"
# Both --all runs link them: --all scans the issues itself before it selects.
expected="1|body|0
2|comment:1|1
1|body|0
2|comment:1|1"
[ "$(cat "$T/linked.txt")" = "$expected" ] && echo "ok   runs link the artifact that ran" || { echo "FAIL artifact links:"; cat "$T/linked.txt"; fail=1; }

# bad arguments: one clear line, non-zero exit
"$CF" reproduce --scripts nosuch/repo#9 2>"$T/e1"; [ $? = 1 ] && grep -q "not in the store" "$T/e1" || { echo "FAIL unknown issue"; fail=1; }
"$CF" reproduce --scripts 2>"$T/e2"; [ $? = 2 ] || { echo "FAIL no selection"; cat "$T/e2"; fail=1; }
"$CF" reproduce --scripts --model "$SCRIPTS/export_ok.py" 2>"$T/e3"; [ $? = 2 ] || { echo "FAIL --model with --scripts"; fail=1; }
exit $fail
