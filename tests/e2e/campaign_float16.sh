#!/usr/bin/env bash
# Float16 on an ONNX Runtime release whose Node binding holds no float16 tensor (1.14.0, the
# study's era; installed into BUILD_DIR/ort-cache once, like repro_bisect.sh's releases, and the
# oldest release the tests install): the float16 model tests/data/campaign/fp16.py runs to success
# there, fed and read as float32 through Casts at its boundary, compared as float16, and its row
# says so (campaign_models.harness_note); before, it was "invalid: not runnable: runner:
# Unsupported tensor type: float16". `reproduce --ort 1.14.0` runs its exported model the same
# way. What the harness still cannot run is not_run with its reason, never invalid: the same
# model with its weight in external data (the wrapped copy could not reach the data file).
# Usage: bash campaign_float16.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
command -v npm >/dev/null || skip "npm missing"
chmod 755 "$T"  # scratch directories go here; the sandbox runs as uid 65534
export TMPDIR=$T
export CONVFAIL_ORT_CACHE=$BUILD/ort-cache
OLD=1.14.0
cf init >/dev/null || fail "init"
if [ ! -d "$CONVFAIL_ORT_CACHE/$OLD" ]; then
  cf runtimes install "$OLD" >"$T/out" 2>"$T/err" ||
    skip "cannot install onnxruntime-node $OLD: $(head -c 300 "$T/err")"
fi
S="script:$SRC/tests/data/campaign/fp16.py"
q() { sqlite3 "$DB" "$1"; }

expect_exit 0 cf test run --source "$S" --ort "$OLD" --jobs 1 --inputs 2 --no-minimise --json
jq -e --arg v "$OLD" '.versions.onnxruntime == $v and .outcomes.success == 1 and
  .outcomes.invalid == 0 and .outcomes.not_run == 0 and .harness_notes == 1' "$T/out" >/dev/null ||
  fail "fp16.py on $OLD: $(head -c 1500 "$T/out") $(q 'SELECT outcome, message FROM campaign_models')"
note=$(q "SELECT harness_note FROM campaign_models")
case $note in
  "float16 inputs input_0, input_1 and outputs output_0, output_1 fed and read as float32 through Cast nodes at the model's boundary (ONNX Runtime $OLD's Node binding holds no float16), compared as float16") ;;
  *) fail "harness_note: '$note'" ;;
esac
[ "$(q "SELECT max_abs_diff FROM campaign_models")" = 0.0 ] || fail "not exact: $(q 'SELECT * FROM campaign_models')"
echo "ok   fp16.py on $OLD: success, fed through boundary Casts, and the row says so"

# The same campaign on the pinned release, whose binding holds float16: run as exported, no note.
expect_exit 0 cf test run --source "$S" --jobs 1 --inputs 2 --no-minimise --json
jq -e '.outcomes.success == 1 and .harness_notes == 0' "$T/out" >/dev/null ||
  fail "fp16.py pinned: $(head -c 1500 "$T/out")"
echo "ok   on the pinned release the model runs as exported (no note)"

# reproduce (repro/) runs the stored model the same way: a verdict, not not_runnable.
sha=$(q "SELECT model_sha256 FROM campaign_models LIMIT 1")
M=$T/convfail-data/models/$sha
expect_exit 0 cf reproduce --model "$M/model.onnx" --inputs "$M/set_1" --ort "$OLD" --json
jq -e '.results[0] | .verdict == "not_reproduced" and
  (.harness_note | test("fed and read as float32"))' "$T/out" >/dev/null ||
  fail "reproduce --ort $OLD: $(head -c 1500 "$T/out")"
# A wrong reference is found: the comparison is the float16 one, not agreement by construction.
cp -r "$M/set_1" "$T/wrong" && chmod -R a+rX "$T/wrong"
/usr/bin/python3 - "$T/wrong/output_0.pb" <<'PY' || fail "could not write the wrong reference"
import sys, numpy as np, onnx
from onnx import numpy_helper
t = onnx.load_tensor(sys.argv[1])
a = numpy_helper.to_array(t).copy()
a.flat[0] = np.float16(a.flat[0]) + np.float16(0.25)
onnx.save_tensor(numpy_helper.from_array(a, t.name), sys.argv[1])
PY
expect_exit 0 cf reproduce --model "$M/model.onnx" --inputs "$T/wrong" --ort "$OLD" --json
jq -e '.results[0] | .verdict == "wrong_output_reproduced" and
  (.signature | test("1 of 12 elements differ"))' "$T/out" >/dev/null ||
  fail "reproduce of a wrong float16 reference: $(head -c 1500 "$T/out")"
echo "ok   reproduce --ort $OLD: the float16 model runs, and a wrong float16 reference is found"

# What the harness cannot run is not_run with the reason: the weight in an external data file
# (the wrapped copy of the model cannot reach it).
expect_exit 0 cf test run --source "$S" --ort "$OLD" --external-data-export --jobs 1 --inputs 1 \
  --no-minimise --json
jq -e '.outcomes.not_run == 1 and .outcomes.invalid == 0 and .groups == 0 and
  (.not_run_reasons[0].reason | test("holds no float16.*external data"))' "$T/out" >/dev/null ||
  fail "external data on $OLD: $(head -c 1500 "$T/out")"
c=$(jq .campaign "$T/out")
expect_exit 0 cf test status --campaign "$c"
expect_grep '^  not_run  *1 ' "$T/out"
expect_grep '^    1: not run: ONNX Runtime 1.14.0' "$T/out"
expect_exit 0 cf test report --campaign "$c" --format csv
expect_grep '^not_run,' "$T/out"
expect_grep ',Not run,1$' "$T/out"
echo "ok   a model the harness cannot run is not_run with its reason (status, report), no group"
