#!/usr/bin/env bash
# Issue 15 for labels: a labels CSV with invalid UTF-8 or control characters is refused with
# FILE:LINE; exports neutralise spreadsheet formulas (--raw-csv keeps them) and read back
# exactly; random-byte notes go through import and every command that prints labels.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

for n in 1 2 3; do
  echo "{\"repo\":\"acme/conv\",\"number\":$n,\"title\":\"Synthetic $n\",\"body\":\"export fails\"}"
done >"$T/i.jsonl"
cf import "$T/i.jsonl" >/dev/null

# Refused at import, nothing written.
before=$(sqlite3 "$DB" "SELECT count(*) FROM manual_labels")
printf 'repo,number,annotator,symptom,note\nacme/conv,1,A,crash,ok\nacme/conv,2,A,crash,bad \xff\n' >"$T/bad.csv"
expect_exit 1 cf labels import "$T/bad.csv"
expect_grep "^convfail: error: $T/bad.csv:3: column 5 (note): invalid UTF-8 at byte 5$" "$T/err"
printf 'repo,number,annotator,symptom,note\nacme/conv,2,A,crash,"cut\0here"\n' >"$T/nul.csv"
expect_exit 1 cf labels import "$T/nul.csv"
expect_grep "^convfail: error: $T/nul.csv:2: column 5 (note): a NUL character at byte 4$" "$T/err"
printf 'repo,number,annotator,symptom,note\nacme/conv,2,A,crash,"\x1b]0;title\x07"\n' >"$T/esc.csv"
expect_exit 1 cf labels import "$T/esc.csv"
expect_grep "control character U+001B at byte 1" "$T/err"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM manual_labels")" = "$before" ] || fail "refused files wrote rows"

# Formula cells: neutralised in the export, raw with --raw-csv, restored by import.
cat >"$T/formula.csv" <<'CSV'
repo,number,annotator,symptom,note
acme/conv,1,A,crash,"=HYPERLINK(""http://evil.example"",""click"")"
acme/conv,2,A,crash,=cmd|' /C calc'!A0
acme/conv,3,A,crash,@SUM(A1)
acme/conv,1,B,crash,+1+1
acme/conv,2,B,crash,-2
CSV
cf labels import "$T/formula.csv" >/dev/null
cf labels export >"$T/safe.csv"
cf labels export --raw-csv >"$T/raw.csv"
python3 - "$T/safe.csv" "$T/raw.csv" <<'PY'
import csv, sys
safe = [c for row in csv.reader(open(sys.argv[1], newline="")) for c in row]
raw = [c for row in csv.reader(open(sys.argv[2], newline="")) for c in row]
def number(c):
    try: float(c); return True
    except ValueError: return False
bad = [c for c in safe if c and c[0] in "=+-@\t\r" and not number(c)]
assert not bad, bad
assert "'=cmd|' /C calc'!A0" in safe and "=cmd|' /C calc'!A0" in raw, (safe, raw)
assert "-2" in safe, safe  # a plain number stays a number
PY
DB=$T/copy.db cf import "$T/i.jsonl" >/dev/null
DB=$T/copy.db cf labels import "$T/safe.csv" >/dev/null
DB=$T/copy.db cf labels export >"$T/again.csv"
cmp "$T/safe.csv" "$T/again.csv" || fail "export -> import -> export changed the labels"
[ "$(sqlite3 "$T/copy.db" "SELECT note FROM manual_labels WHERE annotator='A' ORDER BY issue_id LIMIT 1 OFFSET 1")" = "=cmd|' /C calc'!A0" ] ||
  fail "import did not restore the original note"

# report --format csv goes through the same writer.
cf report --source A --format csv >"$T/report.csv"
python3 - "$T/report.csv" <<'PY'
import csv, sys
for row in csv.reader(open(sys.argv[1], newline="")):
    for c in row:
        try: float(c); continue
        except ValueError: pass
        assert not (c and c[0] in "=+-@\t\r"), c
PY

# Fuzz: random-byte notes. Import exits 0 or 1 (FILE:LINE); every printing command exits 0 and
# its JSON parses, also after text that was never validated is put into the store directly.
python3 - "$T/fz" <<'PY'
import os, random, sys
os.makedirs(sys.argv[1]); rng = random.Random(1515)
for i in range(150):
    note = bytes(rng.randrange(256) if rng.random() < 0.3 else rng.randrange(97, 123) for _ in range(rng.randrange(1, 40)))
    note = b'"' + note.replace(b'"', b'""') + b'"'
    open(os.path.join(sys.argv[1], "n%03d.csv" % i), "wb").write(b"repo,number,annotator,symptom,note\nacme/conv,%d,fz,crash,%s\n" % (1 + i % 3, note))
PY
n=0 refused=0
for f in "$T"/fz/*.csv; do
  n=$((n + 1)); rc=0
  cf labels import "$f" >"$T/out" 2>"$T/err" || rc=$?
  case $rc in
    0) ;;
    1) refused=$((refused + 1)); grep -q "^convfail: error: $f:2: " "$T/err" || fail "$f: $(cat "$T/err")" ;;
    *) fail "$f: exit $rc: $(cat "$T/err")" ;;
  esac
done
sqlite3 "$DB" "INSERT INTO manual_labels (issue_id, annotator, dimension, value, kind, note, source) SELECT id, 'fz', 'symptom', 'crash', 'label', CAST(X'62616420FF2001C3281B5B33316D' AS TEXT), 'sql' FROM issues LIMIT 1"
for args in "labels export" "labels export --format jsonl" "labels export --format json" "labels history acme/conv#1 --json" "agreement --annotators A,fz --json"; do
  # shellcheck disable=SC2086
  cf $args >"$T/out" 2>"$T/err" || fail "$args: exit $?: $(cat "$T/err")"
  case $args in *json*) python3 -c 'import json,sys
t=open(sys.argv[1],"rb").read().decode("utf-8")
[json.loads(l) for l in t.splitlines() if l.strip()] if "jsonl" in sys.argv[2] else json.loads(t)' "$T/out" "$args" || fail "$args: not JSON" ;; esac
done
# The text form escapes it for the terminal: no control byte or invalid UTF-8 reaches it.
cf labels history acme/conv#1 >"$T/out"
expect_grep 'note: bad \\xff \\x01\\xc3(\\x1b\[31m' "$T/out"
python3 -c 'import sys; t=open(sys.argv[1],"rb").read(); t.decode("utf-8"); assert not any(b < 32 and b != 10 for b in t)' "$T/out" ||
  fail "labels history printed raw bytes"
echo "labels fuzz: $n files, $refused refused, none crashed"
[ "$refused" -gt 20 ] || fail "too few refused: $refused"
