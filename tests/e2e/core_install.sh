#!/usr/bin/env bash
# `cmake --install` gives a convfail that needs nothing from the checkout: installed under a
# temporary prefix and run from another folder with the source and build trees hidden
# (bubblewrap mounts empty folders over them), it imports the installed sample, classifies,
# reports and re-executes a tiny ONNX model. Also: what is (not) installed, the lookup order
# (environment, then --data-dir), and the one-line error when no data folder is found.
# Usage: bash core_install.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v bwrap >/dev/null || skip "bubblewrap missing (scripts/install-deps.sh)"
bwrap --dev-bind / / true 2>/dev/null || skip "bubblewrap cannot create a mount namespace here"
py=
for p in /usr/bin/python3 python3; do
  if "$p" -c 'import onnx' 2>/dev/null; then py=$p && break; fi
done
[ -n "$py" ] || skip "no python3 with the onnx module"
case $T in "$SRC"/* | "$BUILD"/*) skip "the temp dir $T is inside the checkout" ;; esac

# The build's --help names no path of the checkout.
"$BUILD/convfail" --help >"$T/help"
if grep -F -- "$SRC" "$T/help"; then fail "--help prints a source path"; fi
expect_grep "share/convfail/data" "$T/help"

P=$T/prefix
cmake --install "$BUILD" --prefix "$P" >"$T/install.log" || fail "install: $(tail -5 "$T/install.log")"
share=$P/share/convfail
for f in bin/convfail share/convfail/data/taxonomy.json share/convfail/data/opset_releases.json \
  share/convfail/data/rules/cause.json share/convfail/data/sample/labels.csv \
  share/convfail/runner/runner.js share/convfail/runner/package.json \
  share/convfail/runner/package-lock.json share/convfail/torch_harness/harness.py; do
  [ -f "$P/$f" ] && [ ! -L "$P/$f" ] || fail "not installed as a file: $f"
done
[ ! -L "$share/data" ] || fail "the data folder was installed as a link"
[ ! -e "$P/bin/fake-github" ] || fail "fake-github (test-only) was installed"
have_ort=0
if [ -d "$SRC/exec/runner/node_modules/onnxruntime-node" ]; then
  have_ort=1
  [ -d "$share/runner/node_modules/onnxruntime-node" ] || fail "node_modules not installed"
fi

# A tiny model: Z = X + Y on float[2,3].
mkdir -p "$T/work"
"$py" - "$T/work/add.onnx" <<'PY'
import sys
from onnx import TensorProto, helper, save
t = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3])
graph = helper.make_graph([helper.make_node("Add", ["X", "Y"], ["Z"])], "add",
                          [t("X"), t("Y")], [t("Z")])
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8),
     sys.argv[1])
PY

# The installed binary, run from $T/work with the checkout hidden and no override set.
hidden() {
  env -u CONVFAIL_DATA_DIR -u CONVFAIL_RUNNER_DIR -u CONVFAIL_HARNESS -u CONVFAIL_DB \
    bwrap --dev-bind / / --tmpfs "$SRC" --tmpfs "$BUILD" --chdir "$T/work" "$@"
}
installed() { hidden "$P/bin/convfail" --db "$T/work/c.db" "$@"; }
hidden test ! -e "$SRC/data/taxonomy.json" || fail "the source tree is not hidden"

expect_exit 0 installed import "$share"/data/sample/*.json "$share"/data/sample/*.jsonl
expect_grep " inserted" "$T/out"
expect_exit 0 installed classify --json
"$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["issues"] > 0, r' "$T/out" ||
  fail "classify: $(cat "$T/out")"
expect_exit 0 installed report
expect_grep "torch.onnx" "$T/out"
expect_grep "tf2onnx" "$T/out"
expect_exit 0 installed opsets --issues
expect_grep "Spearman" "$T/out"
if [ $have_ort = 1 ] && command -v node >/dev/null; then
  expect_exit 0 installed reproduce --model "$T/work/add.onnx" --json
  "$py" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert r["verdict"] == "not_reproduced" and r["ort_version"], r' \
    "$T/out" || fail "reproduce: $(cat "$T/out" "$T/err")"
else
  echo "note: onnxruntime-node or node missing, reproduce not run"
fi

# $CONVFAIL_DATA_DIR overrides the lookup, --data-dir overrides both.
expect_exit 1 env CONVFAIL_DATA_DIR="$T/nowhere" "$P/bin/convfail" --db "$T/work/c.db" stats
expect_grep "$T/nowhere/taxonomy.json" "$T/err"
expect_exit 0 env CONVFAIL_DATA_DIR="$T/nowhere" "$P/bin/convfail" --db "$T/work/c.db" \
  --data-dir "$share/data" stats

# A binary with no share/convfail beside it: one line saying where it looked and what to set.
mkdir -p "$T/lonely/bin"
cp "$P/bin/convfail" "$T/lonely/bin/"
expect_exit 1 hidden "$T/lonely/bin/convfail" --db "$T/work/c.db" classify
[ "$(wc -l <"$T/err")" = 1 ] || fail "more than one error line: $(cat "$T/err")"
expect_grep "$T/lonely/share/convfail/data/taxonomy.json" "$T/err"
expect_grep "CONVFAIL_DATA_DIR" "$T/err"
echo ok
