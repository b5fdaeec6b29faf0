#!/usr/bin/env bash
# The campaign lock is keyed on the database file and its folder is the user's (issue #49 item
# 9). As root: the same database through a link is one campaign (the second run is refused naming
# the first), a hard link or a symbolic link planted in locks/ or locks/ itself a link is refused
# without writing the host file, and a locks/ that others can write is refused. As uid 65534:
# the same refusals hold for a campaign of its own. Before: two runs of one campaign through two
# paths, the host file truncated and rewritten, and a held lock removable by nobody.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
set -euo pipefail
[ "$(id -u)" = 0 ] || skip "needs root (plants root's files, runs convfail as uid 65534)"
command -v setpriv >/dev/null || skip "setpriv missing"
chmod 0755 "$T"

nbad=0
bad() {
  echo "FAIL: $*" >&2
  nbad=$((nbad + 1))
}
# run DIR DB [as nobody]: a short campaign of one script; stdout/stderr in DIR/run.out, run.err.
run() {
  local dir=$1 db=$2 pre=()
  [ "${3-}" = nobody ] && pre=(env TMPDIR="$dir/tmp" setpriv --reuid=65534 --regid=65534 --clear-groups)
  "${pre[@]}" "$BUILD/convfail" --db "$db" --data-dir "$SRC/data" test run --jobs 1 --inputs 1 \
    --timeout 30 --source "script:$SRC/tests/data/campaign/ok.py" >"$dir/run.out" 2>"$dir/run.err"
}
lock_of() { echo "$(dirname "$1")/convfail-data/locks/$(stat -c '%d.%i' "$1").campaign-1.lock"; }

# 1. One database, two paths: b/db is a link to a/db. The second run is refused, naming the first.
d=$T/paths
mkdir -p "$d/a" "$d/b"
cfdb "$d/a/db" init >/dev/null
ln -s "$d/a/db" "$d/b/db"
cp "$SRC/tests/data/campaign/hang.py" "$d/hang.py"
"$BUILD/convfail" --db "$d/a/db" --data-dir "$SRC/data" test run --source "script:$d/hang.py" \
  --timeout 60 --jobs 1 --inputs 1 >"$d/first.out" 2>"$d/first.err" &
first=$!
for _ in $(seq 1 300); do
  [ -s "$(lock_of "$d/a/db")" ] && break
  sleep 0.2
done
[ -s "$(lock_of "$d/a/db")" ] || bad "paths: the first run took no lock: $(tail -2 "$d/first.err")"
if cfdb "$d/b/db" test run --source "script:$d/hang.py" --timeout 60 --jobs 1 --inputs 1 \
  >"$d/second.out" 2>"$d/second.err"; then
  bad "paths: a second run of the same campaign through a link ran beside the first"
fi
grep -q "campaign 1 is being run by pid $first" "$d/second.err" ||
  bad "paths: second run: $(tail -2 "$d/second.err")"
[ ! -e "$d/b/convfail-data/locks" ] || bad "paths: a second lock folder beside the link"
kill "$first" && wait "$first" || true
grep -q "stopped by SIGTERM" "$d/first.err" || bad "paths: the first run: $(tail -2 "$d/first.err")"
echo "ok   one lock for a database reached through a link"

# 2. Planted in locks/: a hard link and a symbolic link of the lock's name; locks/ a link.
d=$T/plant
mkdir -p "$d/host"
cfdb "$d/db" init >/dev/null
echo "host file, unchanged" >"$d/victim"
lock=$(lock_of "$d/db")
mkdir -p "$(dirname "$lock")"
ln "$d/victim" "$lock"
run "$d" "$d/db" && bad "plant: ran with a hard link as its lock"
grep -q "is a hard link to another file: refused" "$d/run.err" || bad "plant: $(tail -1 "$d/run.err")"
rm "$lock" && ln -s "$d/victim" "$lock"
run "$d" "$d/db" && bad "plant: ran with a symbolic link as its lock"
grep -q "a symbolic link" "$d/run.err" || bad "plant: $(tail -1 "$d/run.err")"
rm -r "$(dirname "$lock")"
echo "host file, unchanged" >"$d/host/$(basename "$lock")"
ln -s "$d/host" "$(dirname "$lock")"
run "$d" "$d/db" && bad "plant: ran with locks/ a link"
grep -q "locks is a symbolic link: refused" "$d/run.err" || bad "plant: $(tail -1 "$d/run.err")"
[ "$(cat "$d/victim")" = "host file, unchanged" ] || bad "plant: the hard-linked host file was written"
[ "$(cat "$d/host/$(basename "$lock")")" = "host file, unchanged" ] ||
  bad "plant: the host file behind locks/ was written"
echo "ok   links planted in or as locks/ refused, host files unchanged"

# 3. locks/ writable by others: refused, for root and for uid 65534's own campaign.
for who in root nobody; do
  d=$T/open-$who
  mkdir -p "$d/tmp"
  cfdb "$d/db" init >/dev/null
  [ $who = nobody ] && chown -R 65534:65534 "$d"
  lock=$(lock_of "$d/db")
  mkdir -p "$(dirname "$lock")"
  [ $who = nobody ] && chown -R 65534:65534 "$d"
  chmod 0777 "$(dirname "$lock")"
  run "$d" "$d/db" $who && bad "$who: ran with a lock folder others can write"
  grep -q "is writable by others (mode 0777)" "$d/run.err" || bad "$who: $(tail -1 "$d/run.err")"
  [ ! -e "$lock" ] || bad "$who: a lock file was made in a folder others can write"
  chmod 0755 "$(dirname "$lock")"
  run "$d" "$d/db" $who || bad "$who: a run with its own lock folder: $(tail -2 "$d/run.err")"
  [ "$(stat -c %u "$lock")" = "$([ $who = root ] && echo 0 || echo 65534)" ] || bad "$who: lock owner"
  # Nobody else can remove it now: the folder is its owner's alone.
  if [ $who = root ] && setpriv --reuid=65534 --regid=65534 --clear-groups rm -f "$lock" 2>/dev/null; then
    bad "root: uid 65534 removed root's lock"
  fi
  echo "ok   $who: a lock folder others can write refused; its own taken"
done
[ "$nbad" = 0 ] || fail "$nbad case(s) failed"
