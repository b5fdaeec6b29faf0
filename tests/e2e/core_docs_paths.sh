#!/usr/bin/env bash
# The docs name only what exists (tests/docs/check_docs.py): every `convfail ...` command and
# subcommand (and every one of a command's subcommands where the docs list them, as the README's
# `test run|status|...`) and every repository path in README.md, ARCHITECTURE.md and docs/*.md.
# Then a copy of the docs with a planted stale command, subcommand list and path must fail,
# naming each: the check is not vacuous.
# Usage: bash core_docs_paths.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 missing"
unset CONVFAIL_DB CONVFAIL_DATA_DIR
check() { python3 "$SRC/tests/docs/check_docs.py" "$BUILD/convfail" "$SRC" "$1"; }

check "$SRC" >"$T/out" 2>"$T/err" || fail "stale names in the docs: $(cat "$T/out")"
cat "$T/err"

mkdir -p "$T/planted/docs"
cp "$SRC/README.md" "$SRC/ARCHITECTURE.md" "$T/planted/"
cp "$SRC"/docs/*.md "$T/planted/docs/"
cat >>"$T/planted/docs/campaign.md" <<'MD'

Planted: `convfail test frobnicate`, `convfail reticulate --all`, `test run|status|bundle`, and
the sandbox in `repro/sandbox.cpp`.
MD
expect_exit 1 check "$T/planted"
for stale in "no subcommand \`convfail test frobnicate\`" "no command \`convfail reticulate\`" \
  "\`test run|status|bundle\` leaves out" "no \`repro/sandbox.cpp\` in the repository"; do
  grep -qF "docs/campaign.md:" "$T/out" && grep -qF "$stale" "$T/out" || fail "planted '$stale' not found: $(cat "$T/out")"
done
[ "$(wc -l <"$T/out")" = 4 ] || fail "expected the 4 planted names only: $(cat "$T/out")"
echo "ok: the docs name only existing commands and paths; 4 planted stale names caught"
