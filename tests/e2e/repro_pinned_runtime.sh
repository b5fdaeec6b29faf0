#!/usr/bin/env bash
# The pinned onnxruntime-node (the runner's own, what every command runs by default) is an
# installed release too (#50 item 12): `runtimes list` shows it beside an empty cache, and
# `bisect --installed` runs on it (it said "no onnxruntime-node release in the range to bisect"),
# without npm and without installing it into the cache.
# Usage: bash repro_pinned_runtime.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 missing"
pkg=$BUILD/share/convfail/runner/node_modules/onnxruntime-node/package.json
[ -f "$pkg" ] || skip "onnxruntime-node not installed (scripts/install-deps.sh)"
pinned=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$pkg")
chmod 755 "$T"  # scratch directories go here; the sandbox runs as uid 65534
export TMPDIR=$T
export CONVFAIL_ORT_CACHE=$T/empty-cache
export npm_config_registry=http://127.0.0.1:9/  # nothing may be fetched
cp "$SRC/tests/data/bisect/uint8_add_layernorm.onnx" "$T/m.onnx" && chmod 644 "$T/m.onnx"
cf init >/dev/null

expect_exit 0 cf runtimes list
expect_grep "^$pinned  pinned: the runner's own onnxruntime-node" "$T/out"
expect_grep "no release installed in the cache" "$T/out"
expect_exit 0 cf runtimes list --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["pinned"] == sys.argv[2] and d["installed"] == [], d' \
  "$T/out" "$pinned" || fail "runtimes list --json: $(cat "$T/out")"

expect_exit 0 cf bisect "$T/m.onnx" --installed --json
python3 - "$T/out" "$pinned" <<'PY' || fail "bisect --installed: $(head -c 1500 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))["bisects"][0]
assert d["order"] == [sys.argv[2]], d["order"]
assert d["new_runs"] >= 1, d
PY
[ ! -e "$CONVFAIL_ORT_CACHE/$pinned" ] || fail "the pinned release was installed into the cache"
echo "ok   runtimes list and bisect --installed know the pinned onnxruntime-node $pinned"
