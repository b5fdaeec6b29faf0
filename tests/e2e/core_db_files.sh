#!/usr/bin/env bash
# The database file: a mistyped --db never creates a database (only init, import, labels import and crawl do;
# every other command says the file does not exist); a --db naming a FIFO or a directory is
# refused with one line (no hang, no "disk I/O error"); import past a file size limit
# (ulimit -f) fails with one line naming the file instead of dying of SIGXFSZ, and the database
# stays intact.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null && command -v python3 >/dev/null || skip "sqlite3/python3 missing"

cfd() { local db=$1; shift; "$BUILD/convfail" --db "$db" --data-dir "$SRC/data" "$@"; }
one_line() { [ "$(wc -l <"$T/err")" = 1 ] || fail "$1: not one line: $(cat "$T/err")"; }

# --- A missing database: only init, import, labels import and crawl create it --------------
missing=$T/typo.db
for args in "list" "stats" "classify" "label acme/conv#1 --symptom crash --annotator a" \
  "serve --port 0" "labels history acme/conv#1" "report"; do
  # shellcheck disable=SC2086
  expect_exit 1 timeout 20 "$BUILD/convfail" --db "$missing" --data-dir "$SRC/data" $args </dev/null
  [ -e "$missing" ] && fail "'$args' created $missing"
  expect_grep "does not exist" "$T/err"
  one_line "$args"
done
python3 - "$T" <<'PY'
import json, sys
with open(f"{sys.argv[1]}/issues.jsonl", "w") as f:
    for n in range(1, 4):
        f.write(json.dumps({"repo": "acme/conv", "number": n, "title": f"export crash {n}",
                            "body": "Segmentation fault in export", "state": "open",
                            "created_at": "2022-01-01T00:00:00Z"}) + "\n")
PY
cfd "$T/new_by_import.db" import "$T/issues.jsonl" >/dev/null
[ -f "$T/new_by_import.db" ] || fail "import did not create its database"
cfd "$T/new_by_init.db" init >/dev/null
printf 'repo,number,symptom\nacme/conv,1,crash\n' >"$T/labels.csv"
cfd "$T/new_by_labels.db" labels import --annotator a --create-missing "$T/labels.csv" >/dev/null
[ "$(sqlite3 "$T/new_by_labels.db" "SELECT count(*) FROM manual_labels")" = 1 ] ||
  fail "labels import did not create its database"
[ -f "$T/new_by_init.db" ] || fail "init did not create its database"

# --- A FIFO or a directory as --db: refused at once, one line ------------------------------
mkfifo "$T/fifo.db"
mkdir "$T/dir.db"
for args in "list" "classify" "import $T/issues.jsonl" "init" "stats"; do
  # shellcheck disable=SC2086
  expect_exit 1 timeout 20 "$BUILD/convfail" --db "$T/fifo.db" --data-dir "$SRC/data" $args
  expect_grep "fifo.db is not a regular file" "$T/err"
  one_line "fifo $args"
  # shellcheck disable=SC2086
  expect_exit 1 timeout 20 "$BUILD/convfail" --db "$T/dir.db" --data-dir "$SRC/data" $args
  expect_grep "dir.db is a directory" "$T/err"
  one_line "dir $args"
done
[ -z "$(ls -A "$T/dir.db")" ] || fail "something was written into the directory"

# --- import under ulimit -f: EFBIG, one line naming the file, the database intact ----------
# Import writes in short transactions (issue #41): the slices committed before the disk filled
# stay (each whole: no issue without its body), the rest of the database is as it was, and a
# re-import completes it.
cf import "$T/issues.jsonl" >/dev/null
cp "$DB" "$DB.before"
python3 - "$T" <<'PY'
import json, sys
with open(f"{sys.argv[1]}/big.jsonl", "w") as f:
    for n in range(100, 3100):
        f.write(json.dumps({"repo": "acme/big", "number": n, "title": f"issue {n}",
                            "body": ("x" * 60 + f" {n}\n") * 40, "state": "open",
                            "created_at": "2022-01-01T00:00:00Z"}) + "\n")
PY
size_kb=$(($(stat -c %s "$DB") / 1024 + 256))
rc=0
(ulimit -f "$size_kb"; "$BUILD/convfail" --db "$DB" --data-dir "$SRC/data" import "$T/big.jsonl") \
  >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" = 1 ] || fail "import under ulimit -f: exit $rc (153 = killed by SIGXFSZ): $(cat "$T/err")"
one_line "import under ulimit -f"
expect_grep "$DB" "$T/err"
[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || fail "database damaged"
others() { sqlite3 "$DB" "SELECT count(*), group_concat(number) FROM issues i JOIN repositories r
  ON r.id = i.repo_id WHERE r.full_name <> 'acme/big'"; }
[ "$(others)" = "$(sqlite3 "$DB.before" "SELECT count(*), group_concat(number) FROM issues")" ] ||
  fail "issues other than the import's changed"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM issues WHERE body IS NULL OR length(body) < 2000")" = \
  "$(sqlite3 "$DB.before" "SELECT count(*) FROM issues WHERE body IS NULL OR length(body) < 2000")" ] ||
  fail "an issue was stored without its body"
cf import "$T/big.jsonl" >/dev/null
[ "$(sqlite3 "$DB" "SELECT count(*) FROM issues i JOIN repositories r ON r.id = i.repo_id
  WHERE r.full_name = 'acme/big'")" = 3000 ] || fail "re-import did not complete the import"
echo "ok"
