# Sourced first by every tests/e2e/<module>_*.sh, which ctest runs as
#   bash SCRIPT BUILD_DIR SOURCE_DIR SHARED_DIR
# Gives: BUILD SRC SHARED; T, a fresh temp dir removed at exit (on_exit adds cleanup before
# that); DB ($T/db unless the script sets another); cf (build/convfail on $DB with the source
# data folder); fail, skip (exit 77), expect_exit, expect_grep; counts (the row-count
# fingerprint of a database); one_rule_set (a one-rule rules folder); root_then_nobody (a test
# run as root and as uid 65534).
# Leaves the shell options (set -e or not) to the script.

BUILD=$1 SRC=${2-} SHARED=${3-}
T=$(mktemp -d)
DB=$T/db

# Cleanup commands run at exit, last added first, then $T is removed. A failing command does
# not change the test's exit status.
_lib_exit_hooks=()
on_exit() { _lib_exit_hooks=("$1" "${_lib_exit_hooks[@]}"); }
_lib_exit() {
  local rc=$? hook
  for hook in "${_lib_exit_hooks[@]}"; do eval "$hook" || true; done
  rm -rf "$T"
  exit "$rc"
}
trap _lib_exit EXIT

cf() { "$BUILD/convfail" --db "$DB" --data-dir "$SRC/data" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skip: $*"; exit 77; }

# expect_exit CODE COMMAND...: runs COMMAND (stdout to $T/out, stderr to $T/err) and fails
# unless it exits with CODE.
expect_exit() {
  local code=$1 rc=0
  shift
  "$@" >"$T/out" 2>"$T/err" || rc=$?
  [ "$rc" = "$code" ] || fail "expected exit $code, got $rc: $* ($(head -c 500 "$T/err"))"
}

# expect_grep PATTERN FILE: fails, showing FILE, unless PATTERN (grep's basic regex) matches.
expect_grep() {
  grep -q -- "$1" "$2" || fail "no '$1' in $2: $(head -c 1000 "$2")"
}

# counts [DB]: row count of every table (FTS shadow tables included), the "database unchanged"
# fingerprint.
counts() {
  local db=${1:-$DB} t
  for t in $(sqlite3 "$db" "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"); do
    printf '%s=%s ' "$t" "$(sqlite3 "$db" "SELECT count(*) FROM \"$t\"")"
  done
}

# root_then_nobody FUNC: `FUNC root DIR`, then `FUNC nobody DIR`, each DIR a fresh folder (the
# second owned by uid 65534, under a folder it may enter): for the sandbox tests, which run
# convfail as root and again as an unprivileged user. Returns 1 when either call failed.
root_then_nobody() {
  local rc=0 home
  mkdir -p "$T/root"
  "$1" root "$T/root" || rc=1
  home=$(mktemp -d)
  on_exit "rm -rf '$home'"
  chmod 755 "$home"
  mkdir "$home/nobody" && chown 65534:65534 "$home/nobody"
  "$1" nobody "$home/nobody" || rc=1
  return $rc
}

# one_rule_set DIR: a rules folder with the shipped settings and one rule, symptom crash on the
# word "error" in the title (synthetic sets where a model must fix what this rule gets wrong).
one_rule_set() {
  mkdir -p "$1"
  cp "$SRC/data/rules/00_settings.json" "$1/"
  cat >"$1/symptom.json" <<'JSON'
{"rules": [
  {"id": "symptom.crash.error_title", "dimension": "symptom", "label": "crash",
   "fields": ["title"], "weight": 1.0, "patterns": ["\\berror\\b"]}
]}
JSON
}
