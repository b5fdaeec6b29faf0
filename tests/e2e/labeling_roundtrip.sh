#!/usr/bin/env bash
# Issue 28 item 5: labels export | labels import is a round trip. --annotator names the
# annotator of every row and a row naming another one is refused (nothing written); a note
# given on one dimension comes back on that dimension only.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
for n in 1 2; do
  echo "{\"repo\":\"acme/conv\",\"number\":$n,\"title\":\"Synthetic $n\",\"body\":\"export fails\"}"
done >"$T/issues.jsonl"
cf import "$T/issues.jsonl" >/dev/null
cf label acme/conv#1 --annotator alice --symptom crash --stage export >/dev/null
cf label acme/conv#1 --annotator alice --cause typo --note "only about the cause" >/dev/null
cf label acme/conv#2 --annotator alice --symptom hang >/dev/null
notes() {  # dimension=note of each labelled row of ANNOTATOR on issue 1
  sqlite3 "$DB" "SELECT dimension || '=' || coalesce(note, '') FROM manual_labels m JOIN issues i ON i.id = m.issue_id WHERE i.number = 1 AND annotator = '$1' ORDER BY dimension"
}
[ "$(notes alice | tr '\n' ' ')" = "cause=only about the cause stage= symptom= " ] || fail "setup: $(notes alice)"

cf labels export --annotator alice >"$T/a.csv"
head -1 "$T/a.csv" | grep -q '^repo,number,annotator,symptom,cause,subtype,stage,symptom_note,cause_note,subtype_note,stage_note,kind' ||
  fail "export header: $(head -1 "$T/a.csv")"

# A conflict between --annotator and the annotator column: refused, one line, nothing written.
before=$(counts)
expect_exit 1 cf labels import "$T/a.csv" --annotator alice2
expect_grep 'a.csv:2: the annotator column says "alice" but --annotator says "alice2"' "$T/err"
[ "$(wc -l <"$T/err")" = 1 ] || fail "not one line: $(cat "$T/err")"
[ "$(counts)" = "$before" ] || fail "the refused import changed the database"
cf labels import --help | grep -q "a row whose column names someone else is refused" || fail "--help says no rule"

# The same name, or the column alone: a round trip writes nothing new.
expect_exit 0 cf labels import "$T/a.csv" --annotator alice
expect_grep "0 label(s) written, 4 unchanged" "$T/out"
expect_exit 0 cf labels import "$T/a.csv"
expect_grep "0 label(s) written" "$T/out"

# Under another name (the column edited): the note stays on the cause.
sed 's/,alice,/,alice2,/' "$T/a.csv" >"$T/b.csv"
expect_exit 0 cf labels import "$T/b.csv"
expect_grep "4 label(s) written" "$T/out"
[ "$(notes alice2 | tr '\n' ' ')" = "cause=only about the cause stage= symptom= " ] ||
  fail "the note was copied: $(notes alice2 | tr '\n' ' ')"
# Without a column, --annotator names every row; the old single note column still applies to
# every label of its row, as `label --note` does.
printf 'repo,number,symptom,cause,note\nacme/conv,2,crash,typo,both\n' >"$T/c.csv"
expect_exit 0 cf labels import "$T/c.csv" --annotator carol
[ "$(sqlite3 "$DB" "SELECT group_concat(dimension || '=' || note, ' ') FROM manual_labels WHERE annotator = 'carol'")" = "symptom=both cause=both" ] ||
  fail "note column: $(sqlite3 "$DB" "SELECT dimension, note FROM manual_labels WHERE annotator = 'carol'")"
cf labels export --annotator alice --json | python3 -c '
import json, sys
rows = json.load(sys.stdin)
one = [r for r in rows if r["number"] == 1][0]
assert one["notes"] == {"cause": "only about the cause"}, one
'
echo "labeling_roundtrip: ok"
