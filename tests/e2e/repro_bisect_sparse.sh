#!/usr/bin/env bash
# `convfail bisect` of a model whose external data file is a terabyte of holes (issue #49 item
# 11): refused at once by the one cap on a model's bytes (repro/model_files.h), before anything is
# read or installed; and a model under the cap that hashes slower than --timeout is refused when
# the timeout is up. Before: the terabyte was read as zeros (3.6 GB in 10 s), --timeout ignored.
# Usage: bash repro_bisect_sparse.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c 'import onnx' 2>/dev/null || skip "python3-onnx missing"
export CONVFAIL_ORT_CACHE=$T/ort-cache  # empty: nothing may be installed before the refusal
export npm_config_registry=http://127.0.0.1:9/
cf init >/dev/null || fail "init"
/usr/bin/python3 - "$T/m" <<'PY' || fail "cannot write the model"
import os, sys
import onnx
from onnx import TensorProto, helper
d = sys.argv[1]
os.makedirs(d)
w = helper.make_tensor("w", TensorProto.FLOAT, [4], [0.0] * 4)
w.ClearField("float_data")
w.data_location = TensorProto.EXTERNAL
w.external_data.add(key="location", value="w.bin")
g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [w])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)]), d + "/model.onnx")
PY
truncate -s 1T "$T/m/w.bin"

start=$(date +%s%N)
rc=0
timeout 60 "$BUILD/convfail" --db "$DB" --data-dir "$SRC/data" bisect "$T/m/model.onnx" \
  --releases 1.20.1 --timeout 5 >"$T/out" 2>"$T/err" || rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
[ "$rc" = 1 ] || fail "exit $rc after $ms ms (124: still hashing the terabyte): $(head -c 300 "$T/err")"
[ "$ms" -lt 5000 ] || fail "the refusal took $ms ms"
[ "$(wc -l <"$T/err")" = 1 ] || fail "not one line: $(cat "$T/err")"
expect_grep "w.bin its files hold more than 8 GiB, the cap on a model: refused" "$T/err"
[ ! -e "$T/ort-cache/1.20.1" ] || fail "a release was installed before the refusal"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM runtime_runs") $(sqlite3 "$DB" "SELECT count(*) FROM bisects")" = "0 0" ] ||
  fail "a run or a bisect was stored"
echo "ok   a terabyte sparse data file refused in $ms ms"

# Under the cap: 6 GiB of holes read at the disk's pace take longer than --timeout 1.
truncate -s 0 "$T/m/w.bin" && truncate -s 6G "$T/m/w.bin"
start=$(date +%s)
rc=0
timeout 120 "$BUILD/convfail" --db "$DB" --data-dir "$SRC/data" bisect "$T/m/model.onnx" \
  --releases 1.20.1 --timeout 1 >"$T/out" 2>"$T/err" || rc=$?
s=$(($(date +%s) - start))
if [ "$rc" = 1 ] && grep -q "took longer than the timeout (1 s)" "$T/err"; then
  [ "$s" -le 5 ] || fail "the timeout of 1 s stopped the hashing after $s s"
  echo "ok   hashing stopped by --timeout 1 after $s s"
else
  # A machine that reads 6 GiB of holes within a second gets as far as the install (refused:
  # no registry): the hashing was not what stopped it.
  grep -q "took longer" "$T/err" && fail "exit $rc: $(cat "$T/err")"
  [ "$rc" = 124 ] && fail "hashing 6 GiB ignored --timeout 1 (still running after 120 s)"
  echo "ok   6 GiB hashed within --timeout 1 ($s s): this machine is too fast to show the bound"
fi
