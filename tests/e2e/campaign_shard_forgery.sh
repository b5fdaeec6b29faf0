#!/usr/bin/env bash
# A shard's model store is hostile input (issue 49 item 1): a one-row shard whose row names the
# hash of relu_int16.py's real export, with another model.onnx and program.py in its store folder,
# is refused by `test merge` in one line and leaves nothing in the target; a forged folder already
# in the target's store under that name is not trusted by a later run or merge; a bundle then
# holds only files that hash to their names (model.onnx) or are the run's own (program.py).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_campaign.sh"
set -euo pipefail
D=$SRC/tests/data/campaign
mkdir -p "$T/ref" "$T/f" "$T/t" "$T/h"

# The real export's hash and files: one run of the script.
cfdb "$T/ref/ref.db" test run --source "script:$D/relu_int16.py" --jobs 1 --inputs 1 \
  >/dev/null 2>"$T/ref.err" || fail "reference run: $(tail -3 "$T/ref.err")"
sha=$(sqlite3 "$T/ref/ref.db" "SELECT model_sha256 FROM campaign_models")
[ "${#sha}" = 64 ] || fail "no model hash stored: '$sha'"
real=$T/ref/convfail-data/models/$sha
[ "$(sha256sum <"$real/model.onnx" | cut -c1-64)" = "$sha" ] || fail "the real model is not its hash"

# A one-row shard (0/1 of a one-model plan) naming that hash, its store folder forged.
shard() { # DB: ref.db's campaign as shard 0/1
  cp "$T/ref/ref.db" "$1"
  sqlite3 "$1" "UPDATE campaigns SET config_json = json_set(config_json, '\$.shard',
    json('{\"index\":0,\"count\":1,\"plan_models\":1}'))"
}
shard "$T/f/f.db"
forged=$T/f/convfail-data/models/$sha
mkdir -p "$forged"
printf 'not the exported model' >"$forged/model.onnx"
printf 'import os\nos.system("echo pwned")\n' >"$forged/program.py"
expect_exit 1 cfdb "$T/t/t.db" test merge "$T/f/f.db" --into "$T/t/t.db"
[ "$(wc -l <"$T/err")" = 1 ] || fail "not one line: $(cat "$T/err")"
expect_grep "does not hash to its name" "$T/err"
expect_grep "f.db campaign 1 (shard 0/1) model 0" "$T/err"
[ ! -e "$T/t/convfail-data/models/$sha" ] || fail "a refused merge stored the forged folder"
[ ! -e "$T/t/t.db" ] || [ "$(sqlite3 "$T/t/t.db" "SELECT count(*) FROM campaign_models")" = 0 ] ||
  fail "a refused merge stored rows"

# bundle_is_real DB OUT: the bundle of DB's group holds the model that hashes to its name and the
# real run's program.py.
bundle_is_real() {
  local g
  g=$(cfdb "$1" test groups --json | jq '.[0].id')
  cfdb "$1" test bundle "$g" "$2" >/dev/null 2>"$T/bundle.err" ||
    fail "bundle of $1: $(tail -3 "$T/bundle.err")"
  [ "$(sha256sum <"$2/model.onnx" | cut -c1-64)" = "$sha" ] ||
    fail "the bundle of $1 holds a model.onnx that does not hash to its name"
  if [ -e "$real/program.py" ]; then
    cmp -s "$2/program.py" "$real/program.py" || fail "the bundle of $1 ships another program.py"
  else  # a script's run stores no program: the bundle ships none
    [ ! -e "$2/program.py" ] || fail "the bundle of $1 ships a program.py: $(head -c 100 "$2/program.py")"
  fi
}

# The real model with a program.py beside it (a script's run stores none): refused too.
rm -rf "$forged"
cp -r "$real" "$forged"
printf 'import os\nos.system("echo pwned")\n' >"$forged/program.py"
expect_exit 1 cfdb "$T/t/t.db" test merge "$T/f/f.db" --into "$T/t/t.db"
expect_grep "holds program.py, which a run of a script never stores" "$T/err"
[ ! -e "$T/t/convfail-data/models/$sha" ] || fail "a refused merge stored the folder"

# A forged folder already in the target's store (left by a merge before this check).
mkdir -p "$T/t/convfail-data/models/$sha"
printf 'forged earlier' >"$T/t/convfail-data/models/$sha/model.onnx"
printf 'print("forged earlier")\n' >"$T/t/convfail-data/models/$sha/program.py"
# A real run in the target exports that hash: the forged folder is replaced, not trusted.
cfdb "$T/t/t.db" test run --source "script:$D/relu_int16.py" --jobs 1 --inputs 1 \
  >/dev/null 2>"$T/run.err" || fail "target run: $(tail -3 "$T/run.err")"
bundle_is_real "$T/t/t.db" "$T/bundle"
[ "$(sha256sum <"$T/t/convfail-data/models/$sha/model.onnx" | cut -c1-64)" = "$sha" ] ||
  fail "the target store still holds the forged model"

# The same through merge: an honest shard merged into a target whose store holds a forged folder.
shard "$T/h/h.db"
mkdir -p "$T/h/convfail-data/models"
cp -r "$real" "$T/h/convfail-data/models/"
mkdir -p "$T/m/convfail-data/models/$sha"
printf 'forged earlier' >"$T/m/convfail-data/models/$sha/model.onnx"
cfdb "$T/m/m.db" test merge "$T/h/h.db" --into "$T/m/m.db" >"$T/merge.out" 2>"$T/merge.err" ||
  fail "honest merge: $(tail -3 "$T/merge.err")"
[ "$(sha256sum <"$T/m/convfail-data/models/$sha/model.onnx" | cut -c1-64)" = "$sha" ] ||
  fail "merge kept a forged folder of the target's store"
bundle_is_real "$T/m/m.db" "$T/mbundle"
echo "ok"
