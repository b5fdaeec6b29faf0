#!/usr/bin/env bash
# Wording of the terminal (#28 item 12): counts agree with their nouns ("1 file"), a mistyped
# command or subcommand (labels exprot, test rn) gets a suggestion, and `artifacts scan --json`
# and `labels history --json` print indented JSON like every other --json.
# Usage: bash cli_wording.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 missing"

echo '{"repo": "acme/conv", "number": 1, "title": "export fails", "body": "see https://example.invalid/m.onnx"}' >"$T/one.jsonl"
cf import "$T/one.jsonl" >"$T/import.txt"
grep -q "^imported 1 issue from 1 file: " "$T/import.txt" || fail "import wording: $(cat "$T/import.txt")"

# A mistyped command: one suggestion, exit 2; a word far from every command: none.
expect_exit 2 cf reprot --source x
expect_grep "unknown command 'reprot' (did you mean 'report'?)" "$T/err"
expect_exit 2 cf lable
expect_grep "did you mean 'label" "$T/err"
expect_exit 2 cf frobnicate
grep -q "did you mean" "$T/err" && fail "suggestion for a word far from every command: $(cat "$T/err")"
# The same one level down, for commands that have commands of their own.
expect_exit 2 cf labels exprot
expect_grep "convfail labels: unknown command 'exprot' (did you mean 'export'?)" "$T/err"
expect_exit 2 cf test rn
expect_grep "convfail test: unknown command 'rn' (did you mean 'run'?)" "$T/err"
expect_exit 2 cf --db "$DB" artifacts sacn --json
expect_grep "convfail artifacts: unknown command 'sacn' (did you mean 'scan'?)" "$T/err"
expect_exit 2 cf labels frobnicate
grep -q "did you mean" "$T/err" && fail "suggestion for a far subcommand: $(cat "$T/err")"
expect_grep "convfail labels: unknown command 'frobnicate'" "$T/err"
# A mistyped option gets a suggestion too (#50 item 12): a global one after a command, a
# command's own one level down; a word far from every option gets none.
expect_exit 2 cf init --dbb "$T/x.db"
expect_grep "convfail init: unknown option '--dbb' (did you mean '--db'?)" "$T/err"
[ -e "$T/x.db" ] && fail "init with a mistyped option wrote $T/x.db"
expect_exit 2 cf test status --jsno
expect_grep "convfail test status: unknown option '--jsno' (did you mean '--json'?)" "$T/err"
expect_exit 2 cf list --frobnicate-everything
expect_grep "convfail list: unknown option '--frobnicate-everything'" "$T/err"
grep -q "did you mean" "$T/err" && fail "suggestion for a far option: $(cat "$T/err")"
# A leaf command's own words are its arguments, not commands.
expect_exit 2 cf labels export --bogus
grep -q "unknown command" "$T/err" && fail "an unknown option reported as a command: $(cat "$T/err")"

# --json pretty-printed: more than one line, indented, valid.
cf artifacts scan --json >"$T/scan.json"
printf 'repo,number,symptom\nacme/conv,1,crash\n' >"$T/l.csv"
cf labels import "$T/l.csv" --annotator ann >/dev/null
cf labels history acme/conv#1 --json >"$T/history.json"
for f in scan history; do
  python3 - "$T/$f.json" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
json.loads(text)
lines = text.splitlines()
assert len(lines) > 2 and lines[1].startswith("  "), text[:200]
PY
done
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["issues"] == 1, j' "$T/scan.json"
echo "ok"
