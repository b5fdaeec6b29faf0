#!/usr/bin/env bash
# A killed annotate session loses nothing: answers given before SIGKILL are rows already, and
# the same command resumes at the next question.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
PID=
on_exit '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null'
q() { sqlite3 -cmd ".timeout 5000" "$T/db" "$@"; }  # waits out a lock instead of failing
for n in 1 2; do
  echo "{\"repo\":\"acme/conv\",\"number\":$n,\"title\":\"Synthetic $n\",\"body\":\"text $n\"}"
done >"$T/issues.jsonl"
cf import "$T/issues.jsonl" >/dev/null

mkfifo "$T/keys"
# convfail itself in the background (not through cf, whose subshell would be what PID kills).
"$BUILD/convfail" --db "$T/db" --data-dir "$SRC/data" annotate --annotator K <"$T/keys" >"$T/out" 2>&1 &
PID=$!
exec 3>"$T/keys"
printf '1\n2\n' >&3   # symptom crash, cause incompatibility
for _ in $(seq 50); do   # wait (at most 5 s) until both answers are rows
  [ "$(q 'SELECT count(*) FROM manual_labels' 2>/dev/null)" = 2 ] && break
  sleep 0.1
done
kill -9 "$PID"; wait "$PID" 2>/dev/null || true; PID=
exec 3>&-
[ "$(q 'SELECT count(*) FROM manual_labels')" = 2 ]

# Resume: incompatibility has subtypes, so the next question is the subtype of issue 1.
printf '2\n2\nq\n' | cf annotate --annotator K >"$T/out2" 2>&1
grep -q "resuming session 1" "$T/out2"
grep -q "^subtype> 2" "$T/out2"
got=$(q "SELECT dimension||'='||value FROM manual_labels ORDER BY id" | tr '\n' ' ')
[ "$got" = "symptom=crash cause=incompatibility subtype=external stage=node_conversion " ] ||
  { echo "got: $got"; cat "$T/out2"; exit 1; }
echo ok
