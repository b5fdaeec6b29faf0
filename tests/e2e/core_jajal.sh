#!/usr/bin/env bash
# End-to-end on the study's 200 issues (../shared, read only): all stored, idempotent re-import,
# phrase search, show, and a malformed copy that must leave the database untouched.
# Usage: bash core_jajal.sh BUILD_DIR SOURCE_DIR SHARED_DIR   (exit 77 when the data is missing)
set -uo pipefail
source "$(dirname "$0")/lib.sh"
data=$SHARED/datasets/jajal2024/issues.jsonl
[ -f "$data" ] || skip "$data missing"
lines=$(grep -c . "$data")

cf import "$data" >/dev/null || fail "import"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM issues')" = "$lines" ] || fail "not all $lines issues stored"
first=$(counts)
out=$(cf import "$data") || fail "re-import"
echo "$out" | grep -q "0 inserted, 0 updated, $lines unchanged" || fail "re-import: $out"
[ "$(counts)" = "$first" ] || fail "re-import changed row counts"
cf stats --json | python3 -c 'import json,sys; s=json.load(sys.stdin); assert s["issues"]==int(sys.argv[1]) and s["repositories"]==2, s' "$lines" ||
  fail "stats --json"

# "INTERNAL ASSERT": FTS hits must be exactly the issues whose title, body or a comment holds the
# two words as adjacent tokens (unicode61 splits on anything that is not a letter or digit).
cf search '"INTERNAL ASSERT"' --limit 0 --json >"$T/hits.json" || fail "search"
python3 - "$data" "$T/hits.json" <<'PY' || fail "search \"INTERNAL ASSERT\" disagrees with the file"
import json, re, sys
pat = re.compile(r"(?<![0-9a-z])internal[^0-9a-z]+assert(?![0-9a-z])", re.I)
want = set()
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    o = json.loads(line)
    texts = [o.get("title") or "", o.get("body") or ""]
    texts += [c.get("body") or "" for c in (o.get("comments") or [])]
    if any(pat.search(t) for t in texts):
        want.add((o["repo"], o["number"]))
got = {(h["repo"], h["number"]) for h in json.load(open(sys.argv[2]))}
assert want, "the dataset has no INTERNAL ASSERT"
assert got == want, (sorted(got - want), sorted(want - got))
PY
cf search '"INTERNAL ASSERT"' | grep -q "INTERNAL ASSERT" || fail "text search output"

# show pytorch/pytorch#49403 prints its title and its comments' authors.
cf show pytorch/pytorch#49403 >"$T/show.txt" || fail "show pytorch/pytorch#49403"
python3 - "$data" "$T/show.txt" <<'PY' || fail "show output"
import json, sys
o = next(json.loads(l) for l in open(sys.argv[1]) if l.strip() and json.loads(l)["number"] == 49403
         and json.loads(l)["repo"] == "pytorch/pytorch")
shown = open(sys.argv[2]).read()
assert shown.startswith("pytorch/pytorch#49403: " + o["title"]), shown[:200]
for c in o.get("comments") or []:
    assert "## " + c["author"] in shown, c["author"]
PY

# A malformed copy (line 57 truncated) fails with file:line and changes no table.
before=$(counts)
awk 'NR==57 { print substr($0, 1, 40); next } { print }' "$data" >"$T/broken.jsonl"
cf import "$T/broken.jsonl" >/dev/null 2>"$T/err"; rc=$?
[ $rc != 0 ] || fail "malformed import succeeded"
grep -q "broken.jsonl:57:" "$T/err" || fail "no file:line: $(cat "$T/err")"
[ "$(counts)" = "$before" ] || fail "malformed import changed row counts"
# Same on a fresh database: nothing at all is stored.
rm -f "$DB" "$DB-wal" "$DB-shm"
cf init >/dev/null || fail "init"
before=$(counts)
cf import "$T/broken.jsonl" >/dev/null 2>&1 && fail "malformed import succeeded on a fresh db"
[ "$(counts)" = "$before" ] || fail "malformed import stored rows in a fresh db"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM issues')" = 0 ] || fail "issues stored"
echo "ok"
