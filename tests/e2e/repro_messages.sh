#!/usr/bin/env bash
# Repro verdicts show people the real error, not only the normalised signature (kept for
# grouping): `reproduce` prints the message under each verdict line (and, for scripts, the first
# lines of the traceback), `--json` has the keys "message" and "traceback", repro_runs stores
# both, and `show` prints them under the issue. A hostile script's exception (escape sequences,
# 100 KB, a token) is stored cut and escaped, and reaches no terminal raw.
# Usage: bash repro_messages.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
$PY -c 'import torch, onnx' 2>/dev/null || skip "no torch/onnx for $PY"
command -v sqlite3 >/dev/null || skip "sqlite3 missing"
chmod 755 "$T"  # scratch directories go here; the sandbox runs as uid 65534
export TMPDIR=$T
cf init >/dev/null || fail "init"

# 1. A model the ONNX checker refuses: its input type has no element type.
$PY - "$T/bad_add.onnx" <<'PYEOF'
import sys, onnx
from onnx import helper, TensorProto
x = onnx.ValueInfoProto()
x.name = "x"
x.type.tensor_type.SetInParent()
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["y"])], "g", [x], [y])
open(sys.argv[1], "wb").write(helper.make_model(g).SerializeToString())
PYEOF
expect_exit 0 cf reproduce --model "$T/bad_add.onnx"
cp "$T/out" "$T/model.txt"
expect_grep "bad_add.onnx  crash_reproduced \[checker\]  field '<name>' of '<name>' is required" "$T/model.txt"
expect_grep "^    message: Field 'elem_type' of 'type' is required but missing\.$" "$T/model.txt"
expect_exit 0 cf reproduce --model "$T/bad_add.onnx" --json
$PY - "$T/out" <<'PYEOF' || fail "reproduce --model --json: $(cat "$T/out")"
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["message"] == "Field 'elem_type' of 'type' is required but missing.", r
assert r["traceback"] is None, r
assert r["signature"].startswith("field '<name>' of '<name>'"), r
PYEOF
[ "$(sqlite3 "$DB" "SELECT count(*) FROM repro_runs WHERE message = 'Field ''elem_type'' of ''type'' is required but missing.'")" = 2 ] ||
  fail "model message not stored: $(sqlite3 "$DB" 'SELECT message FROM repro_runs')"
echo "ok   model run: the checker's message printed, in --json and stored"

# 2. Scripts: a NameError two calls deep, and a hostile exception.
$PY - "$T/issues.jsonl" <<'PYEOF'
import json, sys
name_error = '''import torch

def build():
    return helper_that_does_not_exist(3)

def main():
    return build()

model = main()
torch.onnx.export(model, torch.zeros(1), "m.onnx")
'''
hostile = '''import torch
secret = "ghp_" + "k" * 36
raise RuntimeError("\\x1b]0;owned\\x07\\x1b[2J" + secret + " " + "A" * 100000 + "\\nline two")
torch.onnx.export(torch.nn.Linear(1, 1), torch.zeros(1, 1), "m.onnx")
'''
with open(sys.argv[1], "w") as f:
    for n, (title, code) in enumerate([("name error", name_error), ("hostile", hostile)], 1):
        f.write(json.dumps({"repo": "example/messages", "number": n, "title": title,
                            "author": "ann", "body": "```python\n" + code + "```\n",
                            "comments": []}) + "\n")
PYEOF
cf import "$T/issues.jsonl" >/dev/null || fail "import"
expect_exit 0 cf reproduce --scripts 'example/messages#1'
cp "$T/out" "$T/script.txt"
expect_grep "^example/messages#1  not_runnable  \[script\]  nameerror: name '<name>' is not defined  script failed before export: NameError$" "$T/script.txt"
expect_grep "^    message: NameError: name 'helper_that_does_not_exist' is not defined$" "$T/script.txt"
expect_grep "^    traceback: Traceback (most recent call last):$" "$T/script.txt"
expect_grep '^                 File "repro_script.py", line 4, in build$' "$T/script.txt"
expect_grep '^                   return helper_that_does_not_exist(3)$' "$T/script.txt"
if grep -q "harness.py\|runpy" "$T/script.txt"; then fail "harness frames in the traceback: $(cat "$T/script.txt")"; fi
echo "ok   script run: exception message and traceback printed under the verdict"

expect_exit 0 cf reproduce --scripts 'example/messages#2' --json
$PY - "$T/out" <<'PYEOF' || fail "hostile script --json: $(head -c 3000 "$T/out")"
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
m = r["message"]
assert m.startswith("RuntimeError: \\x1b]0;owned\\x07\\x1b[2J<token> AAAA"), m[:200]
assert "\x1b" not in m and "ghp_" not in m, "raw escape or token in the message"
assert len(m.encode()) <= 2003 and m.endswith("..."), len(m)
assert r["traceback"].startswith("Traceback (most recent call last):\n  File \"repro_script.py\", line 3"), r["traceback"]
PYEOF
echo "ok   hostile exception: cut to 2,000 bytes, escaped, token removed (--json)"

# 3. Stored, and shown by `show` (text and --json).
sqlite3 "$DB" "SELECT i.number, r.message IS NOT NULL, r.traceback LIKE 'Traceback (most recent call last):%' FROM repro_runs r JOIN issues i ON i.id = r.issue_id ORDER BY r.id" >"$T/rows.txt"
[ "$(cat "$T/rows.txt")" = "1|1|1
2|1|1" ] || fail "stored rows: $(cat "$T/rows.txt")"
[ "$(sqlite3 "$DB" "SELECT max(length(CAST(message AS BLOB))) <= 2003 AND max(length(CAST(traceback AS BLOB))) <= 4003 FROM repro_runs")" = 1 ] ||
  fail "stored texts not cut"
expect_exit 0 cf show 'example/messages#1'
cp "$T/out" "$T/show1.txt"
expect_grep "^Repro runs (1):$" "$T/show1.txt"
expect_grep "script  not_runnable \[script\]  script failed before export: NameError  nameerror" "$T/show1.txt"
expect_grep "^      message: NameError: name 'helper_that_does_not_exist' is not defined$" "$T/show1.txt"
expect_grep '^                   File "repro_script.py", line 7, in main$' "$T/show1.txt"
expect_exit 0 cf show 'example/messages#2'
cp "$T/out" "$T/show2.txt"
expect_grep "^      message: RuntimeError: \\\\x1b\]0;owned\\\\x07" "$T/show2.txt"
if grep -q $'\x1b' "$T/show2.txt" "$T/script.txt" "$T/model.txt"; then fail "a raw ESC reached the terminal"; fi
expect_exit 0 cf show 'example/messages#1' --json
$PY - "$T/out" <<'PYEOF' || fail "show --json: $(cat "$T/out")"
import json, sys
runs = json.load(open(sys.argv[1]))["repro"]
assert len(runs) == 1, runs
assert runs[0]["message"] == "NameError: name 'helper_that_does_not_exist' is not defined", runs
assert 'line 4, in build' in runs[0]["traceback"] and runs[0]["step"] == "script", runs
PYEOF
echo "ok   stored in repro_runs; show prints message and traceback, show --json has them"
