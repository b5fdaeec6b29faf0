#!/usr/bin/env bash
# Outside text never reaches the terminal raw: an issue whose title, body, labels, comment and
# login carry OSC (set title), CSI (clear screen), an 8-bit CSI (C2 9B), U+202E and an invalid
# UTF-8 byte is printed by list, show, search and explain with no control byte but \n and \t,
# no ESC and no raw C1 or bidi control; --json keeps the text exact. An artifact URL with
# control characters (which curl refuses) is escaped in fetch's error line.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

python3 - "$T/issues.jsonl" <<'PY'
import json, sys
evil = "\x1b]0;pwned\x07 \x1b[2J \u009b31m \u202e gnp.exe"
issue = {"repo": "acme/conv", "number": 5, "title": "Conv broken " + evil,
         "body": "line one\n" + evil + "\nmodel at http://127.0.0.1:9/a\x1bb\x07c\u009b.onnx\n",
         "user": {"login": "mallory\x1b[2J"}, "labels": [{"name": "bug\x1b]0;x\x07"}],
         "comments": [{"body": "Conv again " + evil, "user": {"login": "eve\u202e"}}]}
open(sys.argv[1], "w").write(json.dumps(issue) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null
# An invalid UTF-8 byte (0xFF) in the stored title, as a damaged store could hold it.
sqlite3 "$DB" "UPDATE issues SET title = title || CAST(X'20FF20' AS TEXT) || 'Conv'"

# clean FILE: no byte below 0x20 but \n and \t, no DEL, no ESC, no raw C1 (C2 80-9F), no
# U+202E (E2 80 AE).
clean() {
  python3 - "$1" <<'PY' || fail "raw control bytes in $1: $(head -c 600 "$1" | od -c | head -20)"
import sys
data = open(sys.argv[1], "rb").read()
bad = [b for b in data if (b < 0x20 and b not in (0x0a, 0x09)) or b == 0x7f]
assert not bad, bad
assert b"\xc2\x9b" not in data and b"\xe2\x80\xae" not in data and b"\xff" not in data
assert len(data) > 0
PY
}

cf list >"$T/list.out"; clean "$T/list.out"
expect_grep 'Conv broken \\x1b\]0;pwned\\x07 \\x1b\[2J \\u009b31m \\u202e gnp.exe \\xff Conv' "$T/list.out"
expect_grep '\[bug\\x1b\]0;x\\x07\]' "$T/list.out"
[ "$(wc -l <"$T/list.out")" = 1 ] || fail "list: the title broke the one-line-per-issue output"
cf show acme/conv#5 >"$T/show.out"; clean "$T/show.out"
expect_grep '^author:  mallory\\x1b\[2J' "$T/show.out"
expect_grep '^## eve\\u202e' "$T/show.out"
expect_grep '^line one$' "$T/show.out"   # the body keeps its line breaks
cf search Conv >"$T/search.out"; clean "$T/search.out"
expect_grep 'Conv broken \\x1b' "$T/search.out"
cf search Conv 2>"$T/search.err" >/dev/null; clean "$T/search.out"
cf explain acme/conv#5 >"$T/explain.out"; clean "$T/explain.out"
expect_grep 'Conv broken \\x1b' "$T/explain.out"
cf labels history >"$T/hist.out" 2>&1 || true; [ -s "$T/hist.out" ] && clean "$T/hist.out"

# JSON stays exact: the same escape characters come back through a JSON parser (the invalid
# byte, which JSON cannot carry, as U+FFFD rather than an internal error).
for cmd in "show acme/conv#5" "list" "search Conv"; do
  # shellcheck disable=SC2086
  cf $cmd --json >"$T/out.json"
  python3 - "$T/out.json" <<'PY'
import json, sys
def strings(v):
    if isinstance(v, str): yield v
    elif isinstance(v, dict): yield from (x for e in v.values() for x in strings(e))
    elif isinstance(v, list): yield from (x for e in v for x in strings(e))
text = "\n".join(strings(json.load(open(sys.argv[1]))))
assert "\x1b]0;pwned\x07" in text and "\u202e" in text and "\u009b31m" in text, text[:300]
assert "\ufffd Conv" in text, text[:300]
PY
done

# A URL ends at the first control character (found by tests/fuzz: NUL and escape bytes were
# taken into URLs that reached the artifacts table and the fetcher): the escape-laden address is
# stored as its clean prefix, and nothing stored or printed holds a control byte.
cf artifacts scan >/dev/null
cf artifacts list --json >"$T/arts.json"
python3 - "$T/arts.json" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
assert "\\u001b" not in text and "\\u0007" not in text, text[:300]
PY
cf artifacts list >"$T/arts.out"; clean "$T/arts.out"
echo ok
