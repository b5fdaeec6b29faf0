#!/usr/bin/env bash
# Issue 15 through the CLI: every malformed or hostile import is refused with one
# "FILE:LINE: FIELD: what" line and exit 1, the database unchanged; BOMs are skipped; long
# bodies are refused or cut with --truncate-long-fields; then a generated fuzz corpus.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
dump() { sqlite3 "$DB" .dump | sha256sum; }

printf '{"repo":"acme/conv","number":1,"title":"Synthetic","body":"b","created_at":"2024-01-01T00:00:00Z"}\n' >"$T/ok.jsonl"
cf import "$T/ok.jsonl" >/dev/null
before=$(dump)

# A CSV of labels given to import (#50 item 12): one line that says which command reads it.
expect_exit 1 cf import "$SRC/data/sample/labels.csv"
[ "$(wc -l <"$T/err")" = 1 ] || fail "not one line: $(cat "$T/err")"
expect_grep "labels.csv:1: malformed JSON: .*a CSV of labels is read by .convfail labels import FILE." "$T/err"
[ "$(dump)" = "$before" ] || fail "a refused CSV changed the database"
# Not for a JSON file that is merely broken.
printf '{"repo": broken\n' >"$T/broken.jsonl"
expect_exit 1 cf import "$T/broken.jsonl"
grep -q "labels import" "$T/err" && fail "CSV hint for a broken JSON file: $(cat "$T/err")"

refuse() {  # refuse NAME CONTENT PATTERN: import of the file fails with one FILE:LINE line
  printf '%s' "$2" >"$T/$1"
  expect_exit 1 cf import "$T/$1"
  expect_grep "^convfail: error: $T/$1:[0-9][0-9]*: $3" "$T/err"
  [ "$(wc -l <"$T/err")" = 1 ] || fail "$1: more than one line: $(cat "$T/err")"
  [ "$(dump)" = "$before" ] || fail "$1: database changed"
}
refuse nul.jsonl '{"repo":"a/b","number":2,"title":"ti\u0000tle"}' 'title: contains a NUL character'
refuse big.jsonl '{"repo":"a/b","number":9223372036854775813}' 'number: 9223372036854775813 is not an integer in 1..9007199254740992'
refuse neg.jsonl '{"repo":"a/b","number":-1}' 'number: -1 is not'
refuse body.jsonl '{"repo":"a/b","number":2,"body":123}' 'body: expected a string, got an integer'
refuse title.jsonl '{"repo":"a/b","number":2,"title":["x"]}' 'title: expected a string, got an array'
refuse state.jsonl '{"repo":"a/b","number":2,"state":5}' 'state: expected a string'
refuse path.jsonl '{"repo":"../../etc","number":2}' 'repo: "../../etc" is not OWNER/NAME'
refuse sql.jsonl '{"repo":"a/b/c; drop table issues","number":2}' 'repo: "a/b/c; drop table issues" is not OWNER/NAME'
refuse date.jsonl '{"repo":"a/b","number":2,"created_at":"not a date"}' 'created_at: "not a date" is not an ISO-8601'
refuse second.jsonl $'{"repo":"a/b","number":2}\n{"repo":"a/b","number":3,"labels":[5]}' 'labels\[0\]: expected a string or an object'
refuse deep.jsonl "{\"repo\":\"a/b\",\"number\":2,\"x\":$(head -c 100000 /dev/zero | tr '\0' '[')}" 'JSON nested deeper than 64 levels'
refuse utf8.jsonl $'{"repo":"a/b","number":2,"body":"\xc0\x80"}' 'malformed JSON: '
# The error message escapes what it quotes.
refuse esc.jsonl '{"repo":"\u001b]0;pwn\u0007/x","number":2}' 'repo: "\\x1b\]0;pwn\\x07/x" is not OWNER/NAME'

# A BOM (spreadsheet and Windows tools write one) is skipped in JSON and JSONL.
printf '\xef\xbb\xbf[{"repo":"acme/conv","number":2,"title":"bom"}]\n' >"$T/bom.json"
printf '\xef\xbb\xbf{"repo":"acme/conv","number":3,"title":"bom"}\n' >"$T/bom.jsonl"
cf import "$T/bom.json" "$T/bom.jsonl" >"$T/out"
expect_grep "imported 2 issues" "$T/out"

