#!/usr/bin/env bash
# The PyTorch repro harness run directly (no sandbox): each test script ends as expected.
# Usage: bash repro_torch_harness.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
HARNESS=$SRC/repro/torch_harness/harness.py
SCRIPTS=$SRC/tests/data/torch_scripts
$PY -c 'import torch, onnx' 2>/dev/null || skip "no torch/onnx for $PY"

# The shared helpers of every Python child (exec/python, on PYTHONPATH as python_worker_spec puts
# it): flatten keeps dict values in insertion order for harness and worker alike, the order
# torch.onnx.export gives the graph's outputs (the worker's sorted keys had compared a detection
# model's labels with its scores); graph_of names operators as C++'s op_graph does (DOMAIN:TYPE
# off the default domain); the worker and the harness save tensors through the one saver.
export PYTHONPATH=$SRC/exec/python
PYTHONPATH=$SRC/exec/python:$SRC/campaign/harness $PY -c '
import torch, child_tensors, campaign_worker
from onnx import helper
a, b = torch.zeros(1), torch.ones(2)
o = ({"z": a, "b": [b]}, a)
assert [t.numel() for t in child_tensors.flatten(o, [])] == [1, 2, 1]
assert [t.numel() for t in campaign_worker.flatten(o, [])] == [1, 2, 1]
g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["y"]),
                       helper.make_node("Gelu", ["y"], ["z"], domain="com.microsoft"),
                       helper.make_node("Relu", ["z"], ["w"], domain="ai.onnx")], "g", [], [])
ops, edges = campaign_worker.graph_of(helper.make_model(g))
assert ops == ["Add", "com.microsoft:Gelu", "Relu"], ops
assert edges == [[0, 1], [1, 2]], edges
assert campaign_worker.save_tensors is child_tensors.save_tensors
' || { echo "FAIL: shared Python helpers (flatten order, graph_of names, one saver)" >&2; exit 1; }

export TMPDIR=$T
fail=0
check() {  # check NAME PYTHON-EXPRESSION-ON-r(result)-AND-o(outdir)
  if ! $PY -c "import json,os,sys; o=sys.argv[1]; r=json.load(open(o+'/result.json')); sys.exit(0 if ($2) else 1)" "$T/out_$1"; then
    echo "FAIL $1: $2"; cat "$T/out_$1/result.json" 2>/dev/null; echo; fail=1
  else
    echo "ok   $1"
  fi
}
run() { timeout "${2:-120}" $PY "$HARNESS" "$SCRIPTS/$1.py" "$T/out_$1" >"$T/stdout_$1" 2>"$T/stderr_$1"; }

run export_ok
check export_ok "r['export_calls']==1 and 'exception' not in r and r['exports'][0]['inputs_match_graph'] and os.path.getsize(o+'/export_0/model.onnx')>0 and r['exports'][0]['eager_outputs']==['export_0/output_0.pb'] and r['torch_version'].startswith('1.')"
# stdout carries exactly the result line even though the script prints
[ "$(wc -l <"$T/stdout_export_ok")" = 1 ] && grep -q exported "$T/stderr_export_ok" || { echo "FAIL stdout not clean"; fail=1; }
# the eager output tensor is a readable TensorProto named after the graph output
$PY -c "import onnx,sys; from onnx import numpy_helper as nh; t=onnx.load_tensor(sys.argv[1]); a=nh.to_array(t); assert t.name=='probs' and a.shape==(2,5) and abs(a.sum()-2)<1e-4" "$T/out_export_ok/export_0/output_0.pb" || { echo "FAIL eager output tensor"; fail=1; }

run export_unsupported
check export_unsupported "r['exception']['frame']=='export' and r['exception']['type']=='UnsupportedOperatorError' and 'fft' in r['exception']['message'] and r['exports'][0]['model'] is None"

run wrong_symbolic
check wrong_symbolic "r['export_calls']==1 and 'exception' not in r and r['exports'][0]['outputs_match_graph']"
$PY -c "import onnx,sys; m=onnx.load(sys.argv[1]); assert 'Neg' in [n.op_type for n in m.graph.node]" "$T/out_wrong_symbolic/export_0/model.onnx" || { echo "FAIL wrong_symbolic has no Neg"; fail=1; }

run network
check network "r['exception']['frame']=='before_export' and r['export_calls']==0 and any('network' in b for b in r['blocked'])"

# given a working directory two levels down, "../../" is $T
mkdir -p "$T/w1/w2"
timeout 120 $PY "$HARNESS" "$SCRIPTS/writes_outside.py" "$T/out_writes_outside" --workdir "$T/w1/w2" \
  >"$T/stdout_writes_outside" 2>"$T/stderr_writes_outside"
check writes_outside "r['exception']['type']=='PermissionError' and any('outside' in b for b in r['blocked']) and r['exception']['where'].startswith('repro_script.py:')"
[ ! -e "$T/convfail_escape_marker.txt" ] || { echo "FAIL the script wrote outside its directory"; fail=1; }

run no_export
check no_export "r['export_calls']==0 and 'exception' not in r"

run missing_module
check missing_module "r['exception']['type']=='ModuleNotFoundError' and r['exception']['module']=='convfail_no_such_module'"

run truncated_old_api
check truncated_old_api "r['export_calls']==1 and 'exception' not in r and any(s.startswith('truncated to line 7') for s in r['shims']) and 'dropped export argument example_outputs' in r['shims']"

# the temporary working directories the harness made were deleted
[ -z "$(ls -d "$T"/convfail-script-* 2>/dev/null)" ] || { echo "FAIL working directory left behind"; fail=1; }

# a script that never ends: killed by the timeout, the phase file says where it was
run loops_forever 15
[ "$(cat "$T/out_loops_forever/phase" 2>/dev/null)" = script ] && [ ! -e "$T/out_loops_forever/result.json" ] ||
  { echo "FAIL loops_forever phase"; fail=1; }
exit $fail
