#!/usr/bin/env bash
# `convfail annotate` on a real pseudo-terminal (util-linux `script`): raw single keys, no
# Enter needed, colours on; label three issues, undo one answer, quit, resume, check the rows.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v script >/dev/null || skip "script (util-linux) missing"
CF="$BUILD/convfail --db $DB --data-dir $SRC/data"
for n in 1 2 3 4; do
  echo "{\"repo\":\"acme/conv\",\"number\":$n,\"title\":\"Synthetic $n\",\"body\":\"export fails $n\",\"state\":\"closed\"}"
done >"$T/issues.jsonl"
$CF import "$T/issues.jsonl" >/dev/null

# One key at a time, with pauses so each read sees one keystroke; no Enter anywhere.
keys() { for k in "$@"; do printf "%s" "$k"; sleep 0.15; done; sleep 1.5; }
run_pty() { timeout 60 script -qec "$CF annotate --annotator P" /dev/null; }

# Issue 1: symptom 1 crash, cause 3 type_problem, subtype 1 node, stage 2 node_conversion.
# Issue 2: 2 wrong_model, 10 algorithmic_error (two digits), 6 not_distinguishable.
# Issue 3: 1 crash, 4 shape_problem, 2 node_conversion, then u (undo the stage), q.
# `?` at the first symptom and at the first cause prompt shows the codebook of that dimension.
{ sleep 0.5; keys '?' 1 '?' 3 1 2  2 1 0 6  1 4 2 u q; } | run_pty >"$T/first" 2>&1
grep -q $'\x1b\[' "$T/first" || { echo "no colours on the terminal"; cat "$T/first"; exit 1; }
# The codebook: every choice of the dimension with its definition and an example.
plain=$(sed 's/\x1b\[[0-9;]*[A-Za-z]//g; s/\x1b[78]//g' "$T/first")
for want in "codebook: symptom" "1 crash: The conversion itself stops" "6 unreported: " \
  "codebook: cause" "14 others: " "e.g. Indices are emitted as int32"; do
  grep -qF -- "$want" <<<"$plain" || { echo "no \"$want\" after ?"; tail -40 <<<"$plain"; exit 1; }
done
# A pending first digit: `1` at the cause prompt shows "1_" and the labels it could complete.
grep -qF "1_  1 api_misuse · 10 algorithmic_error · 11 typo · 12 testing · 13 documentation · 14 others  (next digit, Enter for 1)" <<<"$plain" ||
  { echo "no pending-digit feedback"; grep -n "cause>" <<<"$plain" | head; exit 1; }
{ sleep 0.5; keys 3 q; } | run_pty >"$T/second" 2>&1
grep -q "resuming session 1" "$T/second" || { cat "$T/second"; exit 1; }

got=$(sqlite3 "$DB" "SELECT i.number||':'||m.dimension||'='||coalesce(m.value,'-')||':'||m.kind FROM manual_labels m JOIN issues i ON i.id=m.issue_id ORDER BY m.id" | tr '\n' ' ')
want="1:symptom=crash:label 1:cause=type_problem:label 1:subtype=node:label 1:stage=node_conversion:label 2:symptom=wrong_model:label 2:cause=algorithmic_error:label 2:stage=not_distinguishable:label 3:symptom=crash:label 3:cause=shape_problem:label 3:stage=node_conversion:label 3:stage=-:undo 3:stage=optimization:label "
if [ "$got" != "$want" ]; then
  echo "rows differ"; echo "got:  $got"; echo "want: $want"; cat -v "$T/first" | tail -20; exit 1
fi
# The terminal is restored: the session printed its summary after leaving raw mode.
grep -q "session 1: 10 answer(s), 0 skip(s), 1 undo(s); 2 of 4 issue(s) done" "$T/first"
echo ok
