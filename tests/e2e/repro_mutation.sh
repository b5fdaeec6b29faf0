#!/usr/bin/env bash
# Mutation test: corrupt the passing ONNX node-test models (swap inputs of non-commutative ops,
# change axis/alpha, drop a node); at least 95% must come out wrong_output_reproduced or
# crash_reproduced. Skips (77) when node, onnxruntime-node or the data are missing.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build=$BUILD tmp=$T  # the names used below
suite=/usr/share/libonnx-testdata/data/node
[ -d "$suite" ] || skip "$suite missing"
command -v node >/dev/null || skip "node missing"
[ -d "$SRC/exec/runner/node_modules/onnxruntime-node" ] || skip "onnxruntime-node missing"

"$build/convfail" --db "$tmp/c.db" mutate --suite "$suite" --timeout 10 --min-rate 0.95 --json > "$tmp/m.json"
python3 - "$tmp/m.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["cases_passing"] >= 800, m["cases_passing"]
assert m["mutants"] >= 800, m["mutants"]
assert m["killed"] == m["crash_reproduced"] + m["wrong_output_reproduced"]
assert m["kill_rate"] >= 0.95, m["kill_rate"]
print("mutants %d killed %d rate %.3f" % (m["mutants"], m["killed"], m["kill_rate"]))
PY
# A bad rate makes the command fail with a clear error.
if "$build/convfail" --db "$tmp/c.db" mutate --suite "$suite" --filter test_abs --min-rate 1.01 >/dev/null 2>"$tmp/err"; then
  echo "mutate should fail when the rate is below --min-rate"; exit 1
fi
grep -q "kill rate below" "$tmp/err"
