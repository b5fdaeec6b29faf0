#!/usr/bin/env bash
# Everything the campaign's sandboxed worker leaves is hostile (issue #41): scripts that plant
# links to host files and folders, a link where the next script is handed in, a FIFO for a model,
# a forged reply (an outcome outside the five with escape codes, graph edges out of range), a
# worker poisoned for the next script; and two runs of one campaign at once. As root and as
# uid 65534 (nobody). Each case failed on main 398ccaf.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
set -euo pipefail
[ "$(id -u)" = 0 ] || skip "needs root (runs convfail as root and as uid 65534)"
command -v setpriv >/dev/null || skip "setpriv missing"
H=$SRC/tests/data/campaign/hostile
D=$SRC/tests/data/campaign

# Host secrets the scripts point at: a root-only file in a root-only folder, and a folder of keys.
SECRET=cfsecret$$x$RANDOM
chmod 0755 "$T"  # uid 65534 reaches its own folder below; the secrets stay 0700
mkdir -m 0700 "$T/private" "$T/keys"
echo "$SECRET-file" >"$T/private/secret" && chmod 0600 "$T/private/secret"
echo "$SECRET-key" >"$T/keys/id_rsa" && chmod 0600 "$T/keys/id_rsa"
echo "host file, unchanged" >"$T/victim"
VICTIM_SUM=$(sha256sum "$T/victim")
fill() {  # fill SCRIPT OUT MODE: the script with the host paths (and the forge mode) filled in
  sed -e "s#HOST_FILE#$T/private/secret#g; s#HOST_DIR#$T/keys#g; s#\"MODE\"#\"$3\"#" "$H/$1" >"$2"
}

nbad=0
bad() {  # every attack is checked even after one got through (the note lists them all)
  echo "FAIL: $*" >&2
  nbad=$((nbad + 1))
}

