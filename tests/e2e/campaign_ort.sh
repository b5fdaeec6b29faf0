#!/usr/bin/env bash
# `convfail test run --ort VERSION`: the campaign's ONNX Runtime steps run on an installed
# onnxruntime-node release (BUILD_DIR/ort-cache, installed from npm like repro_bisect.sh does;
# skipped when npm cannot install it) and the campaign records it. A uint8 Add model
# (tests/data/campaign/uint8_add.py) fails in ONNX Runtime 1.20.1 (no uint8 Add kernel) and runs
# on the pinned release: the same command on two releases gives two campaigns with two outcomes;
# each release named again continues its own campaign.
# Usage: bash campaign_ort.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
command -v npm >/dev/null || skip "npm missing"
chmod 755 "$T"  # scratch directories go here; the sandbox runs as uid 65534
export TMPDIR=$T
export CONVFAIL_ORT_CACHE=$BUILD/ort-cache
OLD=1.20.1
PINNED=$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' \
  "$BUILD/share/convfail/runner/node_modules/onnxruntime-node/package.json" | head -1)
[ -n "$PINNED" ] && [ "$PINNED" != "$OLD" ] || skip "pinned onnxruntime-node is '$PINNED'"
cf init >/dev/null || fail "init"
if [ ! -d "$CONVFAIL_ORT_CACHE/$OLD" ]; then
  cf runtimes install "$OLD" >"$T/out" 2>"$T/err" ||
    skip "cannot install onnxruntime-node $OLD: $(head -c 300 "$T/err")"
fi
S="script:$SRC/tests/data/campaign/uint8_add.py"
run() { cf test run --source "$S" --jobs 1 --inputs 1 --no-minimise --json "$@"; }
field() { python3 -c "import json,sys; d=json.load(open('$T/out')); print($1)"; }

expect_exit 0 run --ort "$OLD"
c_old=$(field 'd["campaign"]')
[ "$(field 'd["versions"]["onnxruntime"], d["config"]["ort"], d["outcomes"]["ort_failure"]')" = \
  "$OLD $OLD 1" ] || fail "--ort $OLD: $(head -c 1500 "$T/out")"
echo "ok   --ort $OLD: the model ran on $OLD (ort_failure), the campaign records $OLD"

expect_exit 0 run
c_pin=$(field 'd["campaign"]')
[ "$c_pin" != "$c_old" ] || fail "the pinned release continued the $OLD campaign"
[ "$(field 'd["versions"]["onnxruntime"], d["config"]["ort"], d["outcomes"]["success"]')" = \
  "$PINNED $PINNED 1" ] || fail "pinned: $(head -c 1500 "$T/out")"
echo "ok   the pinned release ($PINNED) is another campaign, where the model succeeds"

expect_exit 0 run --ort "$OLD"
[ "$(field 'd["campaign"], d["ran"], d["already_stored"]')" = "$c_old 0 1" ] ||
  fail "rerun on $OLD: $(head -c 1500 "$T/out")"
expect_exit 0 run --ort "$PINNED"
[ "$(field 'd["campaign"], d["ran"], d["already_stored"]')" = "$c_pin 0 1" ] ||
  fail "rerun on $PINNED by name: $(head -c 1500 "$T/out")"
echo "ok   each release named again continues its own campaign (the pinned one by its name too)"

expect_exit 1 run --ort 1.9.99
[ "$(wc -l <"$T/err")" = 1 ] && expect_grep 'onnxruntime-node 1.9.99 is not installed' "$T/err"
expect_exit 2 run --ort ../x
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM campaigns')" = 2 ] || fail "a refused run stored a campaign"
echo "ok   a release not installed or a bad version is refused in one line, nothing stored"
