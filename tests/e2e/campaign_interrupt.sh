#!/usr/bin/env bash
# SIGTERM, SIGHUP and SIGINT during `test run` (issue #49 item 10): the run stops, every temporary
# folder it made is removed (the worker's scratch holding a tree 200 folders deep with folders of
# mode 0500 and 0000, the held model copies, the inbox, the ONNX Runtime runner's), the model the
# signal cut is not stored, and it exits 128+N; Ctrl-C says how far it got. As root and as uid
# 65534. Before: each signal left 4 folders, and the deep tree outlived even a normal run.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
set -euo pipefail
[ "$(id -u)" = 0 ] || skip "needs root (runs convfail as root and as uid 65534)"
command -v setpriv >/dev/null || skip "setpriv missing"

nbad=0
bad() {
  echo "FAIL: $*" >&2
  nbad=$((nbad + 1))
}

# one MODE DIR SIGNAL CODE
one() {
  local mode=$1 dir=$2 sig=$3 code=$4 before=$nbad
  mkdir -p "$dir/tmp" "$dir/s"
  cp "$SRC/tests/data/campaign/hostile/deep_tree_hang.py" "$dir/s/"
  local run=(env --default-signal=INT,HUP,TERM TMPDIR="$dir/tmp")
  if [ "$mode" = nobody ]; then
    chown -R 65534:65534 "$dir"
    run+=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  fi
  "${run[@]}" "$BUILD/convfail" --db "$dir/db" --data-dir "$SRC/data" test run --jobs 1 \
    --inputs 1 --timeout 300 --source "script:$dir/s/deep_tree_hang.py" \
    >"$dir/out" 2>"$dir/err" &
  local pid=$! rc=0 ready=
  for _ in $(seq 1 600); do
    ready=$(find "$dir/tmp" -maxdepth 2 -name ready 2>/dev/null | head -1)
    [ -n "$ready" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  [ -n "$ready" ] || { bad "$mode $sig: the worker never got to the model: $(tail -3 "$dir/err")"; return; }
  [ "$(find "$dir/tmp" -mindepth 1 -maxdepth 1 -name 'convfail-*' | wc -l)" -ge 3 ] ||
    bad "$mode $sig: expected the run's temporary folders: $(ls "$dir/tmp")"
  local t0=$SECONDS
  kill -s "$sig" "$pid"
  wait "$pid" || rc=$?
  [ "$rc" = "$code" ] || bad "$mode $sig: exit $rc, expected $code: $(tail -3 "$dir/err")"
  [ $((SECONDS - t0)) -lt 60 ] || bad "$mode $sig: took $((SECONDS - t0)) s to stop"
  local left
  left=$(find "$dir/tmp" -mindepth 1 -maxdepth 1 | wc -l)
  [ "$left" = 0 ] || bad "$mode $sig: $left temporary folder(s) left: $(ls "$dir/tmp")"
  [ "$(sqlite3 "$dir/db" "SELECT count(*) FROM campaign_models")" = 0 ] ||
    bad "$mode $sig: the model the signal cut was stored"
  if [ "$sig" = INT ]; then
    grep -q "interrupted: 0 of 1 stored; run the same command to continue" "$dir/err" ||
      bad "$mode $sig: $(tail -2 "$dir/err")"
  else
    grep -q "stopped by SIG$sig: 0 of 1 stored; run the same command to continue" "$dir/err" ||
      bad "$mode $sig: $(tail -2 "$dir/err")"
  fi
  if [ "$nbad" = "$before" ]; then echo "ok $mode $sig ($((SECONDS - t0)) s to stop)"; fi
}

chmod 0755 "$T"
for mode in root nobody; do
  one $mode "$T/$mode-term" TERM 143
  one $mode "$T/$mode-hup" HUP 129
  one $mode "$T/$mode-int" INT 130
done
[ "$nbad" = 0 ] || fail "$nbad case(s) failed"
