#!/usr/bin/env bash
# Without a working bubblewrap, `reproduce` refuses untrusted runs in one line and stores nothing;
# with --unsafe-no-sandbox it runs them with rlimits only, warns, and the stored run says so.
# Usage: bash repro_sandbox_refusal.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
$PY -c 'import torch, onnx' 2>/dev/null || skip "no torch/onnx for $PY"
export TMPDIR=$T
$PY - "$SRC/tests/data/torch_scripts/export_unsupported.py" >"$T/issues.jsonl" <<'PYEOF'
import json, sys
code = open(sys.argv[1]).read()
print(json.dumps({"repo": "example/sandboxless", "number": 1, "title": "fft", "author": "a",
                  "body": "```python\n" + code + "```\n", "comments": []}))
PYEOF
cf import "$T/issues.jsonl" >/dev/null || fail "import"
before=$(counts)

# bwrap missing: one line, exit 1, nothing stored.
expect_exit 1 env CONVFAIL_BWRAP=/nonexistent/bwrap "$BUILD/convfail" --db "$DB" --data-dir "$SRC/data" \
  reproduce --scripts example/sandboxless#1
[ "$(wc -l <"$T/err")" = 1 ] || fail "refusal is not one line: $(cat "$T/err")"
expect_grep '^convfail: error: sandbox unavailable: bubblewrap (bwrap) not found: /nonexistent/bwrap; pass --unsafe-no-sandbox to run without isolation$' "$T/err"
[ "$(counts)" = "$before" ] || fail "the refused run changed the database"
echo "ok   refused in one line, database unchanged"

# The same with --unsafe-no-sandbox: runs, warns, records the isolation.
expect_exit 0 env CONVFAIL_BWRAP=/nonexistent/bwrap "$BUILD/convfail" --db "$DB" --data-dir "$SRC/data" \
  reproduce --scripts example/sandboxless#1 --unsafe-no-sandbox
expect_grep 'warning: --unsafe-no-sandbox: untrusted code runs without isolation' "$T/err"
expect_grep 'crash_reproduced' "$T/out"
iso=$(sqlite3 "$DB" "SELECT json_extract(details_json, '\$.isolation') || '|' || json_extract(details_json, '\$.network_isolated') FROM repro_runs")
[ "$iso" = "none (--unsafe-no-sandbox)|0" ] || fail "stored isolation: $iso"
echo "ok   --unsafe-no-sandbox ran, warned and stored 'none (--unsafe-no-sandbox)'"

# And with bubblewrap: the stored run says bwrap+seccomp.
expect_exit 0 cf reproduce --scripts example/sandboxless#1
iso=$(sqlite3 "$DB" "SELECT json_extract(details_json, '\$.isolation') FROM repro_runs ORDER BY id DESC LIMIT 1")
[ "$iso" = "bwrap+seccomp" ] || fail "stored isolation: $iso"
echo "ok   sandboxed run stored 'bwrap+seccomp'"
