#!/usr/bin/env bash
# Issue 15: commands that only read open the database read-only and never migrate. A database
# the user cannot write still lists; an older schema gets one line telling to run `convfail
# init` and is left byte for byte unchanged; a missing database is not created.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null || skip "needs root and setpriv to test as an unprivileged user"

printf '{"repo":"acme/conv","number":1,"title":"Synthetic onnx","body":"export fails","state":"open"}\n' >"$T/i.jsonl"
cf import "$T/i.jsonl" >/dev/null
printf 'repo,number,annotator,symptom\nacme/conv,1,A,crash\n' >"$T/l.csv"
cf labels import "$T/l.csv" >/dev/null

# Read-only directory and file, as nobody.
mkdir "$T/ro"
cp "$DB" "$T/ro/db"
chmod 755 "$T"
chmod a-w "$T/ro/db" "$T/ro"
on_exit "chmod u+w '$T/ro'"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$BUILD/convfail" --db "$T/ro/db" --data-dir "$SRC/data" "$@"; }
sum=$(sha256sum "$T/ro/db")
for cmd in "list" "show acme/conv#1" "search onnx" "stats" "labels export" "labels history acme/conv#1 --json" "report --source A --format csv"; do
  # shellcheck disable=SC2086
  expect_exit 0 as_nobody $cmd
done
as_nobody list >"$T/out"
expect_grep "acme/conv#1" "$T/out"
expect_exit 1 as_nobody import "$T/i.jsonl"  # a write fails, with SQLite's reason
expect_grep "readonly\|read-only\|unable to open" "$T/err"
[ "$(sha256sum "$T/ro/db")" = "$sum" ] || fail "read-only database changed"
[ "$(ls "$T/ro")" = db ] || fail "files created beside the read-only database: $(ls "$T/ro")"

# An older schema: every migration but the last.
old=$T/old.db
last=$(ls "$SRC"/schema/[0-9]*.sql | tail -n 1)
for f in $(ls "$SRC"/schema/[0-9]*.sql | head -n -1); do sqlite3 "$old" <"$f"; done
prev=$(basename "$(ls "$SRC"/schema/[0-9]*.sql | head -n -1 | tail -n 1)" | sed 's/^0*\([0-9]*\)_.*/\1/')
sqlite3 "$old" "PRAGMA user_version=$prev"
sum=$(sha256sum "$old")
DB=$old expect_exit 1 cf list
expect_grep "^convfail: error: database $old has schema version $prev, this convfail needs [0-9]*: run \`convfail init\` to migrate it" "$T/err"
[ "$(wc -l <"$T/err")" = 1 ] || fail "more than one line: $(cat "$T/err")"
DB=$old expect_exit 1 cf search onnx
[ "$(sha256sum "$old")" = "$sum" ] || fail "read-only command changed the old database"
[ ! -e "$old-wal" ] || fail "read-only command created a WAL file"
DB=$old cf init >"$T/out"
expect_grep "migrated from $prev" "$T/out"
DB=$old expect_exit 0 cf list
: "$last"

# A missing database: one line, nothing created.
DB=$T/none.db expect_exit 1 cf list
expect_grep "database $T/none.db does not exist: create it with \`convfail init\`" "$T/err"
[ ! -e "$T/none.db" ] || fail "list created the database"