# Bodies over --max-field-mb: refused, or stored cut and flagged.
python3 -c 'import json; print(json.dumps({"repo": "acme/conv", "number": 4, "body": "x" * (3 << 20), "comments": [{"body": "y" * (2 << 20)}]}))' >"$T/long.jsonl"
before=$(dump)
refuse long.jsonl "$(cat "$T/long.jsonl")" 'body: 3145728 bytes, over the limit of 1 MB'
expect_exit 2 cf import --max-field-mb 0 "$T/long.jsonl"
cf import --truncate-long-fields "$T/long.jsonl" >/dev/null
[ "$(sqlite3 "$DB" "SELECT length(body), body_truncated FROM issues WHERE number=4")" = "1048576|1" ] ||
  fail "issue body not cut and flagged"
[ "$(sqlite3 "$DB" "SELECT length(c.body), c.body_truncated FROM comments c JOIN issues i ON i.id=c.issue_id WHERE i.number=4")" = "1048576|1" ] ||
  fail "comment body not cut and flagged"
cf show acme/conv#4 --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["body_truncated"] is True and len(d["body"]) == 1 << 20' ||
  fail "show --json does not report the cut body"
cf import --max-field-mb 4 "$T/long.jsonl" >/dev/null  # a larger limit stores it whole
[ "$(sqlite3 "$DB" "SELECT length(body), body_truncated FROM issues WHERE number=4")" = "3145728|0" ] ||
  fail "issue body not replaced whole"

# The fuzz corpus: random bytes, truncations, wrong types, huge numbers, deep nesting, NUL,
# BOMs, overlong UTF-8. Every file: exit 0 or 1 (never a crash), one FILE:LINE line when 1,
# database unchanged when refused.
python3 - "$T/fuzz" <<'PY'
import json, os, random, sys
out = sys.argv[1]; os.makedirs(out)
rng = random.Random(15)
valid = {"repo": "fz/z", "number": 7, "title": "t", "body": "b", "labels": [{"name": "x"}],
         "created_at": "2024-01-02T03:04:05Z", "comments": [{"body": "c", "created_at": "2024-01-03"}]}
text = json.dumps(valid).encode()
values = [b"null", b"-1", b"1e999", b"9223372036854775813", b'"x\\u0000"', b"[[[[[[]]]]]]",
          b'"\xc0\x80"', b'"\xed\xa0\x80"', b'"not a date"', b"{}", b'"=1+1"', b'"a/b/c"']
for i in range(400):
    k = i % 6
    if k == 0: data = bytes(rng.randrange(256) for _ in range(rng.randrange(400)))
    elif k == 1: data = text[: rng.randrange(len(text))]
    elif k == 2:
        f = rng.choice(["number", "repo", "title", "body", "labels", "comments", "timeline", "created_at"])
        data = b'{"repo": "fz/z", "number": 7, "%s": %s}' % (f.encode(), rng.choice(values))
    elif k == 3: data = rng.choice([b"[", b"{\"a\":"]) * rng.randrange(1, 50000)
    elif k == 4:
        b = bytearray(text)
        for _ in range(rng.randrange(1, 4)): b[rng.randrange(len(b))] = rng.randrange(256)
        data = bytes(b)
    else: data = rng.choice([b"\xef\xbb\xbf", b"", b"\x00"]) + text + rng.choice([b"", b"\x00", b"\n\xef\xbb\xbf" + text])
    open(os.path.join(out, "f%03d.%s" % (i, "json" if i % 2 else "jsonl")), "wb").write(data)
PY
DB=$T/fuzz.db  # a small store: the fingerprint is taken twice per file
cf import "$T/ok.jsonl" >/dev/null
n=0 refused=0
for f in "$T"/fuzz/*; do
  n=$((n + 1))
  before=$(dump)
  rc=0
  cf import "$f" >"$T/out" 2>"$T/err" || rc=$?
  case $rc in
    0) ;;
    1)
      refused=$((refused + 1))
      [ "$(wc -l <"$T/err")" = 1 ] || fail "$f: not one line: $(head -c 300 "$T/err")"
      grep -q "^convfail: error: $f:[0-9][0-9]*: " "$T/err" || fail "$f: message shape: $(cat "$T/err")"
      [ "$(dump)" = "$before" ] || fail "$f: refused but the database changed"
      ;;
    *) fail "$f: exit $rc: $(head -c 300 "$T/err")" ;;
  esac
done
echo "fuzz: $n files, $refused refused, none crashed"
[ "$n" = 400 ] && [ "$refused" -gt 250 ] || fail "fuzz corpus: $n files, $refused refused"
