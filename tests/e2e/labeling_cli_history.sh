#!/usr/bin/env bash
# Every labeling command through the CLI: after each one, every earlier manual_labels row is
# still there, unchanged (append-only history); bad input exits non-zero with one line.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
dump() { sqlite3 "$T/db" "SELECT id,issue_id,annotator,dimension,quote(value),kind,quote(note),source,created_at FROM manual_labels ORDER BY id"; }
step=0
check() {  # the previous dump must be a prefix of the current one
  step=$((step + 1))
  dump >"$T/now"
  if [ -f "$T/before" ] && ! cmp -s "$T/before" <(head -n "$(wc -l <"$T/before")" "$T/now"); then
    echo "history changed at step $step ($1)"; diff "$T/before" "$T/now" || true; exit 1
  fi
  cp "$T/now" "$T/before"
}
expect_fail() {  # expect_fail CODE PATTERN convfail-arguments...: that exit, one error line
  local code=$1 pattern=$2; shift 2
  expect_exit "$code" cf "$@"
  expect_grep "$pattern" "$T/err"
  [ "$(wc -l <"$T/err")" -le 2 ] || fail "more than one error line: $(cat "$T/err")"
}

# Synthetic issues (no third-party text).
for n in 1 2 3 4; do
  echo "{\"repo\":\"acme/conv\",\"number\":$n,\"title\":\"Synthetic $n\",\"body\":\"export fails $n\",\"state\":\"closed\",\"comments\":[{\"author\":\"x\",\"body\":\"comment on $n\"}]}"
done >"$T/issues.jsonl"
cf import "$T/issues.jsonl" >/dev/null
check init

cf label acme/conv#1 --annotator A --symptom Crash --cause "Type Problem" --subtype Node --stage "Node Transformation" >/dev/null
check label
cf label acme/conv#1 --annotator A --symptom wrong_model --note "second look" >/dev/null
check "label change"
expect_fail 1 "unknown symptom \"boom\"; valid: crash" label acme/conv#1 --annotator A --symptom boom
expect_fail 1 "does not belong to cause" label acme/conv#1 --annotator A --cause incompatibility --subtype node
expect_fail 2 "bad issue reference .acme-conv-1.*expected OWNER/REPO#N" label acme-conv-1 --annotator A --symptom crash
expect_fail 1 "not in the store" label acme/conv#99 --annotator A --symptom crash
check "refused labels"

printf 'repo,number,rater,symptom,cause,note\nacme/conv,1,B,crash,Incompatability,"a, ""quoted""\nnote"\nacme/conv,2,B,hang,typo,\nacme/conv,2,A,hang,others,\nacme/conv,50,A,crash,typo,\n' >"$T/good.csv"
cf labels import "$T/good.csv" >/dev/null 2>"$T/err"
grep -q "skipped 1 row(s) for 1 issue(s)" "$T/err"
check import
cf labels import "$T/good.csv" >"$T/out" 2>/dev/null
grep -q "0 label(s) written" "$T/out"
check re-import
printf 'repo,number,rater,symptom\nacme/conv,3,A,crash\nacme/conv,4,A,"crash\n' >"$T/bad.csv"
expect_fail 1 "bad.csv:3: unterminated quoted field" labels import "$T/bad.csv"
printf 'repo,number,rater,symptom\nacme/conv,3,A,crash\nacme/conv,4,A,explode\n' >"$T/bad2.csv"
expect_fail 1 "bad2.csv:3: unknown symptom" labels import "$T/bad2.csv"
check "malformed imports"
[ "$(sqlite3 "$T/db" "SELECT count(*) FROM manual_labels m JOIN issues i ON i.id=m.issue_id WHERE i.number=3")" = 0 ]

cf labels export >"$T/export.csv"
grep -q '^acme/conv,1,B,crash,incompatibility,,,"a, ""quoted""' "$T/export.csv"
cf labels export --format jsonl --annotator A | python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]'
cf labels history acme/conv#1 >/dev/null
check export

printf '1\n2\n1\nu\n4\n2\ns\nq\n' | cf annotate --annotator A >/dev/null 2>&1
check annotate
printf '3\nq\n' | cf annotate --annotator A >"$T/out" 2>&1
grep -q "resuming session" "$T/out"
check "annotate resume"

printf '1\n1\n1\n1\n1\n1\n' | cf adjudicate --annotators A,B --as J >/dev/null 2>&1
check adjudicate
cf agreement --annotators A,B >/dev/null
cf agreement --annotators A,B,J --json >/dev/null
expect_fail 1 "has no labels" agreement --annotators A,Nobody
expect_fail 2 "" agreement --annotators A,B --dimension color
check agreement

cf import "$T/issues.jsonl" >/dev/null
cf init >/dev/null
check "re-import issues and migrate"

sqlite3 "$T/db" "UPDATE manual_labels SET value='x'" 2>/dev/null && { echo "UPDATE allowed"; exit 1; }
sqlite3 "$T/db" "DELETE FROM manual_labels" 2>/dev/null && { echo "DELETE allowed"; exit 1; }
check "direct writes refused"
[ "$(wc -l <"$T/before")" -ge 15 ]
echo ok