one_mode() {
  local mode=$1 dir=$T/$1
  mkdir -p "$dir/s"
  fill plant_links.py "$dir/s/plant_links.py" -
  fill plant_script.py "$dir/s/plant_script.py" -
  sed -i "s#HOST_FILE#$T/victim#g" "$dir/s/plant_script.py"
  fill fifo_model.py "$dir/s/fifo_model.py" -
  fill forge_reply.py "$dir/s/forge_outcome.py" outcome
  fill forge_reply.py "$dir/s/forge_edges.py" edges
  cp "$H/poison_export.py" "$D/fft.py" "$D/ok.py" "$dir/s/"
  local run=("$BUILD/convfail" --db "$dir/db" --data-dir "$SRC/data")
  if [ "$mode" = nobody ]; then
    chown -R 65534:65534 "$dir"
    run=(env TMPDIR="$dir" setpriv --reuid=65534 --regid=65534 --clear-groups "${run[@]}")
  fi
  local s=$dir/s
  local t0=$SECONDS
  "${run[@]}" test run --jobs 1 --inputs 1 --timeout 20 --source "script:$s/plant_links.py" \
    --source "script:$s/plant_script.py" --source "script:$s/ok.py" \
    --source "script:$s/fifo_model.py" --source "script:$s/forge_outcome.py" \
    --source "script:$s/forge_edges.py" --source "script:$s/poison_export.py" \
    --source "script:$s/fft.py" >"$dir/run.out" 2>"$dir/run.err" ||
    bad "$mode: test run: $(tail -3 "$dir/run.err")"
  [ $((SECONDS - t0)) -lt 240 ] || bad "$mode: the run took $((SECONDS - t0)) s (a FIFO blocked it?)"
  q() { sqlite3 "$dir/db" "$1"; }
  out() { q "SELECT outcome FROM campaign_models WHERE seq = $1"; }
  msg() { q "SELECT COALESCE(message, '') FROM campaign_models WHERE seq = $1"; }
  # The planted links: a conversion failure with no model stored; nothing of the host anywhere.
  [ "$(out 0)" = conversion_failure ] || bad "$mode: plant_links: $(out 0) $(msg 0)"
  [ -z "$(q "SELECT model_sha256 FROM campaign_models WHERE seq = 0")" ] ||
    bad "$mode: plant_links: a model was stored"
  # The planted script: the next script ran as itself; the host file was neither written nor made.
  [ "$(out 1)" = success ] || bad "$mode: plant_script: $(out 1) $(msg 1)"
  [ "$(out 2)" = success ] || bad "$mode: ok.py after plant_script: $(out 2) $(msg 2)"
  [ "$(sha256sum "$T/victim")" = "$VICTIM_SUM" ] || bad "$mode: the host file was overwritten"
  # The FIFO: invalid, said as the worker's output refused, within --timeout.
  [ "$(out 3)" = invalid ] || bad "$mode: fifo: $(out 3) $(msg 3)"
  case $(msg 3) in *FIFO*) ;; *) bad "$mode: fifo message: $(msg 3)" ;; esac
  # The forged outcome: invalid with the reason; no escape code stored or printed.
  [ "$(out 4)" = invalid ] || bad "$mode: forged outcome: $(out 4) $(msg 4)"
  case $(msg 4) in *"not one the worker may give"*) ;; *) bad "$mode: forged message: $(msg 4)" ;; esac
  if LC_ALL=C grep -q $'[\x07\x1b]' "$dir/run.err" "$dir/run.out"; then
    bad "$mode: an escape code reached the terminal"
  fi
  [ "$(q "SELECT count(*) FROM campaign_models WHERE instr(COALESCE(message,'') || outcome, char(27)) > 0")" = 0 ] ||
    bad "$mode: an escape code was stored"
  # Edges out of range: invalid, and the report of the whole campaign still works.
  [ "$(out 5)" = invalid ] || bad "$mode: forged edges: $(out 5) $(msg 5)"
  case $(msg 5) in *"outside the graph"*) ;; *) bad "$mode: edges message: $(msg 5)" ;; esac
  # The poisoned worker: the next script's real conversion failure is still one.
  [ "$(out 6)" = success ] || bad "$mode: poison_export itself: $(out 6) $(msg 6)"
  [ "$(out 7)" = conversion_failure ] || bad "$mode: fft.py after the poison: $(out 7) $(msg 7)"
  case $(q "SELECT signature FROM campaign_models WHERE seq = 7") in *fft*) ;;
    *) bad "$mode: fft.py signature: $(q "SELECT signature FROM campaign_models WHERE seq = 7")" ;;
  esac
  # Every outcome is one of the six; status counts every row.
  [ "$(q "SELECT count(*) FROM campaign_models WHERE outcome NOT IN ('conversion_failure',
    'ort_failure', 'mismatch', 'success', 'invalid', 'not_run')")" = 0 ] || bad "$mode: an outcome outside the six"
  "${run[@]}" report --campaign 1 --format md >"$dir/report.md" 2>"$dir/report.err" ||
    bad "$mode: report: $(cat "$dir/report.err")"
  # Bundles of every group: no host byte in them, nor anywhere in the store.
  for g in $(q "SELECT id FROM campaign_groups"); do
    "${run[@]}" test bundle "$g" "$dir/bundle_$g" >/dev/null 2>&1 || true
  done
  if grep -rqs "$SECRET" "$dir"/bundle_* "$dir/convfail-data"; then
    bad "$mode: a host secret reached a bundle or the store"
  fi
  if find "$dir/convfail-data" -type l | grep -q .; then bad "$mode: a link in the store"; fi
  echo "ok $mode ($((SECONDS - t0)) s)"
}

one_mode root
one_mode nobody
[ "$nbad" = 0 ] || fail "$nbad attack(s) got through"

# Two runs of one campaign at once: the second says who holds it and does no work.
dir=$T/lock
mkdir -p "$dir"
cp "$SRC/tests/data/campaign/hang.py" "$dir/hang.py"
"$BUILD/convfail" --db "$dir/db" --data-dir "$SRC/data" test run --source "script:$dir/hang.py" \
  --timeout 20 --jobs 1 --inputs 1 >"$dir/first.out" 2>"$dir/first.err" &
first=$!
for _ in $(seq 1 100); do
  compgen -G "$dir/convfail-data/locks/*.campaign-1.lock" >/dev/null &&
    [ -s "$(compgen -G "$dir/convfail-data/locks/*.campaign-1.lock")" ] && break
  sleep 0.2
done
if "$BUILD/convfail" --db "$dir/db" --data-dir "$SRC/data" test run --source "script:$dir/hang.py" \
  --timeout 20 --jobs 1 --inputs 1 >"$dir/second.out" 2>"$dir/second.err"; then
  fail "a second run of the same campaign ran beside the first"
fi
grep -q "campaign 1 is being run by pid $first" "$dir/second.err" ||
  fail "second run: $(cat "$dir/second.err")"
wait "$first" || true
# The lock dies with its holder: a third run after the first continues the campaign.
"$BUILD/convfail" --db "$dir/db" --data-dir "$SRC/data" test run --source "script:$dir/hang.py" \
  --timeout 5 --jobs 1 --inputs 1 >/dev/null 2>"$dir/third.err" || fail "third run: $(cat "$dir/third.err")"
echo "ok lock"
