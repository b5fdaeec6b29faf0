#!/usr/bin/env bash
# Ctrl-C in `convfail annotate` (issue 50 item 2): on a real pseudo-terminal (util-linux
# `script`) the ^C key (also on a terminal left with ISIG off), and in line mode a SIGINT, stop
# the session as `q` does: every answer saved, the summary, "interrupted: ... run the same
# command to resume", exit 130; the next run resumes where it stopped.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v script >/dev/null || skip "script (util-linux) missing"
CF="$BUILD/convfail --db $DB --data-dir $SRC/data"
for n in 1 2 3 4; do
  echo "{\"repo\":\"acme/conv\",\"number\":$n,\"title\":\"Synthetic $n\",\"body\":\"export fails $n\",\"state\":\"closed\"}"
done >"$T/issues.jsonl"
$CF import "$T/issues.jsonl" >/dev/null
labels() { sqlite3 "$DB" "SELECT count(*) FROM manual_labels WHERE kind = 'label'"; }

# Issue 1: crash, type_problem, node, node_conversion; issue 2: wrong_model; then Ctrl-C (^C,
# which the terminal turns into SIGINT), with nothing typed after it.
keys() { for k in "$@"; do printf "%b" "$k"; sleep 0.15; done; sleep 1.5; }
rc=0
{ sleep 0.5; keys 1 3 1 2 2 '\003'; sleep 3; } |
  timeout 60 script -qec "$CF annotate --annotator P" /dev/null >"$T/pty" 2>&1 || rc=$?
plain=$(sed 's/\x1b\[[0-9;]*[A-Za-z]//g; s/\x1b[78]//g; s/\r//g' "$T/pty")
[ "$rc" = 130 ] || fail "^C on a terminal: exit $rc, not 130: $(tail -5 <<<"$plain")"
grep -qF "session 1: 5 answer(s), 0 skip(s), 0 undo(s); 1 of 4 issue(s) done (run the same command to resume)" <<<"$plain" ||
  fail "no summary after ^C: $(tail -5 <<<"$plain")"
grep -qF "convfail: interrupted: 5 answers of this run saved, 1 of 4 issue(s) done; run the same command to resume" <<<"$plain" ||
  fail "no interrupted line after ^C: $(tail -5 <<<"$plain")"
[ "$(labels)" = 5 ] || fail "^C: $(labels) labels stored, want 5"
echo "ok   ^C on a terminal: 5 answers saved, exit 130"

# A terminal left with ISIG off (stty -isig): ^C arrives as a byte. It used to be ignored (three
# presses did nothing while q and Ctrl-D worked); it stops the session the same way.
rc=0
{ sleep 0.5; keys '\003'; sleep 3; } |
  timeout 60 script -qec "stty -isig; $CF annotate --annotator R" /dev/null >"$T/isig" 2>&1 || rc=$?
plain=$(sed 's/\x1b\[[0-9;]*[A-Za-z]//g; s/\x1b[78]//g; s/\r//g' "$T/isig")
[ "$rc" = 130 ] || fail "^C with stty -isig: exit $rc, not 130: $(tail -5 <<<"$plain")"
grep -qF "convfail: interrupted: 0 answers of this run saved, 0 of 4 issue(s) done" <<<"$plain" ||
  fail "no interrupted line after ^C with stty -isig: $(tail -5 <<<"$plain")"
echo "ok   ^C on a terminal with ISIG off: exit 130"

# Line mode (input piped): SIGINT while the session waits for an answer. Started with job
# control (set -m): a script's plain background job starts with SIGINT ignored, which convfail
# keeps ignored (core/interrupt.h), as a user's background job keeps running on Ctrl-C.
mkfifo "$T/in"
set -m
$CF annotate --annotator P <"$T/in" >"$T/line.out" 2>"$T/line.err" &
pid=$!
set +m
exec 3>"$T/in"
printf '3\n' >&3  # issue 2's cause: 3 type_problem
for _ in $(seq 100); do [ "$(labels)" = 6 ] && break; sleep 0.1; done
[ "$(labels)" = 6 ] || fail "line mode: the answer was not stored"
kill -INT "$pid"
running() { [ -e "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; }
for _ in $(seq 100); do running || break; sleep 0.1; done
running && { kill -KILL "$pid"; fail "SIGINT in line mode: still running after 10 s"; }
rc=0
wait "$pid" || rc=$?
exec 3>&-
[ "$rc" = 130 ] || fail "SIGINT in line mode: exit $rc, not 130: $(cat "$T/line.err")"
expect_grep "resuming session 1" "$T/line.err"
expect_grep "convfail: interrupted: 1 answer of this run saved, 1 of 4 issue(s) done; run the same command to resume" "$T/line.err"
echo "ok   SIGINT in line mode: the answer saved, exit 130"
