#!/usr/bin/env bash
# docs/commands.md is what scripts/make_commands_doc.sh prints from the built binary's --help:
# a changed option without a regenerated reference fails here. Also: the README stays a front
# door (at most ~6 KB) and every docs/ link in it exists.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
unset CONVFAIL_DB CONVFAIL_DATA_DIR
bash "$SRC/scripts/make_commands_doc.sh" "$BUILD/convfail" "$T/commands.md" >/dev/null
diff -u "$SRC/docs/commands.md" "$T/commands.md" >"$T/diff" ||
  fail "docs/commands.md is stale: run scripts/make_commands_doc.sh ($(head -c 600 "$T/diff"))"
# Every command of the top-level help has its section.
for c in $("$BUILD/convfail" --help | awk '/^[A-Z][a-z]*:$/ && $0 != "Options:" {s=1; next} s && /^  [a-z]/ {print $1}'); do
  grep -q "^## \`convfail $c\`" "$SRC/docs/commands.md" || fail "docs/commands.md has no section for $c"
done
# A planted change is caught: the check above is not vacuous.
sed 's/create or migrate the database/something else/' "$SRC/docs/commands.md" >"$T/planted.md"
diff -q "$T/planted.md" "$T/commands.md" >/dev/null && fail "a planted change went unnoticed"
size=$(wc -c <"$SRC/README.md")
[ "$size" -le 6500 ] || fail "README.md is $size bytes (the front door stays under ~6 KB; details go to docs/)"
grep -o '](docs/[^)#]*' "$SRC/README.md" | sed 's/^](//' | sort -u | while read -r f; do
  [ -f "$SRC/$f" ] || fail "README links to missing $f"
done
echo "ok: commands.md current, README $size bytes"
